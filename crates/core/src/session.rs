//! [`Session`] and its turn loop, "one turn, as data" (docs/design/core.md, "One turn").
//!
//! The loop owns the model stream, the rollout, the session state and the tools. What the model
//! sees is decided by the context engine (`agentctx-engine`: history, reminders, micro-,
//! session-memory- and full compaction, restoration, usage), called at the loop's seams through
//! `engine_ext`; the rest it reaches through the other extension files: `skills_ext` (the
//! `skill` tool), `hooks_ext`, `mcp_ext`, `memory_ext`, `reminder_feeds`, `model_switch`,
//! `slash_commands_ext` and `subagent/executor` (the `task` tool).
//!
//! The extension files never see the session: each is handed the fields it reads and answers
//! with data the session acts on. The session's own steps that touch many of its fields live in
//! `session/` (options, resume, compaction, `turn_context` lines, typed input, the session's side
//! of a model switch and of an active skill, the prompt history).

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;

use agentctx_context::ContextManager;
use agentctx_context::EnvironmentContext;
use agentctx_context::TurnSettings;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_rollout::RolloutRecorder;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

use crate::engine_ext;
use crate::engine_ext::Action;
use crate::engine_ext::ContextEngine;
use crate::engine_ext::PreparedRequest;
use crate::engine_ext::PromptParts;
use crate::error::CoreError;
use crate::event::SessionEvent;
use crate::mcp_ext;
use crate::mcp_ext::McpConnectionManager;
use crate::session_state::SessionState;
use crate::skills_ext;
use crate::subagent::SubagentRunner;
use crate::tools::ToolContext;
use crate::tools::ToolRegistry;
use crate::turn_stream::MAX_OUTPUT_CONTINUATIONS;
use crate::turn_stream::StreamedResponse;
use crate::turn_stream::continuation_message;
use crate::turn_stream::cut_call_output;
use crate::turn_stream::run_tool_calls;
use crate::turn_stream::split_cut_calls;
use crate::turn_stream::stream_response;

mod compaction;
mod input;
mod model_switch;
mod options;
mod prompt_history;
mod resume;
mod skills;
mod turn_record;

pub use compaction::COMPACTION_ACCURACY_WARNING;
pub use input::InputOutcome;
pub use options::DEFAULT_BASE_INSTRUCTIONS;
pub use options::DEFAULT_MAX_REQUESTS_PER_TURN;
pub use options::SessionOptions;

/// What a running turn keeps between its requests.
#[derive(Debug, Default)]
struct TurnRun {
    /// Model requests made.
    requests: u32,
    /// The last assistant message.
    last_message: Option<String>,
    /// Answers cut at the output limit the model was asked to go on from.
    continuations: u32,
    /// The turn was cancelled.
    aborted: bool,
}

/// A tool call to run: `(call_id, name, arguments)`, as the stream gives it.
type ToolCall = (String, String, String);

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnOutcome {
    /// The turn number.
    pub turn: i32,
    /// The last assistant message.
    pub last_message: Option<String>,
    /// Model requests made.
    pub requests: u32,
    /// The turn was cancelled.
    pub aborted: bool,
}

