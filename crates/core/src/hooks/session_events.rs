//! The session-level events, one call each where the session has their counterpart
//! (docs/design/hooks.md, "Events"):
//!
//! - `session.rs`: [`HooksExt::session_start`] (and `InstructionsLoaded` for `AGENTS.md`) when
//!   a turn opens, [`HooksExt::prompt_blocked`] before the user's message,
//!   [`HooksExt::stop_blocked`] when the model ends its turn, [`HooksExt::stop_failure`] when
//!   a turn ends on a model error, [`HooksExt::tool_batch_blocked`] after a response's tool
//!   calls, [`HooksExt::session_end`] from [`crate::Session::end`];
//! - `session/compaction.rs`: [`HooksExt::pre_compact_blocked`] and
//!   [`HooksExt::post_compact`] around each compaction, then
//!   [`HooksExt::session_start_after_compaction`];
//! - `session/input.rs`: [`HooksExt::expansion_blocked`] when a typed skill expands;
//! - `subagent/executor.rs`: [`HooksExt::subagent_start`] and
//!   [`HooksExt::subagent_stop_blocked`].

use agentctx_model::ModelError;
use agentctx_protocol::ResponseItem;
use serde_json::Value;
use serde_json::json;

use super::settings::HookEvent;
use crate::engine_ext::CompactReason;
use crate::error::CoreError;
use crate::hooks_ext::HooksExt;
use crate::hooks_ext::claude_tool_name;

/// Why the session ended (`SessionEnd`'s `reason`, its matcher).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionEndReason {
    /// The user cleared the conversation (`/clear`).
    Clear,
    /// The user switched to another session.
    Resume,
    /// The user logged out.
    Logout,
    /// The user left while the prompt was shown (end of input, `/exit`).
    PromptInputExit,
    /// Any other end.
    Other,
}

impl SessionEndReason {
    /// The reference's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Clear => "clear",
            Self::Resume => "resume",
            Self::Logout => "logout",
            Self::PromptInputExit => "prompt_input_exit",
            Self::Other => "other",
        }
    }
}

/// `StopFailure`'s `error`: the reference's error type of a model error.
pub(crate) fn error_type(error: &ModelError) -> &'static str {
    match error {
        ModelError::RateLimited { .. } => "rate_limit",
        ModelError::Auth { .. } | ModelError::MissingApiKey { .. } => "authentication_failed",
        ModelError::QuotaExceeded { .. } => "billing_error",
        ModelError::BadRequest { .. } | ModelError::ContextWindowExceeded { .. } => {
            "invalid_request"
        }
        ModelError::Server { .. } => "server_error",
        ModelError::Incomplete { .. } => "max_output_tokens",
        _ => "unknown",
    }
}

/// The text a tool call's output item carries (`PostToolBatch`'s `tool_response`).
fn output_text(item: &ResponseItem) -> Option<(&str, String)> {
    match item {
        ResponseItem::FunctionCallOutput {
            call_id, output, ..
        } => Some((call_id.as_str(), output.text_content())),
        _ => None,
    }
}

impl HooksExt {
    /// `SessionStart`, once per session (`source`: `resume` when the history already holds
    /// `history_len` items, else `startup`), then `InstructionsLoaded` for the `AGENTS.md`
    /// the initial context reads (`load_reason` `session_start`).
    pub(crate) async fn session_start(&mut self, history_len: usize, model: &str) {
        if std::mem::replace(&mut self.started, true) {
            return;
        }
        let source = if history_len > 0 { "resume" } else { "startup" };
        self.runner
            .run(
                HookEvent::SessionStart,
                &[source],
                HookEvent::SessionStart.as_str(),
                json!({ "source": source, "model": model }),
            )
            .await;
        self.instructions_loaded("session_start").await;
    }

    /// `InstructionsLoaded` for the working directory's `AGENTS.md`, when it has one (the
    /// session's counterpart of `CLAUDE.md`; `memory_type` `Project`).
    async fn instructions_loaded(&self, load_reason: &str) {
        let path = self.runner.cwd.join("AGENTS.md");
        if !path.is_file() {
            return;
        }
        self.runner
            .run(
                HookEvent::InstructionsLoaded,
                &[load_reason],
                HookEvent::InstructionsLoaded.as_str(),
                json!({
                    "file_path": path.display().to_string(),
                    "memory_type": "Project",
                    "load_reason": load_reason,
                }),
            )
            .await;
    }

