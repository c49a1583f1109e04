//! [`ContextEngine`]: the per-session context state and the per-request pipeline, behind the
//! seams a host's turn loop calls.
//!
//! One turn, as the host drives it (the engine decides; the host does what it says, see
//! `decision.rs`):
//!
//! 1. [`ContextEngine::before_turn`] and, when it asks, [`ContextEngine::compact`];
//! 2. [`ContextEngine::begin_turn`]: the initial context in full (first turn, after a
//!    compaction) or the settings diff, then the user's message;
//! 3. for every model request: [`ContextEngine::reminder_context`] (the host may add its
//!    providers to the returned context), [`ContextEngine::prepare_request`] (reminders,
//!    micro-compaction), [`ContextEngine::before_request`] (send, compact first, or fail);
//!    on a failed request [`ContextEngine::after_failure`]; after the stream,
//!    [`ContextEngine::record_response`], the tool outputs through
//!    [`ContextEngine::record_tool_outputs`], file reads through
//!    [`ContextEngine::file_observer`], then [`ContextEngine::after_tool_outputs`];
//! 4. [`ContextEngine::after_turn`]: the background session-memory extraction.
//!
//! The engine records into its history; what it returns is what the host persists (the
//! rollout) and reports (events). It never speaks to the model except through the
//! [`ModelClient`] the host hands to [`ContextEngine::compact`] and
//! [`ContextEngine::after_turn`].

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use agentctx_compact::CompactionThresholds;
use agentctx_compact::ContextUsage;
use agentctx_compact::ContextWindow;
use agentctx_context::ContextManager;
use agentctx_context::InputModality;
use agentctx_context::TruncationPolicy;
use agentctx_context::TurnSettings;
use agentctx_model::ModelClient;
use agentctx_model::Prompt;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::HistoryEvent;
use agentctx_reminders::ItemFlags;

use crate::compaction_policy::CompactPoint;
use crate::compaction_policy::Compactor;
use crate::compaction_policy::PreCompactHook;
use crate::compaction_policy::RestorationSnapshot;
use crate::compaction_policy::prompt_overhead_tokens;
use crate::decision::Action;
use crate::decision::CompactReason;
use crate::decision::CompactTrigger;
use crate::decision::CompactionFigures;
use crate::decision::ContextFull;
use crate::decision::Decision;
use crate::decision::DecisionPoint;
use crate::decision::OVERFLOW_SUSPECT_PERCENT;
use crate::decision::RequestFailure;
use crate::decision::RequestStep;
use crate::engine_options::EngineOptions;
use crate::file_observer::FileObserver;
use crate::host_state::HostState;
use crate::reminder_pipeline::ReminderEngine;
use crate::reminder_pipeline::RequestFacts;
use crate::reminder_pipeline::ResumedState;

mod portable_copy;
mod recorded_compaction;
mod seam_types;

pub use seam_types::Compaction;
pub use seam_types::CompactionTier;
pub use seam_types::MicroCompaction;
pub use seam_types::PreparedRequest;
pub use seam_types::PromptParts;
pub use seam_types::TurnStart;

/// The context engine of one session (or one subagent).
pub struct ContextEngine {
    cwd: PathBuf,
    context_window: i64,
    /// The model's output limit, when known.
    max_output_tokens: Option<i64>,
    history: ContextManager,
    reminders: ReminderEngine,
    compactor: Compactor,
    micro_cleared: usize,
    compact_references: Vec<PathBuf>,
    /// A compaction happened since the last request: the session's plan file is pointed at
    /// again (`plan_file_reference`), as the summary may not carry the plan.
    plan_reference_due: bool,
    previous_model: Option<String>,
    user_prompt: Option<String>,
    /// Our estimate of the last prompt checked (atomic: the prompt checked borrows the
    /// history).
    last_estimate: AtomicU64,
    /// The history's length when the last prepared request was sent (what its measure covers).
    request_history_len: usize,
    /// How tool outputs are truncated as they enter the history.
    truncation: TruncationPolicy,
    background: Vec<tokio::task::JoinHandle<()>>,
    /// The provider requests go to, when the host said (see `portable_copy.rs`).
    provider: Option<agentctx_model::ProviderIdentity>,
    /// The decisions taken since the host last took them ([`ContextEngine::take_decisions`]).
    decisions: Vec<Decision>,
    /// A compaction ran since the last request was sent: a blocked request then fails instead
    /// of compacting again (nothing but reminders was added since).
    compacted_since_request: bool,
    /// An overflow was compacted in this turn: the next one fails the turn.
    overflow_compacted: bool,
    /// Model requests prepared so far.
    requests_prepared: u64,
    /// The initial context last recorded in full (`begin_turn`; in a replay, the contextual
    /// items a turn recorded before its message when it was the first or followed a
    /// compaction): what a mid-turn compaction puts back before the last user message.
    initial_context: Vec<ResponseItem>,
    /// A replay: the contextual items recorded since the last turn started, and whether the
    /// history was compacted (or never had a turn) since, so they are the initial context in
    /// full.
    recorded_context: (Vec<ResponseItem>, bool),
}