/// A running agent session.
pub struct Session {
    options: SessionOptions,
    session_id: String,
    /// What the model sees: history, reminders, compaction, usage (`agentctx-engine`).
    engine: ContextEngine,
    recorder: RolloutRecorder,
    state: Arc<Mutex<SessionState>>,
    tools: ToolRegistry,
    subagents: Arc<dyn SubagentRunner>,
    events: UnboundedSender<SessionEvent>,
    /// The tool specs the last `turn_context` line recorded.
    recorded_tools: Option<Vec<agentctx_model::ToolSpec>>,
    memory: crate::memory_ext::MemoryExt,
    hooks: crate::hooks_ext::HooksExt,
    /// What the session feeds the reminders beyond the engine (`reminder_feeds`).
    feeds: crate::reminder_feeds::ReminderFeeds,
    mcp: Option<Arc<McpConnectionManager>>,
    /// The language servers of `[lsp.<language>]` (`lsp_ext`), when any is configured.
    lsp: Option<crate::lsp_ext::LspExt>,
    /// What the host feeds from outside the session: IDE, team, memory (`host_inputs`).
    host_inputs: crate::HostInputs,
    /// The session's thinking toggle (priority step 3), set by [`Session::set_thinking_level`].
    thinking_toggle: agentctx_model::thinking::ThinkingState,
    /// The reasoning parameters of the running turn, sent on each of its requests.
    turn_reasoning: Option<agentctx_model::ReasoningOptions>,
    /// The slash commands and skills the user may type (`slash_commands_ext`).
    commands: crate::slash_commands_ext::SlashCommands,
    /// A model switch the next turn announces (`model_switch`).
    pending_switch: Option<crate::model_switch::PendingSwitch>,
    /// What the skills active in the running turn changed (`slash_commands_ext/skill_turn.rs`).
    active_skills: crate::slash_commands_ext::ActiveSkills,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("session_id", &self.session_id)
            .field("rollout", &self.recorder.path())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Starts a new session: creates its rollout under `<home>/sessions/` and returns the
    /// receiving end of its event channel.
    pub fn new(
        options: SessionOptions,
    ) -> Result<(Self, UnboundedReceiver<SessionEvent>), CoreError> {
        let meta = SessionMetaLine {
            id: options.session_id.clone().unwrap_or_default(),
            cli_version: Some(env!("CARGO_PKG_VERSION").to_string()),
            model_provider: Some(options.provider_name.clone()).filter(|name| !name.is_empty()),
            ..agentctx_engine::session_meta(&options.cwd, &options.base_instructions)
        };
        let recorder = RolloutRecorder::create(&options.home, meta)?;
        Ok(Self::with_recorder(
            options,
            recorder,
            ContextManager::new(),
        ))
    }

