//! How the replay feeds the engine: the engine built from the session's header, the window in
//! use, the recorded measures and compactions, and the seams run before every recorded model
//! request.

use std::task::Context;
use std::task::Poll;
use std::task::Waker;

use agentctx_model::ToolSpec;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo;
use agentctx_protocol::TurnContextItem;
use agentctx_reminders::SystemReminderConfig;
use agentctx_rollout::CLAUDE_CODE_ORIGINATOR;
use agentctx_rollout::RequestStart;

use super::AGENTCTX_ORIGINATOR;
use super::RECORDED_TOOLS_FIELD;
use super::SessionReplayBuilder;
use super::decision_points::Between;
use crate::context_engine::ContextEngine;
use crate::context_engine::PromptParts;
use crate::decision::CompactReason;
use crate::decision::CompactionFigures;
use crate::engine_options::EngineOptions;
use crate::error::ReplayError;
use crate::recorded_session::AS_RECORDED;
use crate::recorded_session::truncation_policy_of;
use crate::replay::recorded_billing::RecordedBilling;
use crate::replay::recorded_billing::UnreplayedUsage;
use crate::replay::recorded_billing::recorded_tokens;
use crate::replay::replay_report::TurnReminder;
use crate::replay::request_usage::PredictionBasis;
use crate::replay::request_usage::RequestUsage;
use crate::replay::request_usage::TierTrigger;