impl std::fmt::Debug for ContextEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextEngine")
            .field("items", &self.history.len())
            .field("compactor", &self.compactor)
            .finish_non_exhaustive()
    }
}

impl ContextEngine {
    /// An engine over an empty history.
    pub fn new(options: EngineOptions) -> Self {
        Self::with_history(options, ContextManager::new())
    }

    /// An engine continuing `history` (a resumed session).
    pub fn with_history(options: EngineOptions, history: ContextManager) -> Self {
        let compactor = Compactor::new(
            options.compact.clone(),
            &options.home,
            &options.session_id,
            options.context_window,
            options.max_output_tokens,
        );
        Self {
            cwd: options.cwd,
            context_window: options.context_window,
            max_output_tokens: options.max_output_tokens,
            history,
            reminders: ReminderEngine::new(options.reminders),
            compactor,
            micro_cleared: 0,
            compact_references: Vec::new(),
            plan_reference_due: false,
            previous_model: None,
            user_prompt: None,
            last_estimate: AtomicU64::new(0),
            request_history_len: 0,
            truncation: TruncationPolicy::default(),
            background: Vec::new(),
            provider: None,
            decisions: Vec::new(),
            compacted_since_request: false,
            overflow_compacted: false,
            requests_prepared: 0,
            initial_context: Vec::new(),
            recorded_context: (Vec::new(), true),
        }
    }

    /// An engine for the replay of a recorded session: the reminder stage is seeded and skips
    /// `@` mentions when the session's folder is not on this machine, micro-compaction writes
    /// nothing, and reminders are recorded in the history only when `record_reminders` (a
    /// session this engine recorded, whose reminders are in its file, records none anew; one
    /// another agent recorded carries ours on each request's prompt only).
    pub fn for_replay(options: EngineOptions, record_reminders: bool) -> Self {
        let reminders = ReminderEngine::for_replay(options.reminders.clone(), &options.cwd);
        let mut engine = Self::new(options);
        engine.reminders = reminders;
        engine.reminders.set_record_tail(record_reminders);
        engine
            .compactor
            .set_micro_persistence(agentctx_compact::MicroPersistence::MarkersOnly);
        engine
    }

    /// The history as recorded (reminders in place, compactions applied).
    pub fn history(&self) -> &[ResponseItem] {
        self.history.raw_items()
    }

    /// The history manager (sizes, token info, reference context).
    pub fn context_manager(&self) -> &ContextManager {
        &self.history
    }

    /// The usage every request reported, with the window.
    pub fn token_info(&self) -> Option<&TokenUsageInfo> {
        self.history.token_info()
    }

    /// The reminder stage (its file tracker, for hosts and tests).
    pub fn reminders(&self) -> &ReminderEngine {
        &self.reminders
    }

    /// The compaction policy (its window and thresholds).
    pub fn compactor(&self) -> &Compactor {
        &self.compactor
    }

    /// Adds a `PreCompact` hook, told before every compaction.
    pub fn add_pre_compact_hook(&mut self, hook: Arc<dyn PreCompactHook>) {
        self.compactor.add_pre_compact_hook(hook);
    }

    /// The observer the host's file tools report reads and writes to: it feeds the
    /// changed-file reminders, the restoration cache and the read ledger.
    pub fn file_observer(&self) -> Arc<dyn FileObserver> {
        Arc::new(Observers(vec![
            self.reminders.file_observer(),
            self.compactor.file_observer(),
        ]))
    }

    /// The classes of the host's tools (its registry's), by which micro-compaction knows which
    /// results it may clear; a tool the host does not offer is known by the name Codex or
    /// Claude Code records for it.
    pub fn set_tool_classes(&mut self, tools: agentctx_compact::ToolClasses) {
        self.compactor.set_tool_classes(tools);
    }

    /// The classes set by [`ContextEngine::set_tool_classes`].
    pub fn tool_classes(&self) -> &agentctx_compact::ToolClasses {
        self.compactor.tool_classes()
    }

    /// The initial context last recorded in full: what a host (or a replay) gives
    /// [`ContextEngine::compact`] to put back in a mid-turn compaction.
    pub fn initial_context(&self) -> &[ResponseItem] {
        &self.initial_context
    }

