//! Runs the hooks of one event: the configured ones and the active skills' that match, in
//! parallel, each through its handler (`handlers.rs`), and routes what they say: to the
//! reminder inbox what the model should hear, to a `Warning` event what only the user should.
//! See docs/design/hooks.md, "Running a hook" and "Outcomes".

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_model::ModelClient;
use agentctx_reminders::AsyncHookResponse;
use agentctx_reminders::HookEventType;
use agentctx_reminders::HookOutcome;
use agentctx_reminders::HookResponse;
use agentctx_reminders::HookResponseProvider;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

use super::handlers::HandlerContext;
use super::handlers::run_handler;
use super::outcome::HookVerdict;
use super::outcome::PermissionDecision;
use super::permission_updates::SessionPermissions;
use super::settings::ConfiguredHook;
use super::settings::HookEvent;
use super::settings::HookSet;
use super::skill_hooks::SkillHooks;
use crate::event::SessionEvent;
use crate::mcp_ext::McpConnectionManager;

/// What the hooks of one event decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EventResult {
    /// A hook blocked the action, with this reason.
    pub block: Option<String>,
    /// A hook said `continue: false`, with this reason.
    pub stop: Option<String>,
    /// A `PermissionRequest` hook allowed the call.
    pub allow: bool,
    /// What the hooks gave as `additionalContext` (or, where the event reads it, plain
    /// stdout), for the event to place itself (`SubagentStart`: the subagent's context).
    pub context: Vec<String>,
    /// `PreToolUse`: the permission decision that wins by the reference's precedence (`deny` >
    /// `defer` > `ask` > `allow`), with the reason its first hook gave.
    pub permission: Option<(PermissionDecision, Option<String>)>,
    /// The first `updatedInput` (`PreToolUse`; `PermissionRequest` with `allow`).
    pub updated_input: Option<Value>,
    /// Every `updatedPermissions` entry of the `PermissionRequest` hooks that allowed.
    pub updated_permissions: Vec<Value>,
    /// A `PermissionRequest` hook denied with `interrupt: true`.
    pub interrupt: bool,
    /// The first `updatedToolOutput` of the `PostToolUse` hooks.
    pub updated_tool_output: Option<Value>,
    /// The first `updatedMCPToolOutput` of the `PostToolUse` hooks.
    pub updated_mcp_tool_output: Option<Value>,
}

/// Hook outcomes waiting for the reminder generators.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    outcomes: Mutex<Vec<HookOutcome>>,
    /// What `async` hooks said when they finished.
    async_responses: Mutex<Vec<AsyncHookResponse>>,
}

impl Inbox {
    pub(crate) fn push(&self, outcome: HookOutcome) {
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

/// What the `prompt` and `mcp_tool` hooks run on, set once the session has them.
#[derive(Default)]
pub(crate) struct Backends {
    /// The session's model (`prompt` hooks).
    pub model: Option<Arc<dyn ModelClient>>,
    /// The session's MCP servers (`mcp_tool` hooks).
    pub mcp: Option<Arc<McpConnectionManager>>,
}

impl std::fmt::Debug for Backends {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backends")
            .field(
                "model",
                &self.model.as_ref().map(|model| model.slug().to_string()),
            )
            .field("mcp", &self.mcp.is_some())
            .finish()
    }
}

/// Runs the hooks of an event and routes what they say.
#[derive(Debug)]
pub(crate) struct HookRunner {
    pub(crate) set: HookSet,
    /// Hooks run at all (`[hooks] enabled`): a skill's hooks follow the same switch.
    pub(crate) enabled: bool,
    /// The hooks of the skills active now.
    pub(crate) skill_hooks: SkillHooks,
    pub(crate) cwd: PathBuf,
    pub(crate) session_id: String,
    pub(crate) transcript_path: PathBuf,
    pub(crate) inbox: Arc<Inbox>,
    pub(crate) events: UnboundedSender<SessionEvent>,
    pub(crate) stop_requested: Mutex<Option<String>>,
    /// The `async` hooks still running.
    pub(crate) background: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// The model and MCP servers of `prompt` and `mcp_tool` hooks.
    pub(crate) backends: Arc<Mutex<Backends>>,
    /// The rules and mode `PermissionRequest` hooks set for the session
    /// (`permission_updates.rs`), shared with its subagents' runners.
    pub(crate) permissions: Arc<Mutex<SessionPermissions>>,
    /// `agent_id` and `agent_type` added to every input (a subagent's own hooks).
    pub(crate) agent: Option<(String, String)>,
}

impl HookRunner {
    /// No hook could run now: none configured and no active skill has any.
    pub(crate) fn is_idle(&self) -> bool {
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
                .any(|seen| seen.command.label() == hook.command.label())
            {
                hooks.push(hook);
            }
        }
        hooks
    }