    fn with_recorder(
        options: SessionOptions,
        recorder: RolloutRecorder,
        history: ContextManager,
    ) -> (Self, UnboundedReceiver<SessionEvent>) {
        let (events, receiver) = unbounded_channel();
        let session_id = recorder.session_id().to_string();
        let engine_options = engine_ext::engine_options(
            options.model.as_ref(),
            &options.cwd,
            &options.home,
            &session_id,
            &options.reminders,
            &options.compact,
        );
        let mut engine = ContextEngine::with_history(engine_options, history);
        // Opaque compaction items another provider wrote go to this one as their readable copy.
        engine.set_client(options.model.as_ref());
        let mut tools = ToolRegistry::with_builtin_tools();
        let commands = crate::slash_commands_ext::SlashCommands::load(
            &options.home,
            &options.cwd,
            &options.skills,
            &session_id,
        );
        skills_ext::register_skill_tool(&mut tools, &commands);
        let mut state = SessionState {
            rollout_path: Some(recorder.path().to_path_buf()),
            ..SessionState::default()
        };
        if options.plan_mode {
            let _ = crate::tools::enter_plan_mode(&mut state, &options.plans_dir);
        }
        let memory = crate::memory_ext::MemoryExt::new(&options.memory, &options.home);
        let hooks =
            crate::hooks_ext::HooksExt::new(&options.hooks, &options.cwd, &recorder, &events);
        hooks.set_model(Arc::clone(&options.model));
        let subagents = options.subagents(Arc::clone(&options.model), &hooks);
        hooks.install(&mut tools, &mut engine);
        engine.set_tool_classes(tools.tool_classes());
        let feeds =
            crate::reminder_feeds::ReminderFeeds::new(&options.home, &options.cwd, &session_id);
        let lsp = crate::lsp_ext::LspExt::new(&options.lsp, &options.cwd);
        let session = Self {
            options,
            session_id,
            engine,
            recorder,
            state: Arc::new(Mutex::new(state)),
            tools,
            subagents,
            events,
            recorded_tools: None,
            memory,
            hooks,
            feeds,
            mcp: None,
            lsp,
            host_inputs: crate::HostInputs::default(),
            thinking_toggle: agentctx_model::thinking::ThinkingState::new(),
            turn_reasoning: None,
            commands,
            pending_switch: None,
            active_skills: Default::default(),
        };
        (session, receiver)
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The rollout file.
    pub fn rollout_path(&self) -> &std::path::Path {
        self.recorder.path()
    }

    /// The history as recorded (reminders in place, compactions applied).
    pub fn history(&self) -> &[ResponseItem] {
        self.engine.history()
    }

    /// The tokens every model request of this session reported, summed (resumed sessions start
    /// from zero). The loop driver subtracts two readings to get one turn's usage.
    pub fn total_token_usage(&self) -> agentctx_protocol::TokenUsage {
        self.engine
            .token_info()
            .map(|info| info.total_token_usage)
            .unwrap_or_default()
    }

    /// Sets the session's thinking toggle (priority step 3: below the environment and a keyword
    /// in the message, above the configured defaults) for the turns that follow; `None` clears it.
    pub fn set_thinking_level(&mut self, level: Option<agentctx_protocol::ThinkingLevel>) {
        self.thinking_toggle.set_level(level);
    }

    /// The tools; a fork adds its own before the first turn.
    pub fn tools_mut(&mut self) -> &mut ToolRegistry {
        &mut self.tools
    }

    /// The handle through which the host feeds the IDE's selection and open file, delegate
    /// mode, teammates' messages and a memory to the session's reminders.
    pub fn host_inputs(&self) -> crate::HostInputs {
        self.host_inputs.clone()
    }

    /// Shuts the session's language servers down cleanly (`shutdown`, then `exit`); a session
    /// dropped without it kills them.
    pub async fn shutdown_language_servers(&self) {
        if let Some(lsp) = &self.lsp {
            lsp.shutdown().await;
        }
    }

    /// Connects the session to started MCP servers: their tools join the registry and
    /// `@server:uri` mentions read their resources (`mcp_ext`).
    pub fn attach_mcp(&mut self, manager: Arc<McpConnectionManager>) {
        mcp_ext::register_tools(&manager, &mut self.tools);
        self.hooks.attach_mcp(Arc::clone(&manager));
        self.mcp = Some(manager);
    }

    /// The session's own state (todos, plan mode, background shells, …).
    pub fn state(&self) -> MutexGuard<'_, SessionState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The context engine (its reminder stage, window and thresholds, for hosts and tests).
    pub fn engine(&self) -> &ContextEngine {
        &self.engine
    }

    /// The context engine, to add a `PreCompact` hook.
    pub fn engine_mut(&mut self) -> &mut ContextEngine {
        &mut self.engine
    }

    /// Waits for the memory pipeline the first turn started, if one runs (tests, shutdown).
    pub async fn wait_for_memory_startup(&mut self) {
        self.memory.wait_for_startup().await;
    }

    /// How often the session's tool calls read each memory part so far (`memory_ext`).
    pub fn memory_usage(
        &self,
    ) -> std::collections::BTreeMap<crate::memory_ext::MemoryUsageKey, u64> {
        self.memory.usage()
    }

    /// The queue of prompts typed while a turn runs (line mode): each is shown to the model
    /// before its next request, as Claude Code shows queued commands (`reminder_feeds`).
    pub fn command_queue(&self) -> crate::reminder_feeds::CommandQueue {
        self.feeds.command_queue()
    }

    /// What the session's requests cost so far.
    pub fn spend(&self) -> &crate::reminder_feeds::SpendMeter {
        self.feeds.spend()
    }

    /// Ends the session: its `SessionEnd` hooks run with `reason` (the host calls it when the
    /// user leaves; nothing they say changes anything), then its language servers are shut
    /// down cleanly.
    pub async fn end(&mut self, reason: crate::hooks_ext::SessionEndReason) {
        self.hooks.session_end(reason).await;
        self.shutdown_language_servers().await;
    }

    /// `permission_mode` as hooks read it: `plan` in plan mode, else `default`.
    fn permission_mode(&self) -> &'static str {
        if self.state().plan.active {
            "plan"
        } else {
            "default"
        }
    }

    /// Waits until the `async` hooks started so far have ended, so what they said reaches the
    /// next request (a host about to send one, a test).
    pub async fn wait_for_async_hooks(&self) {
        self.hooks.wait_for_async_hooks().await;
    }

    /// Waits for background work started by finished turns (session-memory extraction).
    pub async fn wait_for_background(&mut self) {
        self.engine.wait_for_background().await;
    }

    fn emit(&self, event: SessionEvent) {
        let _ = self.events.send(event);
    }

    fn record(&mut self, items: &[ResponseItem]) -> Result<(), CoreError> {
        self.engine.record_items(items);
        self.recorder.record_response_items(items)?;
        Ok(())
    }