    /// The window, in tokens, requests are judged against.
    pub fn context_window(&self) -> i64 {
        self.context_window
    }

    /// The model's output limit, when known.
    pub fn max_output_tokens(&self) -> Option<i64> {
        self.max_output_tokens
    }

    /// Whether the reminders are for the main agent (a subagent's are fewer).
    pub fn set_main_agent(&mut self, main_agent: bool) {
        self.reminders.set_main_agent(main_agent);
    }

    /// Moves to a model with `context_window` tokens and at most `max_output_tokens` of output:
    /// the thresholds and budgets follow the new window.
    pub fn set_context_window(&mut self, context_window: i64, max_output_tokens: Option<i64>) {
        self.context_window = context_window;
        self.max_output_tokens = max_output_tokens;
        self.compactor.set_window(context_window, max_output_tokens);
    }

    /// Prices the session's requests with `model` (`cost_model.rs`): the cost-aware
    /// micro-compaction and the default token budget follow it. [`ContextEngine::set_client`]
    /// sets the client's model; a replay sets the recorded one.
    pub fn set_cost_model(&mut self, model: crate::cost_model::CostModel) {
        self.compactor.set_cost_model(model);
    }

    /// The cost model in use.
    pub fn cost_model(&self) -> &crate::cost_model::CostModel {
        self.compactor.cost_model()
    }

    /// Instructions for the summary of the next compaction (a user's `/compact <instructions>`):
    /// it compacts in full through the model (not from the session-memory summary), the
    /// instructions added after the summary prompt. Taken by that compaction; empty text is none.
    pub fn set_next_compaction_instructions(&mut self, instructions: Option<String>) {
        self.compactor.set_next_instructions(instructions);
    }

    /// The reasoning parameters of the turn (its thinking level, as the host sends it): the full
    /// tier's summary request carries them, as codex sends the turn's reasoning with its
    /// compaction request. (A compaction at the provider is sent without them.)
    pub fn set_reasoning(&mut self, reasoning: Option<agentctx_model::ReasoningOptions>) {
        self.compactor.set_reasoning(reasoning);
    }

    /// Remembers what every request carries besides the history (instructions and tool
    /// schemas), for usage no request measured. [`ContextEngine::decide_request`] sets it from
    /// the request's overhead; a host may set it sooner (before its first request).
    pub fn set_prompt_overhead(&self, tokens: u64) {
        self.compactor.set_prompt_overhead(tokens);
    }

    /// Our usage of the history now.
    pub fn context_usage(&self) -> ContextUsage {
        self.compactor
            .usage_of_history(self.history.raw_items(), self.history.item_sizes())
    }

    /// A recorded turn starts with the user's `input` (a replay; [`ContextEngine::begin_turn`]
    /// does this for a live turn): the next request's reminders see it.
    pub fn observe_turn_start(&mut self, input: Option<&str>) {
        self.user_prompt = input.map(str::to_string);
        // The first turn, and the first after a compaction, record the initial context in full.
        let (context, full) = std::mem::take(&mut self.recorded_context);
        if full && !context.is_empty() {
            self.initial_context = context;
        }
        // As `begin_turn`: a compaction before the turn does not keep its first request from
        // compacting again.
        self.compacted_since_request = false;
    }

    /// One item of a recorded history (a replay): the reminder state it implies is updated
    /// and the item is appended.
    pub fn observe_recorded_item(&mut self, item: ResponseItem, flags: ItemFlags) {
        if is_initial_context_item(&item) {
            self.recorded_context.0.push(item.clone());
        }
        self.reminders
            .observe_recorded(HistoryEvent::Item(&item, flags));
        self.reminders.observe_items(std::slice::from_ref(&item));
        self.history
            .record_items(std::iter::once(item), self.truncation);
    }

    /// The time a record of a replayed session carries (RFC 3339, as rollouts record it): the
    /// thrash guard counts compactions on the recorded session's clock, not on the replay's
    /// (which runs hours of a session in seconds). A time that does not parse is ignored.
    pub fn observe_recorded_time(&mut self, timestamp: &str) {
        if let Ok(at) = chrono::DateTime::parse_from_rfc3339(timestamp) {
            self.compactor.set_recorded_time(at.to_utc());
        }
    }

    /// A recorded `token_count` (a replay): the reminder state's view of usage.
    pub fn observe_recorded_token_count(&mut self, info: &TokenUsageInfo) {
        self.reminders
            .observe_recorded(HistoryEvent::TokenCount(info));
    }