    /// The input of `event`: the common fields, then `fields`.
    pub(crate) fn input(&self, event: HookEvent, fields: Value) -> Value {
        let mut input = Map::new();
        input.insert("session_id".into(), json!(self.session_id));
        input.insert(
            "transcript_path".into(),
            json!(self.transcript_path.display().to_string()),
        );
        input.insert("cwd".into(), json!(self.cwd.display().to_string()));
        input.insert("hook_event_name".into(), json!(event.as_str()));
        if let Some((id, kind)) = &self.agent {
            input.insert("agent_id".into(), json!(id));
            input.insert("agent_type".into(), json!(kind));
        }
        if let Value::Object(fields) = fields {
            input.extend(fields);
        }
        Value::Object(input)
    }

    fn handler_context(&self) -> HandlerContext {
        let backends = self.backends.lock().unwrap_or_else(PoisonError::into_inner);
        let project = self.cwd.display().to_string();
        HandlerContext {
            cwd: self.cwd.clone(),
            env: vec![
                ("CLAUDE_PROJECT_DIR".to_string(), project.clone()),
                ("AGENTCTX_PROJECT_DIR".to_string(), project),
                ("AGENTCTX_SESSION_ID".to_string(), self.session_id.clone()),
            ],
            model: backends.model.clone(),
            mcp: backends.mcp.clone(),
        }
    }

    /// [`HookRunner::run`] for an event without a matcher subject, named after itself in logs.
    pub(crate) async fn run_event(&self, event: HookEvent, fields: Value) -> EventResult {
        self.run(event, &[], event.as_str(), fields).await
    }