impl SessionReplayBuilder<'_> {
    /// Whether agentctx recorded the session (its reminders are in the file).
    pub(super) fn recorded_by_agentctx(&self) -> bool {
        self.originator.as_deref() == Some(AGENTCTX_ORIGINATOR)
    }

    /// Whether the session records tool results as the model saw them (a Claude Code
    /// transcript): nothing is truncated again.
    pub(super) fn records_results_as_seen(&self) -> bool {
        self.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR)
    }

    /// The engine, built on first use from what the header said.
    pub(super) fn engine(&mut self) -> &mut ContextEngine {
        let overhead = self.overhead_tokens();
        let by_agentctx = self.recorded_by_agentctx();
        let main_agent = self.main_thread_is_sidechain != Some(true);
        // A Claude Code transcript's requests went to Anthropic, which counts images by their
        // pixels.
        let images = if self.records_results_as_seen() {
            crate::ImageCosts::Anthropic
        } else {
            crate::ImageCosts::Fixed
        };
        let window = self.window();
        let model = &self.model;
        let options = &self.options;
        let cwd = &self.cwd;
        let session_id = &self.session_id;
        self.engine.get_or_insert_with(|| {
            // Priced only when the engine is built (every call after that finds it built).
            let cost_model = model
                .as_deref()
                .map(|model| crate::cost_model::CostModel::for_model(model, None));
            let reminders = match (&options.reminders, by_agentctx) {
                // The live engine's reminders are in the file.
                (Some(_), true) | (None, _) => SystemReminderConfig {
                    enabled: false,
                    ..SystemReminderConfig::default()
                },
                (Some(config), false) => config.clone(),
            };
            let mut engine = ContextEngine::for_replay(
                EngineOptions {
                    cwd: cwd.clone().unwrap_or_default(),
                    home: options.home.clone(),
                    session_id: session_id.clone().unwrap_or_default(),
                    reminders,
                    compact: options.compact.clone(),
                    context_window: window,
                    max_output_tokens: self.max_output_tokens,
                },
                by_agentctx,
            );
            engine.set_main_agent(main_agent);
            engine.set_prompt_overhead(overhead);
            engine.set_image_costs(images);
            if let Some(cost_model) = cost_model {
                engine.set_cost_model(cost_model);
            }
            // Until a `turn_context` says otherwise, outputs are kept as recorded (Claude Code
            // records them as the model saw them; codex's legacy rollouts record no policy).
            engine.set_truncation(AS_RECORDED);
            engine
        })
    }

    /// The window in use: the session's, else the one given, else the model table's for the
    /// session's model, else the default.
    pub(super) fn window(&self) -> i64 {
        EngineOptions::window(
            self.model_context_window,
            self.options
                .context_window
                .map(|tokens| i64::try_from(tokens).unwrap_or(i64::MAX)),
            self.model.as_deref(),
            self.options.default_window,
        )
    }

    /// Moves the engine to the window now in use.
    pub(super) fn apply_window(&mut self) {
        let window = self.window();
        let max_output = self.max_output_tokens;
        if let Some(engine) = &mut self.engine {
            engine.set_context_window(window, max_output);
        }
    }

    /// The model the session recorded (a Codex `turn_context.model` or
    /// `thread_settings_applied`, the model of an imported Claude Code response): its window in
    /// the model table is used when the session records none (a `[1m]` suffix is the
    /// one-million-token window).
    pub(super) fn model(&mut self, slug: &str) {
        if self.model.as_deref() != Some(slug) {
            self.model = Some(slug.to_string());
            if let Some(engine) = &mut self.engine {
                engine.set_cost_model(crate::cost_model::CostModel::for_model(slug, None));
            }
        }
        self.apply_window();
    }

    /// What every request carries besides the history: the instructions and the tools (kept
    /// as the session's header and `turn_context` lines set them).
    pub(super) fn overhead_tokens(&self) -> u64 {
        self.overhead_tokens
    }

    /// Counts the overhead again after the instructions or the tools changed.
    pub(super) fn update_overhead(&mut self) {
        self.overhead_tokens =
            crate::compaction_policy::prompt_overhead_tokens(&self.instructions, &self.tools);
    }

    /// A main-thread `token_count`: the measure of a model request.
    ///
    /// A count whose usage is the previous count's is a copy and is dropped (counted in
    /// `ignored` as `token_count:copy`): the total a count carries grows with every request, so
    /// two requests never record the same usage. Codex 0.4x–0.5x wrote such copies: it sent a
    /// count whenever rate limits arrived, at the start of each request's stream, with the usage
    /// of the request before (codex-rs `core/src/codex.rs`, `update_rate_limits` →
    /// `send_token_count_event`), so each measure appears twice, the copy after the next
    /// request's `turn_context`.
    ///
    /// Current writers record a request's measure after its items (Codex writes the
    /// `token_count` when the response completes, its items as they arrive; the Claude Code
    /// import after the response): the measure is the open request's, and a second report for
    /// it replaces the first. Codex 0.4x–0.5x recorded a request's items only once its stream
    /// had completed, after the `token_count` of that completion (codex-rs `core/src/codex.rs`:
    /// `try_run_turn` sends the count on `Completed` and returns the processed items, which
    /// `run_task` then records): there the measure comes before the request's items and is kept
    /// until the request starts. Such a session is recognised by its first measure, which comes
    /// before any request. A measure of zero input tokens measures no request (codex's count
    /// after a context-window error, its estimates).
    /// `cache_write` is the part of the input the request wrote to the provider's prompt cache.
    /// `billing` is what the count says beyond the counts (the model that answered, …).
    pub(super) fn token_count(
        &mut self,
        info: &TokenUsageInfo,
        cache_write: u64,
        billing: RecordedBilling,
    ) {
        if self.last_token_info.as_ref() == Some(info) {
            *self
                .ignored
                .entry("token_count:copy".to_string())
                .or_default() += 1;
            return;
        }
        self.last_token_info = Some(info.clone());
        let usage = info.last_token_usage;
        if let Some(window) = info.model_context_window
            && self.model_context_window != Some(window)
        {
            self.model_context_window = Some(window);
            self.apply_window();
        }
        self.max_recorded_prompt_tokens = Some(
            self.max_recorded_prompt_tokens
                .map_or(usage.input_tokens, |max| max.max(usage.input_tokens)),
        );
        self.engine().observe_recorded_token_count(info);
        if usage.input_tokens > 0 {
            if self.requests.is_empty() {
                self.measures_lead = true;
            }
            if self.measures_lead {
                let previous = self.pending_measure.replace((usage, cache_write, billing));
                self.unreplayed_usage
                    .extend(UnreplayedUsage::of_pending(previous));
            } else if self.request_open {
                self.measure_open_request(&usage, cache_write, billing);
            } else {
                // No replayed request is open (a compaction's summary request): billed anyway.
                let tokens = recorded_tokens(&usage, cache_write);
                self.unreplayed_usage
                    .push(UnreplayedUsage { tokens, billing });
            }
        }
        if let Some(turn) = &mut self.current {
            turn.recorded_prompt_tokens = Some(usage.input_tokens);
            turn.recorded_output_tokens = Some(usage.output_tokens);
            turn.model_context_window = self.model_context_window;
        }
    }

    /// Runs the engine's compaction for `reason` now, offline, and installs it.
    pub(super) fn compact_here(&mut self, reason: CompactReason) -> Option<CompactionFigures> {
        let runtime = self
            .runtime()
            .inspect_err(
                |error| tracing::warn!(%error, "no async runtime to compact in the replay"),
            )
            .ok()?;
        let clock = i32::try_from(self.requests.len()).unwrap_or(i32::MAX);
        let todo_tool = self.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR);
        let instructions = std::mem::take(&mut self.instructions);
        let engine = self.engine();
        let before = engine.context_usage().used_tokens();
        // The state the history implies now, read without counting a request: the request's own
        // preparation counts it.
        let host = engine.reminders().recorded_host_state(clock, todo_tool);
        let initial = engine.initial_context().to_vec();
        // What the session read and wrote, as its tools told the live engine: restored alike.
        self.observe_reads();
        let engine = self.engine();
        let compaction = run_on(
            &runtime,
            engine.compact(None, reason, initial, &instructions, &host, clock),
        );
        let after = engine.context_usage().used_tokens();
        self.instructions = instructions;
        self.runtime = Some(runtime);
        if let (Some(survival), Some(engine)) = (&mut self.survival, &self.engine) {
            survival.our_compaction(
                engine.history(),
                self.current.as_ref().map(|turn| turn.turn),
                self.requests.len(),
                self.cwd.as_deref().unwrap_or(std::path::Path::new("")),
            );
        }
        self.recorded_offset = self
            .recorded_offset
            .saturating_add(before.saturating_sub(after));
        // The recorded session's own records go on as recorded: where its requests start is not
        // changed by a compaction only the replay ran.
        self.due_auto_compact = Some(TierTrigger {
            tokens_before: before,
            tokens_after: after,
        });
        Some(CompactionFigures {
            tier: compaction.tier,
            tokens_before: before,
            tokens_after: after,
            summary: compaction.summary_estimate,
        })
    }

    /// The replay's runtime, made on first use (taken; put it back after use).
    fn runtime(&mut self) -> Result<tokio::runtime::Runtime, ReplayError> {
        match self.runtime.take() {
            Some(runtime) => Ok(runtime),
            None => tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .map_err(ReplayError::Runtime),
        }
    }

    /// A turn's settings: its model, its truncation policy (as `read_recorded_session` reads
    /// it), and the tools agentctx recorded for it when they changed.
    pub(super) fn turn_context(&mut self, context: &TurnContextItem) {
        if let Some(recorded) = context.extra.get(super::RECORDED_WINDOW_FIELD) {
            let field = |name: &str| recorded.get(name).and_then(serde_json::Value::as_i64);
            self.max_output_tokens = field("max_output_tokens");
            if let Some(window) = field("context_window") {
                self.model_context_window = Some(window);
            }
        }
        if let Some(model) = &context.model {
            self.model(model);
        }
        if !self.records_results_as_seen() {
            // A turn that recorded no policy is from a writer that truncated nothing when
            // recording (codex before 0.6x wrote outputs already cut for the model).
            let policy = truncation_policy_of(context).unwrap_or(AS_RECORDED);
            self.engine().set_truncation(policy);
        }
        self.reasoning = super::recorded_reasoning(context);
        // The classes agentctx declared for its tools: the micro tier clears what it cleared.
        if let Some(classes) = context
            .extra
            .get(crate::RECORDED_TOOL_CLASSES_FIELD)
            .and_then(|value| serde_json::from_value(value.clone()).ok())
        {
            self.engine().set_tool_classes(classes);
        }
        let Some(tools) = context
            .extra
            .get(RECORDED_TOOLS_FIELD)
            .and_then(|value| serde_json::from_value::<Vec<ToolSpec>>(value.clone()).ok())
        else {
            return;
        };
        self.tools = tools;
        self.update_overhead();
        let overhead = self.overhead_tokens();
        self.engine().set_prompt_overhead(overhead);
    }

    /// A recorded model request starts: the decision due after tool outputs is carried out,
    /// then the engine prepares the request as a live session does before it sends one and
    /// decides on it (the blocking limit).
    pub(super) fn request(&mut self, line: usize, start: RequestStart) -> Result<(), ReplayError> {
        self.request_starts();
        let number = self.requests.len() + 1;
        let clock = i32::try_from(number).unwrap_or(i32::MAX);
        let todo_tool = self.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR);
        let runtime = self.runtime()?;
        let overhead = self.overhead_tokens();
        let engine = self.engine();
        let host = engine.recorded_host_state(clock, todo_tool);
        let ctx = engine.reminder_context(&host, start.has_user_input);
        let prepared = run_on(&runtime, engine.prepare_request(ctx));
        let mut decision = engine.decide_request(Some(&prepared), overhead);
        if let Some(reason) = decision.compact_reason() {
            // A live session compacts before it sends a blocked request, then asks again.
            self.runtime = Some(runtime);
            decision.compaction = self.compact_here(reason);
            self.due_decisions.push(decision);
            let overhead = self.overhead_tokens();
            decision = self.engine().decide_request(None, overhead);
        } else {
            self.runtime = Some(runtime);
        }
        self.due_decisions.push(decision);
        let usage = prepared.usage;
        let predicted_tokens = usage.used_tokens();
        let basis = if usage.measured_tokens.is_some() {
            PredictionBasis::PreviousRequest
        } else {
            PredictionBasis::WholeHistory
        };
        let micro_compact = prepared.micro.as_ref().map(|micro| TierTrigger {
            tokens_before: micro.tokens_before,
            tokens_after: micro.tokens_after,
        });
        let predicted_tokens = micro_compact.map_or(predicted_tokens, |micro| micro.tokens_before);
        let used = micro_compact.map_or(predicted_tokens, |micro| micro.tokens_after);
        let recorded_offset = self.recorded_offset;
        if let Some(micro) = micro_compact
            && !self.recorded_by_agentctx()
        {
            // The recorded session kept the results our micro-compaction cleared (a session
            // agentctx recorded cleared the same ones live: its measures are of our history).
            self.recorded_offset = self
                .recorded_offset
                .saturating_add(micro.tokens_before.saturating_sub(micro.tokens_after));
        }
        let Some(engine) = self.engine.as_ref() else {
            return Ok(());
        };
        let level = engine.thresholds().level(used);
        let prompt_tokens = engine
            .context_manager()
            .estimate_token_count()
            .saturating_add(self.instructions_tokens);
        if let Some(sink) = self.sink.as_deref_mut() {
            let prompt = engine.build_prompt(
                &prepared,
                PromptParts {
                    instructions: self.instructions.clone(),
                    tools: self.tools.clone(),
                    reasoning: self.reasoning,
                    session_id: self.session_id.clone(),
                },
            );
            sink.request(number, &prompt)
                .map_err(|source| ReplayError::Sink {
                    request: number,
                    source,
                })?;
        }
        let request = RequestUsage {
            request: number,
            line,
            predicted_tokens,
            basis,
            recorded_tokens: None,
            recorded_usage: None,
            recorded_billing: None,
            after_compaction: std::mem::take(&mut self.compacted_since_request),
            micro_compact,
            micro_cost: prepared.micro_cost,
            level,
            auto_compact: self.due_auto_compact.take(),
            recorded_offset,
            decisions: std::mem::take(&mut self.due_decisions),
        };
        self.between = Between::Response { tool_calls: false };
        self.request_open = true;
        self.requests.push(request.clone());
        self.max_prompt_tokens = self.max_prompt_tokens.max(prompt_tokens);
        for reminder in &prepared.fired {
            *self
                .reminder_counts
                .entry(reminder.attachment_type.to_string())
                .or_default() += 1;
        }
        if let Some(turn) = &mut self.current {
            if let Some(reminders) = &mut turn.reminders {
                reminders.extend(prepared.fired.into_iter().map(|reminder| TurnReminder {
                    reminder,
                    request: start.request_in_turn,
                }));
            }
            if let Some(evaluations) = &mut turn.reminder_evaluations {
                *evaluations += 1;
            }
            turn.request_usage.push(request);
            turn.requests += 1;
            turn.estimated_prompt_tokens = prompt_tokens;
            turn.max_estimated_prompt_tokens = turn.max_estimated_prompt_tokens.max(prompt_tokens);
        }
        // Judged first, measured after: a measure recorded before the request's items is this
        // request's own input, never part of its prediction.
        if let Some((usage, cache_write, billing)) = self.pending_measure.take() {
            self.measure_open_request(&usage, cache_write, billing);
        }
        Ok(())
    }

    /// The open request recorded `usage`: the engine takes it as the request's measure, and
    /// the request's row shows it.
    pub(super) fn measure_open_request(
        &mut self,
        usage: &TokenUsage,
        cache_write: u64,
        billing: RecordedBilling,
    ) {
        // The measure of our history: the recorded one less what our tiers took out that the
        // recorded session kept.
        let offset = i64::try_from(self.recorded_offset).unwrap_or(i64::MAX);
        let ours = TokenUsage {
            input_tokens: usage.input_tokens.saturating_sub(offset).max(0),
            total_tokens: usage.total_tokens.saturating_sub(offset).max(0),
            ..*usage
        };
        self.engine().record_usage(&ours);
        let tokens = recorded_tokens(usage, cache_write);
        let recorded = tokens.input;
        let number = self.requests.len();
        if let Some(request) = self.requests.last_mut() {
            // A second measure of one request is another response, billed apart.
            self.unreplayed_usage.extend(UnreplayedUsage::take(request));
            request.recorded_tokens = Some(recorded);
            request.recorded_usage = Some(tokens);
            request.recorded_billing = Some(billing.clone());
        }
        let turns = self.current.iter_mut().chain(self.turns.iter_mut().rev());
        if let Some(measured) = turns
            .flat_map(|turn| turn.request_usage.iter_mut())
            .find(|measured| measured.request == number)
        {
            measured.recorded_tokens = Some(recorded);
            measured.recorded_usage = Some(tokens);
            measured.recorded_billing = Some(billing);
        }
    }
}

/// Runs `future` to its end on `runtime`: polled once in place within the runtime's context
/// (most requests' preparation never waits: every reminder generator answers at once), and
/// only when it is pending handed to `block_on`, which polls it again with its own waker. Saves
/// `block_on`'s setting up and tearing down of the runtime's context before every request.
fn run_on<F: Future>(runtime: &tokio::runtime::Runtime, future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    {
        let _entered = runtime.enter();
        let mut context = Context::from_waker(Waker::noop());
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
    runtime.block_on(future)
}

#[cfg(test)]
#[path = "engine_feed_tests.rs"]
mod tests;