    /// The host state a recorded history implies at request `requests` (a replay has no live
    /// state of its own). `todo_tool_available`: the recorded agent had a todo tool.
    pub fn recorded_host_state(&mut self, requests: i32, todo_tool_available: bool) -> HostState {
        self.reminders
            .observe_recorded(HistoryEvent::TurnStarted(requests));
        self.reminders
            .recorded_host_state(requests, todo_tool_available)
    }

    /// Drops the last `num_turns` user turns (a recorded rollback), as codex rebuilds a history.
    pub fn rollback(&mut self, num_turns: u32) {
        self.history.drop_last_n_user_turns(num_turns);
        self.compactor.forget_measure();
    }

    /// Installs a history the recording says replaced the old one (a compaction recorded by
    /// this engine live, or by another agent): the measure is forgotten and the reminder stage
    /// starts over, as after a compaction of its own.
    pub fn install_recorded_compaction(&mut self, history: Vec<ResponseItem>, clock: i32) {
        self.history.replace(history);
        // The next turn records the initial context in full.
        self.recorded_context = (Vec::new(), true);
        self.compactor.forget_measure();
        self.last_estimate.store(0, Ordering::Relaxed);
        self.compacted_since_request = true;
        self.reminders.reset_after_compaction(&self.cwd, &[], clock);
        self.compact_references.clear();
    }

    /// How the provider counts images, for the usage prediction (`set_provider` sets it for
    /// an Anthropic provider; a replay for a Claude Code transcript).
    pub fn set_image_costs(&mut self, images: crate::ImageCosts) {
        self.compactor.set_image_costs(images);
    }

    /// The model the last turn ran with (a change is announced to the next one).
    pub fn set_previous_model(&mut self, model: Option<String>) {
        self.previous_model = model;
    }

    /// Reads the reminder state back from the history (a resumed session): the todo list, the
    /// plan file and plan mode, for the host's own state.
    pub fn resume_reminders(&mut self) -> ResumedState {
        self.reminders.resume_from_history(self.history.raw_items())
    }

    /// Whether the history is over the auto-compact threshold.
    pub fn needs_compaction(&self) -> bool {
        self.compactor.should_compact(self.history.raw_items())
    }

    /// `(used, effective window, percent left)` now.
    pub fn usage_figures(&self) -> (u64, u64, u8) {
        self.compactor.usage_figures(self.history.raw_items())
    }

    /// The thresholds of this session's window.
    pub fn thresholds(&self) -> CompactionThresholds {
        self.compactor.thresholds()
    }

    /// The window and its output reserve.
    pub fn window(&self) -> ContextWindow {
        self.compactor.window()
    }

    /// Whether compaction is enabled.
    pub fn compaction_enabled(&self) -> bool {
        self.compactor.enabled()
    }

    /// Starts a turn: records the initial context in full (first turn, after a pre-turn
    /// compaction) or the diff of the settings since the last turn, then the user's `input`.
    pub fn begin_turn(
        &mut self,
        settings: &TurnSettings,
        turn_id: String,
        initial_context: impl FnOnce() -> Vec<ResponseItem>,
        input: &str,
    ) -> TurnStart {
        let mut full = None;
        let context_updates = self.history.record_context_updates(
            self.previous_model.as_deref(),
            settings,
            Some(turn_id.clone()),
            || {
                let items = initial_context();
                full = Some(items.clone());
                items
            },
        );
        if let Some(items) = full {
            self.initial_context = items;
        }
        self.previous_model = Some(settings.model.clone());
        self.compacted_since_request = false;
        let user_message = ResponseItem::user_text(input);
        self.record_items(std::slice::from_ref(&user_message));
        self.user_prompt = Some(input.to_string());
        let mut turn_context = settings.to_turn_context_item(Some(turn_id));
        // As codex records it: how this turn's tool outputs are truncated in the history (a
        // replay or a resume of the file truncates them alike).
        if let Ok(policy) = serde_json::to_value(self.truncation) {
            turn_context
                .extra
                .insert("truncation_policy".to_string(), policy);
        }
        TurnStart {
            context_updates,
            turn_context,
            user_message,
        }
    }

    /// Appends `items` to the history (tool outputs, continuation messages, anything the host
    /// adds between requests). A compaction item among them gets its readable copy first
    /// ([`ContextEngine::with_readable_copies`]).
    pub fn record_items(&mut self, items: &[ResponseItem]) {
        self.reminders.observe_items(items);
        let items = self.with_readable_copies(items);
        self.history
            .record_items(items.iter().cloned(), self.truncation);
    }

    /// How tool outputs are truncated as they enter the history (default: codex's 10,000
    /// bytes). A replay follows what the recording says the agent did: a Codex rollout the
    /// `truncation_policy` of each turn, a Claude Code transcript nothing (its results are
    /// recorded as the model saw them).
    pub fn set_truncation(&mut self, policy: TruncationPolicy) {
        self.truncation = policy;
    }