    /// Runs every hook of `event` matching `subjects` in parallel with `fields` added to the
    /// common input, and routes each verdict.
    pub(crate) async fn run(
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
        let input = self.input(event, fields);
        let ctx = self.handler_context();
        for hook in &background {
            self.spawn_async(event, hook_name, subjects, hook, &ctx, &input);
        }
        let verdicts = futures::future::join_all(
            hooks
                .iter()
                .map(|hook| run_handler(&hook.command, event, &ctx, &input)),
        )
        .await;
        let mut result = EventResult::default();
        for (hook, verdict) in hooks.iter().zip(verdicts) {
            let label = hook.command.label();
            self.route(event, hook_name, &label, verdict, &mut result);
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
        ctx: &HandlerContext,
        input: &Value,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no tokio runtime: async hook skipped");
            return;
        };
        let number = ASYNC_HOOKS_STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let process_id = format!("async-hook-{number}");
        let command = hook.command.clone();
        let ctx = ctx.clone();
        let input = input.clone();
        let inbox = Arc::clone(&self.inbox);
        let hook_name = hook_name.to_string();
        let tool_name = matches!(
            event,
            HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PostToolUseFailure
        )
        .then(|| subjects.first().map(|subject| (*subject).to_string()))
        .flatten();
        let handle = runtime.spawn(async move {
            let (verdict, run) =
                super::handlers::run_handler_captured(&command, event, &ctx, &input).await;
            let (stdout, stderr, exit_code) = match run {
                Some(run) => (Some(run.stdout), Some(run.stderr), run.exit_code),
                None => (None, None, None),
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

    /// Routes one verdict by the reference's per-event rules ("Exit code 2 behavior per
    /// event", "Decision control").
    fn route(
        &self,
        event: HookEvent,
        hook_name: &str,
        command: &str,
        mut verdict: HookVerdict,
        result: &mut EventResult,
    ) {
        // Output and exit code are ignored for these.
        if matches!(
            event,
            HookEvent::StopFailure | HookEvent::InstructionsLoaded
        ) {
            if let Some(message) = verdict.user_message {
                tracing::warn!(event = event.as_str(), command, %message, "hook");
            }
            return;
        }
        if let Some(message) = verdict.user_message {
            tracing::warn!(event = event.as_str(), command, %message, "hook");
            self.warn(message);
        }
        result.allow |= verdict.allow;
        result.interrupt |= verdict.interrupt;
        if let Some(decision) = verdict.permission
            && result
                .permission
                .as_ref()
                .is_none_or(|(won, _)| decision > *won)
        {
            result.permission = Some((decision, verdict.permission_reason.take()));
        }
        // A `deny` or `defer` ignores its own `updatedInput`.
        if result.updated_input.is_none()
            && !matches!(
                verdict.permission,
                Some(PermissionDecision::Deny | PermissionDecision::Defer)
            )
        {
            result.updated_input = verdict.updated_input.take();
        }
        result
            .updated_permissions
            .append(&mut verdict.updated_permissions);
        if result.updated_tool_output.is_none() {
            result.updated_tool_output = verdict.updated_tool_output.take();
        }
        if result.updated_mcp_tool_output.is_none() {
            result.updated_mcp_tool_output = verdict.updated_mcp_tool_output.take();
        }
        if let Some(reason) = verdict.block {
            match event {
                // The refused call's output carries the reason (see `tool_hooks.rs`), as do a
                // denied permission and a refused todo item.
                HookEvent::PreToolUse
                | HookEvent::PermissionRequest
                | HookEvent::TaskCreated
                | HookEvent::TaskCompleted => {}
                // The reason reaches the model.
                HookEvent::PostToolUse
                | HookEvent::PostToolUseFailure
                | HookEvent::PostToolBatch
                | HookEvent::Stop => {
                    self.inbox.push(HookOutcome::BlockingError {
                        hook_name: hook_name.to_string(),
                        command: command.to_string(),
                        blocking_error: reason.clone(),
                    });
                }
                // The subagent's own runner puts the reason in front of it.
                HookEvent::SubagentStop => {}
                // Claude Code shows these to the user only.
                HookEvent::UserPromptSubmit
                | HookEvent::UserPromptExpansion
                | HookEvent::PreCompact => {
                    self.warn(format!("{hook_name} hook blocked: {reason}"));
                }
                // Exit 2 here cannot block: its stderr is shown to the user only.
                HookEvent::SessionStart
                | HookEvent::Notification
                | HookEvent::SubagentStart
                | HookEvent::PostCompact
                | HookEvent::SessionEnd
                | HookEvent::StopFailure
                | HookEvent::InstructionsLoaded => {
                    self.warn(format!("{hook_name} hook: {reason}"));
                }
            }
            if can_block(event) {
                result.block.get_or_insert(reason);
            }
        }
        if let Some(message) = verdict.stop {
            self.inbox.push(HookOutcome::StoppedContinuation {
                hook_name: hook_name.to_string(),
                message: message.clone(),
            });
            result.stop.get_or_insert(message);
        }
        if let Some(context) = verdict.additional_context {
            if event == HookEvent::SubagentStart {
                result.context.push(context);
            } else {
                self.inbox.push(HookOutcome::AdditionalContext {
                    hook_name: hook_name.to_string(),
                    content: vec![context],
                });
            }
        }
        if let Some(content) = verdict.success_output {
            if event == HookEvent::SubagentStart {
                // "Plain stdout is treated as context" for the subagent.
                result.context.push(content);
                return;
            }
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

    /// The session's permission rules and mode.
    pub(crate) fn permissions(&self) -> std::sync::MutexGuard<'_, SessionPermissions> {
        self.permissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The turn stops after the running tool calls, as after `continue: false` (a
    /// `PermissionRequest` hook's `interrupt`).
    pub(crate) fn request_stop(&self, reason: String) {
        self.stop_requested
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(reason);
    }

    pub(crate) fn warn(&self, message: String) {
        let _ = self.events.send(SessionEvent::Warning { message });
    }
}

/// Whether a block on `event` stops what it is about (the reference's "Can block?").
pub(crate) fn can_block(event: HookEvent) -> bool {
    matches!(
        event,
        HookEvent::PreToolUse
            | HookEvent::PermissionRequest
            | HookEvent::UserPromptSubmit
            | HookEvent::UserPromptExpansion
            | HookEvent::Stop
            | HookEvent::SubagentStop
            | HookEvent::TaskCreated
            | HookEvent::TaskCompleted
            | HookEvent::PostToolBatch
            | HookEvent::PreCompact
    )
}
