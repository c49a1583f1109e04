//! Hooks, Claude Code compatible: the user's commands run on `PreToolUse`, `PostToolUse`,
//! `UserPromptSubmit`, `PreCompact`, `SessionStart`, `Stop` and `SubagentStop`, configured in
//! Claude Code's shape in `[hooks]` of `config.toml` and in a project's
//! `.claude/settings.json` / `.claude/settings.local.json`.
//!
//! Each hook runs through the crate's process helper ([`crate::process::run_with_input`]) with
//! the event's JSON on stdin, `CLAUDE_PROJECT_DIR` (and `AGENTCTX_PROJECT_DIR`) set to the
//! working directory, its timeout (default 60 s) and at most [`HOOK_OUTPUT_CAP`] bytes of each
//! output stream kept. What the hooks say reaches the model through the reminder crate's hook
//! generators: [`HooksExt`] is their `HookResponseProvider`. A hook that hangs, crashes, prints
//! megabytes or cannot start is reported (a `Warning` event and a log line) and the turn goes
//! on. See docs/design/hooks.md and Claude Code's hooks reference,
//! <https://docs.anthropic.com/en/docs/claude-code/hooks>.
//!
//! The session calls it in one line each: [`HooksExt::new`] and [`HooksExt::install`] (the
//! tool interceptor and the `PreCompact` hook) when it is built, [`HooksExt::session_start`]
//! and [`HooksExt::prompt_blocked`] at the start of a turn, [`HooksExt::with_provider`] on each
//! request's reminder context, [`HooksExt::take_stop_request`] after tool calls and
//! [`HooksExt::stop_blocked`] when the model ends its turn. Delete this file, `hooks/` and
//! those lines and the session runs without hooks.

#[path = "hooks/outcome.rs"]
mod outcome;
#[path = "hooks/settings.rs"]
mod settings;
#[path = "hooks/skill_hooks.rs"]
mod skill_hooks;

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_protocol::ResponseItem;
use agentctx_reminders::AsyncHookResponse;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::HookEventType;
use agentctx_reminders::HookOutcome;
use agentctx_reminders::HookResponse;
use agentctx_reminders::HookResponseProvider;
use agentctx_rollout::RolloutRecorder;
use agentctx_skills::SkillHooksConfig;
use async_trait::async_trait;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

pub(crate) use self::outcome::HookVerdict;
pub(crate) use self::outcome::interpret;
pub(crate) use self::settings::ConfiguredHook;
pub use self::settings::HookCommand;
pub(crate) use self::settings::HookEvent;
pub use self::settings::HookMatcher;
pub(crate) use self::settings::HookSet;
pub use self::settings::HooksConfig;
use self::skill_hooks::SkillHooks;
use crate::engine_ext::CompactPoint;
use crate::engine_ext::ContextEngine;
use crate::engine_ext::PreCompactHook;
use crate::event::SessionEvent;
use crate::tools::ToolCallInterceptor;
use crate::tools::ToolContext;
use crate::tools::ToolOutput;
use crate::tools::ToolRegistry;

/// Bytes of each output stream of a hook that are kept; the rest is read and dropped.
pub(crate) const HOOK_OUTPUT_CAP: usize = 64 * 1024;

/// The Claude Code name of our tool `name`, when it has one (the one table of them:
/// [`crate::tools::CLAUDE_CODE_TOOL_NAMES`]).
pub(crate) fn claude_tool_name(name: &str) -> Option<&'static str> {
    crate::tools::claude_code_name(name)
}

/// What the hooks of one event decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EventResult {
    /// A hook blocked the action, with this reason.
    pub block: Option<String>,
    /// A hook said `continue: false`, with this reason.
    pub stop: Option<String>,
}

/// Hook outcomes waiting for the reminder generators.
#[derive(Debug, Default)]
struct Inbox {
    outcomes: Mutex<Vec<HookOutcome>>,
    /// What `async` hooks said when they finished.
    async_responses: Mutex<Vec<AsyncHookResponse>>,
}