    /// The reminder generators' context for the next request: the host's state, this engine's
    /// usage, micro-compaction and compaction figures. `first_request` is true for the request
    /// that carries the user's message. The host may add its own providers (hooks, MCP
    /// resources) before handing it to [`ContextEngine::prepare_request`].
    pub fn reminder_context(&mut self, host: &HostState, first_request: bool) -> GeneratorContext {
        // The usage from the sizes the history keeps (each item measured once, as it entered),
        // as `usage_figures` gives it without measuring the items again.
        let usage = self.context_usage();
        let facts = RequestFacts {
            has_user_input: first_request,
            user_prompt: self.user_prompt.as_deref(),
            token_usage: Some((usage.used_tokens(), usage.effective_window())),
            micro_compact_cleared: std::mem::take(&mut self.micro_cleared),
            compact_file_references: std::mem::take(&mut self.compact_references),
            plan_reference_after_compaction: std::mem::take(&mut self.plan_reference_due),
        };
        self.reminders.count_request(first_request);
        self.reminders.context(&self.cwd, host, &facts)
    }

    /// Prepares the next request: runs the reminder generators on `reminders` (from
    /// [`ContextEngine::reminder_context`]) and places them, then micro-compacts old tool
    /// results when that saves enough.
    pub async fn prepare_request(&mut self, reminders: GeneratorContext) -> PreparedRequest {
        self.requests_prepared = self.requests_prepared.saturating_add(1);
        let placed = self.reminders.generate(reminders).await;
        self.record_items(&placed.record);
        let before = self.context_usage().used_tokens();
        // Cleared in place: no copy of the history, only the cleared items measured again.
        let micro = self.compactor.micro(&mut self.history).map(|outcome| {
            self.micro_cleared = outcome.cleared_count();
            MicroCompaction {
                event: outcome.loop_event(),
                cleared: outcome.cleared_count(),
                tokens_before: before,
                tokens_after: before.saturating_sub(outcome.tokens_saved),
            }
        });
        let micro_cost = self.compactor.take_micro_cost();
        self.request_history_len = self.history.len();
        let mut usage = self.context_usage();
        if let Some(micro) = &micro {
            // The measure covered the history before the clears: the usage is the one before
            // them with what they saved taken off.
            usage.estimated_tokens = micro
                .tokens_after
                .saturating_sub(usage.measured_tokens.unwrap_or(0));
        }
        PreparedRequest {
            recorded: placed.record,
            prompt_only: placed.prompt_only,
            prompt_tail: placed.prompt_tail,
            fired: placed.fired,
            micro,
            micro_cost,
            usage,
        }
    }