    /// After a compaction: `SessionStart` with source `compact` (Claude Code runs the
    /// `compact` matcher then; what the hooks print reaches the model as after a startup), and
    /// `InstructionsLoaded` with `load_reason` `compact` (the next turn's initial context reads
    /// `AGENTS.md` again).
    pub(crate) async fn session_start_after_compaction(&self, model: &str) {
        self.runner
            .run(
                HookEvent::SessionStart,
                &["compact"],
                HookEvent::SessionStart.as_str(),
                json!({ "source": "compact", "model": model }),
            )
            .await;
        self.instructions_loaded("compact").await;
    }

    /// `UserPromptSubmit` for `prompt`: true when a hook blocked it (the turn does not run;
    /// the user was told why).
    pub(crate) async fn prompt_blocked(&mut self, prompt: &str, permission_mode: &str) -> bool {
        self.stop_hook_active = false;
        let result = self
            .runner
            .run_event(
                HookEvent::UserPromptSubmit,
                json!({ "permission_mode": permission_mode, "prompt": prompt }),
            )
            .await;
        result.block.is_some() || result.stop.is_some()
    }

    /// `UserPromptExpansion` when the typed `/name args` expands into the skill's prompt: the
    /// reason when a hook blocked the expansion (the skill does not run).
    pub(crate) async fn expansion_blocked(
        &self,
        name: &str,
        args: &str,
        source: &str,
        permission_mode: &str,
    ) -> Option<String> {
        let prompt = if args.is_empty() {
            format!("/{name}")
        } else {
            format!("/{name} {args}")
        };
        let result = self
            .runner
            .run(
                HookEvent::UserPromptExpansion,
                &[name],
                HookEvent::UserPromptExpansion.as_str(),
                json!({
                    "permission_mode": permission_mode,
                    "expansion_type": "slash_command",
                    "command_name": name,
                    "command_args": args,
                    "command_source": source,
                    "prompt": prompt,
                }),
            )
            .await;
        result.block.or(result.stop)
    }

    /// `Stop`, when the model ended its turn with `last_message`: true when a hook blocked
    /// the stop, so the turn goes on with the hook's reason in front of the model.
    /// `stop_hook_active` tells the hook it already did so once this turn.
    pub(crate) async fn stop_blocked(&mut self, last_message: &str, permission_mode: &str) -> bool {
        if self.take_stop_request() {
            return false;
        }
        let result = self
            .runner
            .run_event(
                HookEvent::Stop,
                json!({
                    "permission_mode": permission_mode,
                    "stop_hook_active": self.stop_hook_active,
                    "last_assistant_message": last_message,
                }),
            )
            .await;
        let blocked = result.block.is_some() && result.stop.is_none();
        if blocked {
            self.stop_hook_active = true;
        }
        blocked
    }

    /// `StopFailure` when the turn ended on `error` (a model error); other errors of the turn
    /// are not API errors and fire nothing. Output and exit code are ignored.
    pub(crate) async fn stop_failure(&self, error: &CoreError) {
        let CoreError::Model(model_error) = error else {
            return;
        };
        let error_type = error_type(model_error);
        self.runner
            .run(
                HookEvent::StopFailure,
                &[error_type],
                HookEvent::StopFailure.as_str(),
                json!({
                    "error": error_type,
                    "error_details": model_error.to_string(),
                    "last_assistant_message": format!("API Error: {model_error}"),
                }),
            )
            .await;
    }