impl Inbox {
    fn push(&self, outcome: HookOutcome) {
        self.outcomes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(outcome);
    }

    fn push_async(&self, response: AsyncHookResponse) {
        self.async_responses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(response);
    }
}

impl HookResponseProvider for Inbox {
    fn take_hook_outcomes(&self) -> Vec<HookOutcome> {
        std::mem::take(&mut *self.outcomes.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn take_async_responses(&self) -> Vec<AsyncHookResponse> {
        std::mem::take(
            &mut *self
                .async_responses
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}

/// The async hooks started so far (their process ids).
static ASYNC_HOOKS_STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Runs the hooks of an event and routes what they say.
#[derive(Debug)]
struct HookRunner {
    set: HookSet,
    /// Hooks run at all (`[hooks] enabled`): a skill's hooks follow the same switch.
    enabled: bool,
    /// The hooks of the skills active now.
    skill_hooks: SkillHooks,
    cwd: PathBuf,
    session_id: String,
    transcript_path: PathBuf,
    inbox: Arc<Inbox>,
    events: UnboundedSender<SessionEvent>,
    stop_requested: Mutex<Option<String>>,
    /// The `async` hooks still running.
    background: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl HookRunner {
    /// No hook could run now: none configured and no active skill has any.
    fn is_idle(&self) -> bool {
        self.set.is_empty() && self.skill_hooks.is_empty()
    }

    /// The hooks of `event` matching `subjects`: the configured ones, then the active skills'
    /// (a command configured in both runs once; a `once` skill hook is marked as run).
    fn matching(&self, event: HookEvent, subjects: &[&str]) -> Vec<ConfiguredHook> {
        let mut hooks: Vec<ConfiguredHook> = self
            .set
            .matching(event, subjects)
            .into_iter()
            .cloned()
            .collect();
        if !self.enabled {
            return hooks;
        }
        for hook in self.skill_hooks.take_matching(event, subjects) {
            if !hooks
                .iter()
                .any(|seen| seen.command.command == hook.command.command)
            {
                hooks.push(hook);
            }
        }
        hooks
    }

    /// Runs every hook of `event` matching `subjects` in parallel with `fields` added to the
    /// common input, and routes each verdict: to the reminder inbox what the model should
    /// hear, to a `Warning` event what only the user should.
    async fn run(
        &self,
        event: HookEvent,
        subjects: &[&str],
        hook_name: &str,
        fields: Value,
    ) -> EventResult {
        let (background, hooks): (Vec<_>, Vec<_>) = self
            .matching(event, subjects)
            .into_iter()
            .partition(|hook| hook.command.run_async);
        if hooks.is_empty() && background.is_empty() {
            return EventResult::default();
        }
        let mut input = Map::new();
        input.insert("session_id".into(), json!(self.session_id));
        input.insert(
            "transcript_path".into(),
            json!(self.transcript_path.display().to_string()),
        );
        input.insert("cwd".into(), json!(self.cwd.display().to_string()));
        input.insert("hook_event_name".into(), json!(event.as_str()));
        if let Value::Object(fields) = fields {
            input.extend(fields);
        }
        let input = serde_json::to_vec(&Value::Object(input)).unwrap_or_default();
        let project = self.cwd.display().to_string();
        let env = vec![
            ("CLAUDE_PROJECT_DIR".to_string(), project.clone()),
            ("AGENTCTX_PROJECT_DIR".to_string(), project),
            ("AGENTCTX_SESSION_ID".to_string(), self.session_id.clone()),
        ];
        for hook in &background {
            self.spawn_async(event, hook_name, subjects, hook, &env, &input);
        }
        let runs = futures::future::join_all(hooks.iter().map(|hook| {
            crate::process::run_with_input(
                &hook.command.command,
                &self.cwd,
                &env,
                &input,
                hook.command.timeout(),
                HOOK_OUTPUT_CAP,
            )
        }))
        .await;
        let mut result = EventResult::default();
        for (hook, run) in hooks.iter().zip(&runs) {
            let command = hook.command.command.as_str();
            let verdict = interpret(event, command, run);
            self.route(event, hook_name, command, verdict, &mut result);
        }
        if let Some(reason) = &result.stop {
            let mut stop = self
                .stop_requested
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            stop.get_or_insert_with(|| reason.clone());
        }
        result
    }

    /// Starts an `async` hook in the background: nothing waits for it, and what it says for
    /// the model lands in the inbox's async responses when it ends.
    fn spawn_async(
        &self,
        event: HookEvent,
        hook_name: &str,
        subjects: &[&str],
        hook: &ConfiguredHook,
        env: &[(String, String)],
        input: &[u8],
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no tokio runtime: async hook skipped");
            return;
        };
        let number = ASYNC_HOOKS_STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let process_id = format!("async-hook-{number}");
        let command = hook.command.command.clone();
        let timeout = hook.command.timeout();
        let cwd = self.cwd.clone();
        let env = env.to_vec();
        let input = input.to_vec();
        let inbox = Arc::clone(&self.inbox);
        let hook_name = hook_name.to_string();
        let tool_name = matches!(event, HookEvent::PreToolUse | HookEvent::PostToolUse)
            .then(|| subjects.first().map(|subject| (*subject).to_string()))
            .flatten();
        let handle = runtime.spawn(async move {
            let run = crate::process::run_with_input(
                &command,
                &cwd,
                &env,
                &input,
                timeout,
                HOOK_OUTPUT_CAP,
            )
            .await;
            let verdict = interpret(event, &command, &run);
            let (stdout, stderr, exit_code) = match &run {
                Ok(run) => (
                    Some(run.stdout.clone()),
                    Some(run.stderr.clone()),
                    run.exit_code,
                ),
                Err(_) => (None, None, None),
            };
            inbox.push_async(AsyncHookResponse {
                process_id,
                hook_name,
                hook_event: HookEventType(event.as_str().to_string()),
                tool_name,
                response: HookResponse {
                    system_message: verdict.user_message,
                    additional_context: verdict.additional_context,
                },
                stdout,
                stderr,
                exit_code,
            });
        });
        let mut background = self
            .background
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        background.retain(|running| !running.is_finished());
        background.push(handle);
    }

    fn route(
        &self,
        event: HookEvent,
        hook_name: &str,
        command: &str,
        verdict: HookVerdict,
        result: &mut EventResult,
    ) {
        if let Some(message) = verdict.user_message {
            tracing::warn!(event = event.as_str(), command, %message, "hook");
            self.warn(message);
        }
        if let Some(reason) = verdict.block {
            match event {
                // The refused call's output carries the reason (see `before_call`).
                HookEvent::PreToolUse => {}
                HookEvent::PostToolUse | HookEvent::Stop | HookEvent::SubagentStop => {
                    self.inbox.push(HookOutcome::BlockingError {
                        hook_name: hook_name.to_string(),
                        command: command.to_string(),
                        blocking_error: reason.clone(),
                    });
                }
                // Claude Code shows these to the user only.
                HookEvent::UserPromptSubmit | HookEvent::PreCompact | HookEvent::SessionStart => {
                    self.warn(format!("{hook_name} hook blocked: {reason}"));
                }
            }
            result.block.get_or_insert(reason);
        }
        if let Some(message) = verdict.stop {
            self.inbox.push(HookOutcome::StoppedContinuation {
                hook_name: hook_name.to_string(),
                message: message.clone(),
            });
            result.stop.get_or_insert(message);
        }
        if let Some(context) = verdict.additional_context {
            self.inbox.push(HookOutcome::AdditionalContext {
                hook_name: hook_name.to_string(),
                content: vec![context],
            });
        }
        if let Some(content) = verdict.success_output {
            // The generator shows it for the events whose stdout goes to the model
            // (`SessionStart`, `UserPromptSubmit`); the others are for the user's log.
            tracing::info!(event = event.as_str(), command, %content, "hook output");
            self.inbox.push(HookOutcome::Success {
                hook_event: HookEventType(event.as_str().to_string()),
                hook_name: hook_name.to_string(),
                content,
            });
        }
    }

    fn warn(&self, message: String) {
        let _ = self.events.send(SessionEvent::Warning { message });
    }
}

/// The session's hooks.
#[derive(Debug)]
pub(crate) struct HooksExt {
    runner: Arc<HookRunner>,
    started: bool,
    stop_hook_active: bool,
}

impl HooksExt {
    /// The hooks of `config` and of the project under `cwd`, for the session `recorder` records
    /// (its id and transcript path go to every hook); warnings go out on `events`.
    pub(crate) fn new(
        config: &HooksConfig,
        cwd: &Path,
        recorder: &RolloutRecorder,
        events: &UnboundedSender<SessionEvent>,
    ) -> Self {
        Self {
            runner: Arc::new(HookRunner {
                set: HookSet::load(config, cwd),
                enabled: config.enabled,
                skill_hooks: SkillHooks::default(),
                cwd: cwd.to_path_buf(),
                session_id: recorder.session_id().to_string(),
                transcript_path: recorder.path().to_path_buf(),
                inbox: Arc::new(Inbox::default()),
                events: events.clone(),
                stop_requested: Mutex::new(None),
                background: Mutex::new(Vec::new()),
            }),
            started: false,
            stop_hook_active: false,
        }
    }

    /// Puts the tool hooks around `tools` and the `PreCompact` hooks into `engine`: whenever
    /// hooks are enabled, since a skill may bring its own while it runs.
    pub(crate) fn install(&self, tools: &mut ToolRegistry, engine: &mut ContextEngine) {
        if !self.runner.enabled {
            return;
        }
        tools.add_interceptor(Arc::new(ToolHooks(Arc::clone(&self.runner))));
        engine.add_pre_compact_hook(Arc::new(PreCompactHooks(Arc::clone(&self.runner))));
    }

    /// Adds the hooks of the skill `name` (its frontmatter `hooks:`) to the session's until
    /// [`HooksExt::deactivate_skill_hooks`] (`hooks/skill_hooks.rs`).
    pub(crate) fn activate_skill_hooks(&self, name: &str, config: &SkillHooksConfig) {
        self.runner.skill_hooks.activate(name, config);
    }

    /// Removes every active skill's hooks (their skills ended with the turn); a `once` hook
    /// that ran stays spent for the session.
    pub(crate) fn deactivate_skill_hooks(&self) {
        self.runner.skill_hooks.deactivate_all();
    }

    /// The handle through which the session's subagents run a forked skill's hooks.
    pub(crate) fn skill_hook_host(&self) -> SkillHookHost {
        SkillHookHost(Arc::clone(&self.runner))
    }

    /// `SubagentStop` when a subagent running a skill (`context: fork`) ends with
    /// `last_message`: the reason when a hook blocked the end, so the subagent goes on with it
    /// as its next instruction. `stop_hook_active` tells the hook it already did so once.
    pub(crate) async fn subagent_stop_blocked(
        &self,
        last_message: &str,
        stop_hook_active: bool,
    ) -> Option<String> {
        if self.take_stop_request() {
            return None;
        }
        let result = self
            .runner
            .run(
                HookEvent::SubagentStop,
                &[],
                HookEvent::SubagentStop.as_str(),
                json!({
                    "stop_hook_active": stop_hook_active,
                    "last_assistant_message": last_message,
                }),
            )
            .await;
        if result.stop.is_some() {
            return None;
        }
        result.block
    }

    /// `ctx` with the hook outcomes as its hook provider.
    pub(crate) fn with_provider(&self, mut ctx: GeneratorContext) -> GeneratorContext {
        ctx.providers.hooks = Arc::clone(&self.runner.inbox) as Arc<dyn HookResponseProvider>;
        ctx
    }

    /// `SessionStart`, once per session (`source`: `resume` when the history already holds
    /// `history_len` items, else `startup`).
    pub(crate) async fn session_start(&mut self, history_len: usize) {
        if std::mem::replace(&mut self.started, true) {
            return;
        }
        let source = if history_len > 0 { "resume" } else { "startup" };
        self.runner
            .run(
                HookEvent::SessionStart,
                &[source],
                HookEvent::SessionStart.as_str(),
                json!({ "source": source }),
            )
            .await;
    }

    /// Waits until every `async` hook started so far has ended (its response is then in the
    /// inbox for the next request).
    pub(crate) async fn wait_for_async_hooks(&self) {
        let running = std::mem::take(
            &mut *self
                .runner
                .background
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for handle in running {
            let _ = handle.await;
        }
    }

    /// `SessionStart` with source `compact`, after every compaction (Claude Code runs the
    /// `compact` matcher then; what the hooks print reaches the model as after a startup).
    pub(crate) async fn session_start_after_compaction(&self) {
        self.runner
            .run(
                HookEvent::SessionStart,
                &["compact"],
                HookEvent::SessionStart.as_str(),
                json!({ "source": "compact" }),
            )
            .await;
    }

    /// `UserPromptSubmit` for `prompt`: true when a hook blocked it (the turn does not run;
    /// the user was told why).
    pub(crate) async fn prompt_blocked(&mut self, prompt: &str) -> bool {
        self.stop_hook_active = false;
        let result = self
            .runner
            .run(
                HookEvent::UserPromptSubmit,
                &[],
                HookEvent::UserPromptSubmit.as_str(),
                json!({ "prompt": prompt }),
            )
            .await;
        result.block.is_some() || result.stop.is_some()
    }

    /// `Stop`, when the model ended its turn: true when a hook blocked the stop, so the turn
    /// goes on with the hook's reason in front of the model. `stop_hook_active` tells the
    /// hook it already did so once this turn.
    pub(crate) async fn stop_blocked(&mut self) -> bool {
        if self.take_stop_request() {
            return false;
        }
        let result = self
            .runner
            .run(
                HookEvent::Stop,
                &[],
                HookEvent::Stop.as_str(),
                json!({ "stop_hook_active": self.stop_hook_active }),
            )
            .await;
        let blocked = result.block.is_some() && result.stop.is_none();
        if blocked {
            self.stop_hook_active = true;
        }
        blocked
    }

    /// Whether a hook said `continue: false` since the last call (the turn then ends).
    pub(crate) fn take_stop_request(&self) -> bool {
        self.runner
            .stop_requested
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .is_some()
    }
}

/// The session's hooks as its subagents see them: a subagent running a skill (`context:
/// fork`) runs that skill's hooks ([`SkillHookHost::for_skill`]).
#[derive(Debug, Clone)]
pub(crate) struct SkillHookHost(Arc<HookRunner>);

impl SkillHookHost {
    /// A runner of the hooks of `skill` alone (its frontmatter `config`), for the subagent
    /// that runs it: scoped to that subagent, as Claude Code scopes a component's hooks to its
    /// lifecycle (<https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>), with the
    /// session's id, transcript, working directory, `[hooks] enabled` switch and warnings, and
    /// its record of the `once` hooks that ran. The skill's `Stop` hooks become `SubagentStop`
    /// hooks, as Claude Code converts a subagent's frontmatter `Stop` hooks
    /// (<https://code.claude.com/docs/en/sub-agents>, "Define hooks for subagents").
    pub(crate) fn for_skill(&self, skill: &str, config: &SkillHooksConfig) -> HooksExt {
        let session = &self.0;
        let mut config = config.clone();
        if let Some(mut stop) = config.remove(HookEvent::Stop.as_str()) {
            config
                .entry(HookEvent::SubagentStop.as_str().to_string())
                .or_default()
                .append(&mut stop);
        }
        let skill_hooks = session.skill_hooks.scoped();
        skill_hooks.activate(skill, &config);
        HooksExt {
            runner: Arc::new(HookRunner {
                set: HookSet::default(),
                enabled: session.enabled,
                skill_hooks,
                cwd: session.cwd.clone(),
                session_id: session.session_id.clone(),
                transcript_path: session.transcript_path.clone(),
                inbox: Arc::new(Inbox::default()),
                events: session.events.clone(),
                stop_requested: Mutex::new(None),
                background: Mutex::new(Vec::new()),
            }),
            // A subagent has no session start of its own.
            started: true,
            stop_hook_active: false,
        }
    }
}

/// `PreToolUse` and `PostToolUse` around every tool call, and `SubagentStop` after `task`.
struct ToolHooks(Arc<HookRunner>);

/// The tool's input as hooks see it: the call's arguments, with `file_path` for `path` as
/// Claude Code's file tools name it.
fn tool_input(arguments: &str) -> Value {
    let mut input: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut input
        && !map.contains_key("file_path")
        && let Some(path) = map.get("path").cloned()
    {
        map.insert("file_path".to_string(), path);
    }
    input
}

fn tool_fields(ctx: &ToolContext, name: &str, arguments: &str) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert(
        "tool_name".into(),
        json!(claude_tool_name(name).unwrap_or(name)),
    );
    fields.insert("agentctx_tool_name".into(), json!(name));
    fields.insert("tool_input".into(), tool_input(arguments));
    let mode = if ctx.state().plan.active {
        "plan"
    } else {
        "default"
    };
    fields.insert("permission_mode".into(), json!(mode));
    fields
}

#[async_trait]
impl ToolCallInterceptor for ToolHooks {
    async fn before_call(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: &str,
    ) -> Option<ToolOutput> {
        if self.0.is_idle() {
            return None;
        }
        let subjects: Vec<&str> = std::iter::once(name)
            .chain(claude_tool_name(name))
            .collect();
        let result = self
            .0
            .run(
                HookEvent::PreToolUse,
                &subjects,
                &format!("PreToolUse:{name}"),
                Value::Object(tool_fields(ctx, name, arguments)),
            )
            .await;
        result.block.map(|reason| {
            ToolOutput::error(format!(
                "Error: a PreToolUse hook blocked this call: {reason}"
            ))
        })
    }

    async fn after_call(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: &str,
        output: &ToolOutput,
    ) {
        if self.0.is_idle() {
            return;
        }
        let subjects: Vec<&str> = std::iter::once(name)
            .chain(claude_tool_name(name))
            .collect();
        let mut fields = tool_fields(ctx, name, arguments);
        fields.insert(
            "tool_response".into(),
            json!({ "output": output.text, "success": output.success }),
        );
        self.0
            .run(
                HookEvent::PostToolUse,
                &subjects,
                &format!("PostToolUse:{name}"),
                Value::Object(fields),
            )
            .await;
        if name == "task" {
            // The subagent's own loop has ended; a block here can only tell the model.
            self.0
                .run(
                    HookEvent::SubagentStop,
                    &[],
                    HookEvent::SubagentStop.as_str(),
                    json!({ "stop_hook_active": false }),
                )
                .await;
        }
    }
}

/// `PreCompact`: the compactor's hook is synchronous, so the hooks run in the background and
/// never hold the compaction up (Claude Code shows their output to the user only).
struct PreCompactHooks(Arc<HookRunner>);

impl PreCompactHook for PreCompactHooks {
    fn pre_compact(&self, _point: CompactPoint, _history: &[ResponseItem]) {
        if self.0.is_idle() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no tokio runtime: PreCompact hooks skipped");
            return;
        };
        let runner = Arc::clone(&self.0);
        runtime.spawn(async move {
            runner
                .run(
                    HookEvent::PreCompact,
                    &["auto"],
                    HookEvent::PreCompact.as_str(),
                    json!({ "trigger": "auto", "custom_instructions": "" }),
                )
                .await;
        });
    }
}