    fn turn_settings(&self) -> TurnSettings {
        TurnSettings {
            model: self.options.model.slug().to_string(),
            cwd: Some(self.options.cwd.display().to_string()),
            shell: self.options.shell.clone(),
            current_date: self.options.current_date.clone(),
            timezone: self.options.timezone.clone(),
            model_instructions: self.options.base_instructions.clone(),
            ..TurnSettings::default()
        }
    }

    /// The full initial context: AGENTS.md of the working directory, then the environment.
    fn initial_context(&self) -> Vec<ResponseItem> {
        let mut items = Vec::new();
        // A model switch leads the initial context as it leads a settings diff (codex's
        // `build_initial_context`): a turn after a compaction still tells the new model.
        items.extend(crate::model_switch::initial_context_item(
            self.pending_switch.as_ref(),
            &self.turn_settings(),
        ));
        items.extend(self.memory.developer_instructions());
        if let Ok(agents) = std::fs::read_to_string(self.options.cwd.join("AGENTS.md"))
            && !agents.trim().is_empty()
        {
            items.push(agentctx_protocol::agents_md_message(
                &self.options.cwd,
                agents.trim_end(),
            ));
        }
        let settings = self.turn_settings();
        items.push(
            EnvironmentContext {
                cwd: settings.cwd,
                shell: settings.shell,
                current_date: settings.current_date,
                timezone: settings.timezone,
            }
            .to_response_item(),
        );
        items
    }

    fn tool_context(&self, turn: i32, cancel: &CancellationToken) -> ToolContext {
        ToolContext {
            cwd: self.options.cwd.clone(),
            home: self.options.home.clone(),
            plans_dir: self.options.plans_dir.clone(),
            state: Arc::clone(&self.state),
            approval: self.options.approval,
            approver: self.hooks.approver(self.options.approver.clone()),
            observers: std::iter::once(self.engine.file_observer())
                .chain(self.lsp.as_ref().map(crate::lsp_ext::LspExt::observer))
                .collect(),
            events: Some(self.events.clone()),
            cancel: cancel.clone(),
            subagents: Some(Arc::clone(&self.subagents)),
            turn,
            call_approval: Arc::default(),
        }
    }