    /// The input items of the request: the normalised prompt view of the history (borrowed,
    /// no copy per request) with the prompt-only reminders of `prepared` placed. A compaction
    /// item the provider cannot read goes as its readable copy ([`ContextEngine::set_provider`]).
    pub fn prompt_input(&self, prepared: &PreparedRequest) -> Vec<Cow<'_, ResponseItem>> {
        let mut input = self.portable(self.history.prompt_view(&InputModality::TEXT_AND_IMAGE));
        input.extend(prepared.prompt_tail.iter().cloned().map(Cow::Owned));
        if !prepared.prompt_only.is_empty() {
            let position = agentctx_reminders::after_environment_context_position(&input);
            input.splice(
                position..position,
                prepared.prompt_only.iter().cloned().map(Cow::Owned),
            );
        }
        input
    }

    /// The request the engine would send: `parts` (the host's instructions and tools) around
    /// [`ContextEngine::prompt_input`]. The live session and `agentctx replay --requests` build
    /// their prompts here, so both send the same body for the same history.
    pub fn build_prompt(&self, prepared: &PreparedRequest, parts: PromptParts) -> Prompt<'_> {
        Prompt {
            instructions: parts.instructions,
            input: self.prompt_input(prepared),
            tools: parts.tools,
            reasoning: parts.reasoning,
            output_schema: None,
            session_id: parts.session_id,
            ..Prompt::default()
        }
    }

    /// Our estimate of the request `prepared` with `overhead` tokens of instructions and tool
    /// schemas around it ([`prompt_overhead_tokens`]), from the sizes the history keeps (each
    /// item measured once, as it entered; nothing is walked): the overhead, the history, and
    /// the reminders only this request carries.
    /// Remembered as the estimate of the request for [`ContextEngine::record_response`].
    fn estimate_request(&self, prepared: Option<&PreparedRequest>, overhead: u64) -> u64 {
        self.compactor.set_prompt_overhead(overhead);
        let estimator = agentctx_context::ApproxTokenEstimator;
        let carried = prepared
            .into_iter()
            .flat_map(|prepared| prepared.prompt_only.iter().chain(&prepared.prompt_tail))
            .map(|item| agentctx_context::TokenEstimator::estimate_item(&estimator, item))
            .fold(0, u64::saturating_add);
        let estimate = overhead
            .saturating_add(self.history.estimate_token_count())
            .saturating_add(carried);
        self.last_estimate.store(estimate, Ordering::Relaxed);
        estimate
    }

    /// Decides on the request `prepared` (from [`ContextEngine::prepare_request`]; `None`: the
    /// history as it stands, as a replay decides where a recorded compaction stands) with
    /// `overhead` tokens of instructions and tool schemas around it
    /// ([`prompt_overhead_tokens`]): send it, compact first (it is at or over the blocking
    /// limit), or fail the turn (at the limit again right after a compaction, or compaction
    /// off). The decision is logged; [`ContextEngine::before_request`] also builds the prompt to
    /// send.
    pub fn decide_request(
        &mut self,
        prepared: Option<&PreparedRequest>,
        overhead: u64,
    ) -> Decision {
        let estimate = self.estimate_request(prepared, overhead);
        let prompt_tokens = estimate.max(self.context_usage().used_tokens());
        let limit = self.compactor.thresholds().blocking;
        let action = if prompt_tokens < limit {
            self.compacted_since_request = false;
            Action::Send
        } else if self.compacted_since_request || !self.compactor.enabled() {
            let window = self.compactor.window();
            Action::Fail(ContextFull {
                prompt_tokens,
                limit,
                window_tokens: window.window_tokens,
                reserved_output_tokens: window.reserved_output_tokens,
            })
        } else {
            Action::Compact {
                reason: CompactReason::Blocking,
            }
        };
        self.log(DecisionPoint::BeforeRequest, prompt_tokens, limit, action)
    }

    /// Before a model request: decides on `prepared` ([`ContextEngine::decide_request`]) and,
    /// when it may be sent, builds it with `parts` around it.
    pub fn before_request(
        &mut self,
        prepared: &PreparedRequest,
        parts: PromptParts,
    ) -> RequestStep<'_> {
        let overhead = prompt_overhead_tokens(&parts.instructions, &parts.tools);
        let decision = self.decide_request(Some(prepared), overhead);
        match decision.action {
            Action::Send | Action::Continue => RequestStep::Send {
                prompt: self.build_prompt(prepared, parts),
                tokens: decision.tokens,
            },
            Action::Compact { reason } => RequestStep::Compact(reason),
            Action::Fail(full) => RequestStep::Fail(full),
        }
    }

    /// Before a turn (before its user message is recorded): compact first when the history is
    /// over the auto-compact threshold. Starts the turn's overflow allowance anew.
    ///
    /// A new session's first turn (an empty history) has nothing to compact: the decision to go
    /// on is returned but not kept, as a replay of the session has none there either.
    pub fn before_turn(&mut self) -> Decision {
        self.overflow_compacted = false;
        let decision = self.threshold_decision(DecisionPoint::BeforeTurn, CompactReason::PreTurn);
        if !self.history.is_empty() {
            self.decisions.push(decision);
        }
        decision
    }

    /// After the tool outputs of a response were recorded: compact in the middle of the turn
    /// when the history is over the auto-compact threshold.
    pub fn after_tool_outputs(&mut self) -> Decision {
        let decision =
            self.threshold_decision(DecisionPoint::AfterToolOutputs, CompactReason::MidTurn);
        self.decisions.push(decision);
        decision
    }

    /// The auto-compact decision at `point` on the history as it is, not logged: compact with
    /// `reason` when over the threshold (a replay takes it where a live session would).
    pub fn threshold_decision(&self, point: DecisionPoint, reason: CompactReason) -> Decision {
        let used = self.context_usage().used_tokens();
        let thresholds = self.compactor.thresholds();
        let action = if self.compactor.over_auto_compact(used, self.history.len()) {
            Action::Compact { reason }
        } else {
            Action::Continue
        };
        Decision {
            point,
            request: self.requests_prepared,
            tokens: used,
            limit: thresholds.auto_compact,
            action,
            trigger: Some(if thresholds.budget_applies() {
                CompactTrigger::Budget
            } else {
                CompactTrigger::Window
            }),
            compaction: None,
        }
    }

    /// After a model request failed: a context overflow (the provider's word, or a stream that
    /// died before its first event on a prompt of at least [`OVERFLOW_SUSPECT_PERCENT`] of the
    /// effective window) is compacted and the request sent again, once a turn; any other
    /// failure, or a second overflow, is the host's to report ([`Action::Continue`]).
    pub fn after_failure(&mut self, failure: RequestFailure) -> Decision {
        let effective = self.compactor.window().effective_tokens();
        let suspect = failure.died_before_output
            && u128::from(failure.prompt_tokens) * 100
                >= u128::from(effective) * u128::from(OVERFLOW_SUSPECT_PERCENT);
        let overflow = self.compactor.enabled() && (failure.context_window_exceeded || suspect);
        let action = if overflow && !self.overflow_compacted {
            self.overflow_compacted = true;
            Action::Compact {
                reason: CompactReason::Overflow,
            }
        } else {
            Action::Continue
        };
        self.log(
            DecisionPoint::AfterFailure,
            failure.prompt_tokens,
            effective,
            action,
        )
    }

    /// Logs a decision and returns it.
    fn log(&mut self, point: DecisionPoint, tokens: u64, limit: u64, action: Action) -> Decision {
        let decision = Decision {
            point,
            request: self.requests_prepared,
            tokens,
            limit,
            action,
            trigger: None,
            compaction: None,
        };
        self.decisions.push(decision);
        decision
    }

    /// The decisions taken since the last call, in order (a compaction's figures are in the
    /// decision that asked for it once it ran).
    pub fn take_decisions(&mut self) -> Vec<Decision> {
        std::mem::take(&mut self.decisions)
    }

    /// Records the response of the request last checked: its `items`, and the `usage` the
    /// provider reported (an implausible report is replaced by our estimate). Returns the
    /// session's token info after it, for the host's `token_count` line.
    pub fn record_response(
        &mut self,
        items: &[ResponseItem],
        usage: Option<&TokenUsage>,
    ) -> Option<TokenUsageInfo> {
        self.record_items(items);
        self.record_usage(usage?)
    }

    /// Records the `usage` the provider reported for the last request prepared (a replay
    /// records a request's items one by one, then its usage). An implausible report is
    /// replaced by our estimate.
    pub fn record_usage(&mut self, usage: &TokenUsage) -> Option<TokenUsageInfo> {
        let history_len = self.request_history_len.min(self.history.len());
        let estimate = match self.last_estimate.load(Ordering::Relaxed) {
            0 => self.context_usage().used_tokens(),
            estimate => estimate,
        };
        self.compactor.record_request_usage(
            usage,
            history_len,
            estimate,
            self.history.raw_items(),
            self.history.item_sizes(),
        );
        self.history
            .update_token_info(usage, Some(self.context_window));
        self.history.token_info().cloned()
    }

    /// Records the outputs of `calls_run` tool calls.
    pub fn record_tool_outputs(&mut self, outputs: &[ResponseItem], calls_run: usize) {
        self.record_items(outputs);
        self.compactor.record_tool_calls(calls_run);
    }

    /// Compacts the history now and installs the result: waits (briefly) for a session-memory
    /// extraction in flight, tries the session-memory tier, else compacts in full through
    /// `model` (offline when there is none or it fails), restores what the session needs
    /// (todos, plan, skills, background tasks, recently read files) and makes the reminder
    /// stage start over with the restored files counted as read at request `clock`.
    pub async fn compact(
        &mut self,
        model: Option<&dyn ModelClient>,
        reason: CompactReason,
        initial_context: Vec<ResponseItem>,
        base_instructions: &str,
        host: &HostState,
        clock: i32,
    ) -> Compaction {
        let (plan, history) = self
            .plan_compaction(
                crate::offline_compaction::CompactionTiers::SessionMemoryThenFull,
                reason,
                &initial_context,
                host,
            )
            .await;
        let outcome = self
            .compactor
            .finish_compaction(plan, model, &history, initial_context, base_instructions)
            .await;
        self.install_compaction(outcome, reason, clock)
    }

    /// The first half of a compaction: waits (briefly) for a session-memory extraction in
    /// flight, then plans the restoration and tries the session-memory tier when `tiers` allows
    /// it. Returns the plan and the history it was made on.
    pub(crate) async fn plan_compaction(
        &mut self,
        tiers: crate::offline_compaction::CompactionTiers,
        reason: CompactReason,
        initial_context: &[ResponseItem],
        host: &HostState,
    ) -> (crate::compaction_policy::CompactionPlan, Vec<ResponseItem>) {
        let extraction: Vec<_> = self.background.drain(..).collect();
        self.compactor.wait_for_extraction(extraction).await;
        let snapshot = RestorationSnapshot::of(host);
        let history = self.history.raw_items().to_vec();
        // The token budget asked for it: the stages first (a decision of this engine's; a
        // compaction the host asked for itself, or another tier choice, compacts as asked).
        let staged = tiers == crate::offline_compaction::CompactionTiers::SessionMemoryThenFull
            && self
                .decisions
                .iter()
                .rev()
                .find(|decision| {
                    decision.compaction.is_none() && decision.compact_reason() == Some(reason)
                })
                .is_some_and(|decision| decision.trigger == Some(CompactTrigger::Budget));
        let plan = self.compactor.plan_compaction(
            &history,
            initial_context,
            reason.point(),
            snapshot,
            // The reminder stage's reset on install re-injects the critical instruction before
            // the next request; restoring it here too would show it twice.
            None,
            tiers,
            staged,
        );
        (plan, history)
    }

    /// Installs a compaction this engine ran (the one place that does): the new history, the
    /// initial context recorded in full on the next turn after one before a turn, the reminder
    /// stage started over with the restored files read at request `clock`, the decision that
    /// asked for it given its figures.
    pub(crate) fn install_compaction(
        &mut self,
        outcome: crate::compaction_policy::CompactionOutcome,
        reason: CompactReason,
        clock: i32,
    ) -> Compaction {
        let point = reason.point();
        self.history.replace(outcome.history.clone());
        self.recorded_context = (Vec::new(), point == CompactPoint::PreTurn);
        if point == CompactPoint::PreTurn {
            // The next turn records the initial context in full again.
            self.history.set_reference_context_item(None);
        }
        self.reminders
            .reset_after_compaction(&self.cwd, &outcome.restored_files, clock);
        self.compact_references = outcome.referenced_files.clone();
        self.plan_reference_due = true;
        self.last_estimate.store(0, Ordering::Relaxed);
        self.compacted_since_request = true;
        let compaction = outcome.into_compaction(point);
        self.record_compaction(reason, &compaction);
        compaction
    }

    /// Puts what `compaction` did into the decision that asked for it, or logs a decision of
    /// the host's own ([`DecisionPoint::HostRequest`]) when none did.
    fn record_compaction(&mut self, reason: CompactReason, compaction: &Compaction) {
        let figures = CompactionFigures {
            tier: compaction.tier,
            tokens_before: compaction.tokens_before,
            tokens_after: compaction.tokens_after,
            summary: compaction.summary_estimate,
        };
        let asked = self.decisions.iter_mut().rev().find(|decision| {
            decision.compaction.is_none() && decision.compact_reason() == Some(reason)
        });
        match asked {
            Some(decision) => decision.compaction = Some(figures),
            None => self.decisions.push(Decision {
                point: DecisionPoint::HostRequest,
                request: self.requests_prepared,
                tokens: compaction.tokens_before,
                limit: self.compactor.thresholds().auto_compact,
                action: Action::Compact { reason },
                trigger: None,
                compaction: Some(figures),
            }),
        }
    }

    /// At the end of a turn: starts the background session-memory extraction when its trigger
    /// fires (it runs on its own task; [`ContextEngine::compact`] waits for it briefly, and
    /// [`ContextEngine::wait_for_background`] fully).
    pub fn after_turn(&mut self, model: Arc<dyn ModelClient>, last_response_had_tool_calls: bool) {
        if let Some(handle) = self.compactor.after_turn(
            model,
            self.history.raw_items(),
            last_response_had_tool_calls,
        ) {
            self.background.push(handle);
        }
    }

    /// Waits for the background work finished turns started.
    pub async fn wait_for_background(&mut self) {
        for handle in self.background.drain(..) {
            if let Err(error) = handle.await {
                tracing::warn!(%error, "background session-memory extraction ended abnormally");
            }
        }
    }
}

/// Several observers told of the same reads and writes.
struct Observers(Vec<Arc<dyn FileObserver>>);

impl FileObserver for Observers {
    fn file_read(
        &self,
        path: &std::path::Path,
        content: &str,
        turn: i32,
        offset: Option<usize>,
        limit: Option<usize>,
    ) {
        for observer in &self.0 {
            observer.file_read(path, content, turn, offset, limit);
        }
    }

    fn file_written(&self, path: &std::path::Path, content: &str, turn: i32) {
        for observer in &self.0 {
            observer.file_written(path, content, turn);
        }
    }
}

/// Whether a recorded item is part of a turn's initial context: a developer message, or a user
/// message of contextual fragments (environment context, user instructions) that is not a
/// system reminder.
fn is_initial_context_item(item: &ResponseItem) -> bool {
    let ResponseItem::Message { role, content, .. } = item else {
        return false;
    };
    match role.as_str() {
        "developer" => true,
        "user" => {
            agentctx_protocol::is_contextual_user_message_content(content)
                && !agentctx_reminders::is_reminder_item(item)
        }
        _ => false,
    }
}