    /// `PostToolBatch` after the tool calls `calls` (`(call_id, name, arguments)`) of one
    /// response produced `outputs`, before the next request: true when a hook said
    /// `decision: "block"` or `continue: false`; the turn's loop then stops (it reads
    /// [`HooksExt::take_stop_request`] after the tool calls).
    pub(crate) async fn tool_batch_blocked(
        &self,
        calls: &[(String, String, String)],
        outputs: &[ResponseItem],
        permission_mode: &str,
    ) -> bool {
        if self.runner.is_idle() {
            return false;
        }
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|(call_id, name, arguments)| {
                let response = outputs
                    .iter()
                    .filter_map(output_text)
                    .find(|(id, _)| id == call_id)
                    .map(|(_, text)| text)
                    .unwrap_or_default();
                json!({
                    "tool_name": claude_tool_name(name).unwrap_or(name),
                    "tool_input": super::tool_hooks::tool_input(arguments),
                    "tool_use_id": call_id,
                    "tool_response": response,
                })
            })
            .collect();
        let result = self
            .runner
            .run_event(
                HookEvent::PostToolBatch,
                json!({ "permission_mode": permission_mode, "tool_calls": tool_calls }),
            )
            .await;
        if let Some(reason) = &result.block {
            // The turn's loop reads it as a `continue: false` and stops.
            self.runner
                .stop_requested
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get_or_insert_with(|| reason.clone());
        }
        result.block.is_some() || result.stop.is_some()
    }

    /// The instructions the user gave `/compact` (`PreCompact`'s `custom_instructions`).
    pub(crate) fn set_compact_instructions(&mut self, instructions: &str) {
        self.compact_instructions = Some(instructions.to_string());
    }

    /// `PreCompact` before a compaction for `reason` (`manual`: the user's `/compact`, with
    /// its instructions; `auto` otherwise, with none): the reason when a hook blocked it.
    pub(crate) async fn pre_compact_blocked(&mut self, reason: CompactReason) -> Option<String> {
        let trigger = compact_trigger(reason);
        let instructions = self.compact_instructions.take().unwrap_or_default();
        let instructions = if trigger == "manual" {
            instructions
        } else {
            String::new()
        };
        let result = self
            .runner
            .run(
                HookEvent::PreCompact,
                &[trigger],
                HookEvent::PreCompact.as_str(),
                json!({ "trigger": trigger, "custom_instructions": instructions }),
            )
            .await;
        result.block
    }

    /// `PostCompact` after a compaction for `reason` wrote `summary`.
    pub(crate) async fn post_compact(&self, reason: CompactReason, summary: &str) {
        let trigger = compact_trigger(reason);
        self.runner
            .run(
                HookEvent::PostCompact,
                &[trigger],
                HookEvent::PostCompact.as_str(),
                json!({ "trigger": trigger, "compact_summary": summary }),
            )
            .await;
    }

    /// `SessionEnd` with `reason`: each hook within its budget (1.5 s unless its own timeout
    /// says more, at most 60 s). Nothing it says changes anything.
    pub(crate) async fn session_end(&self, reason: SessionEndReason) {
        self.runner
            .run(
                HookEvent::SessionEnd,
                &[reason.as_str()],
                HookEvent::SessionEnd.as_str(),
                json!({ "reason": reason.as_str() }),
            )
            .await;
        self.wait_for_async_hooks().await;
    }

    /// `SubagentStart` for the subagent these hooks run in (its `agent_id` and `agent_type`
    /// are in every input): what the hooks give as context, for the subagent's start.
    pub(crate) async fn subagent_start(&self) -> Vec<String> {
        let agent_type = self
            .runner
            .agent
            .as_ref()
            .map(|(_, kind)| kind.clone())
            .unwrap_or_default();
        self.runner
            .run(
                HookEvent::SubagentStart,
                &[agent_type.as_str()],
                HookEvent::SubagentStart.as_str(),
                json!({}),
            )
            .await
            .context
    }

    /// `SubagentStop` when the subagent these hooks run in ends with `last_message`: the
    /// reason when a hook blocked the end, so the subagent goes on with it as its next
    /// instruction. `stop_hook_active` tells the hook it already did so once.
    pub(crate) async fn subagent_stop_blocked(
        &self,
        last_message: &str,
        stop_hook_active: bool,
    ) -> Option<String> {
        if self.take_stop_request() {
            return None;
        }
        let agent_type = self
            .runner
            .agent
            .as_ref()
            .map(|(_, kind)| kind.clone())
            .unwrap_or_default();
        let result = self
            .runner
            .run(
                HookEvent::SubagentStop,
                &[agent_type.as_str()],
                HookEvent::SubagentStop.as_str(),
                json!({
                    "permission_mode": "default",
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
}

/// `manual` for the user's `/compact`, `auto` for the others.
fn compact_trigger(reason: CompactReason) -> &'static str {
    if reason == CompactReason::Requested {
        "manual"
    } else {
        "auto"
    }
}