    /// Runs one turn for `input` until the model stops asking for tools, `cancel` fires or
    /// the request limit is reached.
    pub async fn run_turn(
        &mut self,
        input: &str,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome, CoreError> {
        let outcome = self.run_turn_steps(input, cancel).await;
        // The skills active in the turn end with it, however it ended.
        self.end_active_skills().await;
        if let Err(error) = &outcome {
            self.hooks.stop_failure(error).await;
        }
        outcome
    }

    /// One turn as a sequence of named steps; what the model sees, and when the history is
    /// compacted, is the engine's to decide at each of them (`engine_ext`, the
    /// `agentctx-engine` decisions).
    async fn run_turn_steps(
        &mut self,
        input: &str,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome, CoreError> {
        let turn = self.open_turn(input).await;
        if self
            .hooks
            .prompt_blocked(input, self.permission_mode())
            .await
        {
            return self.abort(turn, 0);
        }
        self.set_turn_thinking(input);
        self.compact_before_turn().await?;
        self.record_turn_start(turn, input)?;

        let mut run = TurnRun::default();
        loop {
            let clock = self.count_request(&mut run)?;
            let prepared = self.prepare_request(run.requests).await?;
            let Some(response) = self
                .send_request(&prepared, &mut run, clock, cancel)
                .await?
            else {
                if run.aborted {
                    return self.abort(turn, run.requests);
                }
                // Compacted (blocking limit, overflow): prepare the request again.
                continue;
            };
            let paused_after_compaction = self.record_response(&response)?;
            if let Some(text) = response.last_assistant_text() {
                run.last_message = Some(text);
            }
            let (calls, continue_truncated) = self.take_calls(&response, &mut run)?;
            if calls.is_empty() {
                if continue_truncated {
                    self.record(&[continuation_message()])?;
                    continue;
                }
                let last = run.last_message.clone().unwrap_or_default();
                if paused_after_compaction
                    || self.hooks.stop_blocked(&last, self.permission_mode()).await
                {
                    continue;
                }
                break;
            }
            if !self.run_tools(&calls, clock, cancel).await? {
                return self.abort(turn, run.requests);
            }
            if self.hooks.take_stop_request() {
                break;
            }
            if continue_truncated {
                self.record(&[continuation_message()])?;
            }
            self.compact_after_tool_outputs(clock).await?;
        }
        self.close_turn(turn, run)
    }

    /// The turn's number, its input in the prompt history, the memory pipeline started and the
    /// `SessionStart` hooks run.
    async fn open_turn(&mut self, input: &str) -> i32 {
        let turn = {
            let mut state = self.state();
            state.turn += 1;
            state.turn
        };
        self.emit(SessionEvent::TurnStarted { turn });
        prompt_history::append_history(
            &self.options.home,
            &self.options.history,
            &self.session_id,
            input,
        )
        .await;
        self.memory.start(&self.session_id, &self.options.model);
        let model = self.options.model.slug().to_string();
        self.hooks
            .session_start(self.engine.history().len(), &model)
            .await;
        turn
    }

    /// The thinking of the turn, from its message: sent on each of its requests (a
    /// compaction's summary request included) and recorded so a replay sends it too.
    fn set_turn_thinking(&mut self, input: &str) {
        let thinking = crate::thinking_ext::turn_thinking(
            &self.options.thinking,
            self.thinking_toggle,
            input,
            self.options.model.as_ref(),
        );
        tracing::debug!(level = ?thinking.result.level, source = ?thinking.result.source, "thinking of the turn");
        self.turn_reasoning = thinking.reasoning;
        self.engine.set_reasoning(self.turn_reasoning);
    }

    /// Compaction before the turn: with the previous model when a switch to a smaller window
    /// would not hold the history (`model_switch`), then when the engine says so.
    async fn compact_before_turn(&mut self) -> Result<(), CoreError> {
        self.compact_for_model_switch().await?;
        let decision = self.engine.before_turn();
        if let Some(reason) = decision.compact_reason() {
            let clock = self.state().requests;
            self.compact(reason, clock).await?;
        }
        self.emit_decisions();
        Ok(())
    }

    /// The full initial context (first turn, after a compaction) or the settings diff, the
    /// turn's settings line and the user's message, recorded.
    fn record_turn_start(&mut self, turn: i32, input: &str) -> Result<(), CoreError> {
        let settings = self.turn_settings();
        let initial = self.initial_context();
        let turn_id = format!("{}-{turn}", self.session_id);
        let start = self
            .engine
            .begin_turn(&settings, turn_id, || initial, input);
        self.recorder
            .record_response_items(&start.context_updates)?;
        // The switch is announced (settings diff or initial context): later turns need not.
        self.pending_switch = None;
        self.active_skills.running = Some(crate::slash_commands_ext::RunningTurn {
            context: start.turn_context.clone(),
            message: input.to_string(),
        });
        self.record_turn_context(start.turn_context)?;
        self.recorder
            .record_response_items(std::slice::from_ref(&start.user_message))?;
        Ok(())
    }

    /// Counts the next request of the turn (at most `max_requests_per_turn`); returns the
    /// session's request clock.
    fn count_request(&mut self, run: &mut TurnRun) -> Result<i32, CoreError> {
        if run.requests >= self.options.max_requests_per_turn {
            self.recorder.flush()?;
            return Err(CoreError::TooManyRequests(run.requests));
        }
        run.requests += 1;
        let mut state = self.state();
        state.requests += 1;
        Ok(state.requests)
    }

    /// Reminders before the request (the user's message only on the turn's first), then
    /// micro-compaction of old tool results when it saves enough; the reminders recorded.
    async fn prepare_request(&mut self, request: u32) -> Result<PreparedRequest, CoreError> {
        let reminder_ctx = {
            let host = engine_ext::host_state(&self.state());
            self.engine.reminder_context(&host, request == 1)
        };
        let mut reminder_ctx = self.hooks.with_provider(reminder_ctx);
        {
            let state = self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            self.feeds
                .apply(&mut reminder_ctx, &state, self.options.reminders.budget_usd);
        }
        if let Some(mcp) = &self.mcp {
            mcp_ext::withdraw_failed(mcp, &mut self.tools, &self.events);
            reminder_ctx.providers.mcp = Arc::new(mcp_ext::McpResources(Arc::clone(mcp)));
        }
        if let Some(lsp) = &self.lsp {
            lsp.before_request(&mut reminder_ctx).await;
        }
        self.host_inputs.apply(&mut reminder_ctx);
        let prepared = self.engine.prepare_request(reminder_ctx).await;
        self.recorder.record_response_items(&prepared.recorded)?;
        self.state().plan.just_exited = false;
        if let Some(micro) = &prepared.micro {
            self.emit(SessionEvent::Loop(micro.event.clone()));
        }
        Ok(prepared)
    }

    /// Asks the engine about the request and does what it says: sends it (the response, or
    /// `None` with `run.aborted` when the turn was cancelled), compacts first (`None`: prepare
    /// it again), or fails the turn when nothing fits. A request the provider refuses as too
    /// long is compacted and sent again when the engine says so (once a turn).
    async fn send_request(
        &mut self,
        prepared: &PreparedRequest,
        run: &mut TurnRun,
        clock: i32,
        cancel: &CancellationToken,
    ) -> Result<Option<StreamedResponse>, CoreError> {
        let parts = PromptParts {
            instructions: self.options.base_instructions.clone(),
            tools: self.tools.specs(),
            reasoning: self.turn_reasoning,
            session_id: Some(self.session_id.clone()),
        };
        let overhead = engine_ext::prompt_overhead_tokens(&parts.instructions, &parts.tools);
        let decision = self.engine.decide_request(Some(prepared), overhead);
        match decision.action {
            // A compaction's decision is reported with what it did (`compact_with`).
            Action::Send | Action::Continue => self.emit_decisions(),
            Action::Compact { reason } => {
                tracing::info!(
                    prompt_tokens = decision.tokens,
                    blocking = decision.limit,
                    "request at the blocking limit; compacting before it is sent"
                );
                self.compact(reason, clock).await?;
                return Ok(None);
            }
            Action::Fail(full) => {
                self.emit_decisions();
                self.recorder.flush()?;
                return Err(CoreError::ContextWindowFull {
                    prompt_tokens: full.prompt_tokens,
                    limit: full.limit,
                    window_tokens: full.window_tokens,
                    reserved_output_tokens: full.reserved_output_tokens,
                });
            }
        }
        self.emit(SessionEvent::RequestStarted {
            request: run.requests,
            reminders: prepared.reminders(),
        });
        // The prompt view, borrowed from the history: no copy of it per request (see
        // docs/design/performance.md, "Per-turn pipeline").
        let prompt = self.engine.build_prompt(prepared, parts);
        let model = Arc::clone(&self.options.model);
        let failure =
            match stream_response(model.as_ref(), &prompt, Some(&self.events), cancel).await {
                Ok(Some(response)) => return Ok(Some(response)),
                Ok(None) => {
                    run.aborted = true;
                    return Ok(None);
                }
                Err(failure) => failure,
            };
        drop(prompt);
        let overflow = self
            .engine
            .after_failure(failure.request_failure(decision.tokens));
        match overflow.compact_reason() {
            Some(reason) => {
                // The provider says the prompt is too long, or a stream died before its first
                // event on a prompt that filled the window: compact and send again.
                tracing::info!(error = %failure.error, prompt_tokens = decision.tokens, "request overflowed the context window; compacting and sending again");
                self.compact(reason, clock).await?;
                Ok(None)
            }
            None => {
                self.emit_decisions();
                self.recorder.flush()?;
                Err(failure.error.into())
            }
        }
    }

    /// Records the response (a compaction item the provider streamed with its readable copy)
    /// and its usage; returns whether the provider paused the answer right after compacting
    /// (it is asked for again: the compaction item is now in the history).
    fn record_response(&mut self, response: &StreamedResponse) -> Result<bool, CoreError> {
        let annotated = match self.engine.with_readable_copies(&response.items) {
            std::borrow::Cow::Owned(items) => Some(items),
            std::borrow::Cow::Borrowed(_) => None,
        };
        let recorded = annotated.as_deref().unwrap_or(&response.items);
        self.recorder.record_response_items(recorded)?;
        self.feeds
            .record_usage(self.options.model.slug(), response.usage.as_ref());
        if let Some(info) = self
            .engine
            .record_response(recorded, response.usage.as_ref())
        {
            self.record_token_count(info)?;
            let (used_tokens, effective_window, percent_left) = self.engine.usage_figures();
            self.emit(SessionEvent::TokenUsage {
                used_tokens,
                effective_window,
                percent_left,
            });
        }
        // The provider's own context management: the tokens of its compaction step are counted
        // in the session's usage.
        let Some(report) = &response.provider_context else {
            return Ok(false);
        };
        if let Some(info) = self.engine.record_provider_context(report) {
            self.record_token_count(info)?;
        }
        Ok(report.paused_after_compaction)
    }

    fn record_token_count(
        &mut self,
        info: agentctx_protocol::TokenUsageInfo,
    ) -> Result<(), CoreError> {
        self.recorder
            .record_items(&[RolloutItem::token_count(info)])?;
        Ok(())
    }

    /// The tool calls to run, and whether to ask the model to go on: an answer cut at the
    /// output limit keeps its text, a cut tool call is answered with "not run", and the model
    /// is asked to go on (at most MAX_OUTPUT_CONTINUATIONS times a turn).
    fn take_calls(
        &mut self,
        response: &StreamedResponse,
        run: &mut TurnRun,
    ) -> Result<(Vec<ToolCall>, bool), CoreError> {
        let (calls, cut_calls) =
            split_cut_calls(response.function_calls(), response.truncated.is_some());
        let Some(reason) = &response.truncated else {
            return Ok((calls, false));
        };
        let continuing = run.continuations < MAX_OUTPUT_CONTINUATIONS;
        if continuing {
            run.continuations += 1;
        }
        self.emit(SessionEvent::OutputTruncated {
            reason: reason.clone(),
            cut_tool_calls: cut_calls.len(),
            continuing,
            continuation: run.continuations,
            max_continuations: MAX_OUTPUT_CONTINUATIONS,
        });
        let cut_outputs: Vec<ResponseItem> = cut_calls
            .iter()
            .map(|(call_id, _, _)| cut_call_output(call_id))
            .collect();
        self.record(&cut_outputs)?;
        Ok((calls, continuing))
    }

    /// Runs the tool calls and records their outputs; `false` when the turn was cancelled.
    async fn run_tools(
        &mut self,
        calls: &[(String, String, String)],
        clock: i32,
        cancel: &CancellationToken,
    ) -> Result<bool, CoreError> {
        let ctx = self.tool_context(clock, cancel);
        let results = tokio::select! {
            results = run_tool_calls(&self.tools, &ctx, calls) => results,
            () = cancel.cancelled() => return Ok(false),
        };
        let (outputs, runs): (Vec<ResponseItem>, Vec<_>) = results.into_iter().unzip();
        self.memory.record_tool_calls(calls, &runs);
        self.engine.record_tool_outputs(&outputs, runs.len());
        self.recorder.record_response_items(&outputs)?;
        self.state().last_tool_results = runs;
        let mode = self.permission_mode();
        self.hooks.tool_batch_blocked(calls, &outputs, mode).await;
        // Skills the model invoked hold from the next request on (`skill_turn.rs`).
        self.activate_invoked_skills().await;
        Ok(!cancel.is_cancelled())
    }

    /// After tool outputs: a mid-turn compaction when the engine says so; the same turn goes
    /// on with the compacted history.
    async fn compact_after_tool_outputs(&mut self, clock: i32) -> Result<(), CoreError> {
        let decision = self.engine.after_tool_outputs();
        if let Some(reason) = decision.compact_reason() {
            self.compact(reason, clock).await?;
        }
        self.emit_decisions();
        Ok(())
    }

    /// The end of a turn: the background session-memory extraction when its trigger fires.
    fn close_turn(&mut self, turn: i32, run: TurnRun) -> Result<TurnOutcome, CoreError> {
        self.engine
            .after_turn(Arc::clone(&self.options.model), false);
        self.recorder.flush()?;
        self.emit(SessionEvent::TurnCompleted {
            turn,
            last_message: run.last_message.clone(),
        });
        Ok(TurnOutcome {
            turn,
            last_message: run.last_message,
            requests: run.requests,
            aborted: false,
        })
    }

    fn abort(&mut self, turn: i32, requests: u32) -> Result<TurnOutcome, CoreError> {
        self.recorder
            .record_items(&[RolloutItem::EventMsg(EventMsg::TurnAborted(
                Default::default(),
            ))])?;
        self.recorder.flush()?;
        self.emit(SessionEvent::TurnAborted { turn });
        Ok(TurnOutcome {
            turn,
            last_message: None,
            requests,
            aborted: true,
        })
    }
}
