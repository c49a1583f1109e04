//! The approver with the hooks in front of it: when a tool asks for approval (a shell
//! command, a write, leaving plan mode, a call a `PreToolUse` hook wants confirmed) the
//! permission rules and mode earlier `PermissionRequest` hooks set decide first
//! (`permission_updates.rs`), then the `PermissionRequest` hooks (`allow`: it runs, with their
//! `updatedInput` and `updatedPermissions`; `deny` or exit 2: it does not, their `message` in
//! the refusal the model reads, `interrupt` ending the turn); when none decides, the
//! `Notification` hooks hear `permission_prompt` and the session's approver asks the user.
//! When the model asks the user a question (`ask_user`), the `Notification` hooks hear
//! `idle_prompt`: the session waits for the user's input. (Claude Code's hooks reference,
//! "PermissionRequest", "Notification", <https://code.claude.com/docs/en/hooks>.)

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use serde_json::json;

use super::permission_updates::Prejudged;
use super::permission_updates::Subject;
use super::runner::HookRunner;
use super::settings::HookEvent;
use crate::approval::ApprovalAnswer;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalRequest;
use crate::approval::Approver;
use crate::approval::UserQuestion;

/// The session's approver behind its `PermissionRequest` and `Notification` hooks.
pub(crate) struct HookedApprover {
    pub(crate) runner: Arc<HookRunner>,
    pub(crate) inner: Option<Arc<dyn Approver>>,
}

/// `(tool_name, tool_input)` of `request` as Claude Code names them.
pub(crate) fn request_tool(request: &ApprovalRequest) -> (String, Value) {
    match request {
        ApprovalRequest::Shell { command } => ("Bash".into(), json!({ "command": command })),
        ApprovalRequest::Write { path, tool } => {
            let name = if tool == "edit_file" { "Edit" } else { "Write" };
            (
                name.into(),
                json!({ "file_path": path.display().to_string() }),
            )
        }
        ApprovalRequest::Plan { plan_file, plan } => (
            "ExitPlanMode".into(),
            json!({ "plan": plan, "planFilePath": plan_file.display().to_string() }),
        ),
        ApprovalRequest::ToolCall { tool, input, .. } => (tool.clone(), input.clone()),
    }
}

impl HookedApprover {
    async fn notify(&self, notification_type: &str, message: String, title: &str) {
        self.runner
            .run(
                HookEvent::Notification,
                &[notification_type],
                HookEvent::Notification.as_str(),
                json!({
                    "message": message,
                    "title": title,
                    "notification_type": notification_type,
                }),
            )
            .await;
    }
}

#[async_trait]
impl Approver for HookedApprover {
    async fn decide(&self, request: &ApprovalRequest) -> ApprovalDecision {
        self.answer(request).await.decision
    }

    async fn answer(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        let (tool_name, tool_input) = request_tool(request);
        let subject = Subject {
            tool: &tool_name,
            input: &tool_input,
            cwd: &self.runner.cwd,
        };
        let prejudged = match request {
            // A hook asked for the user's yes: only a deny rule spares the question.
            ApprovalRequest::ToolCall { .. } => match self.runner.permissions().prejudge(subject) {
                Prejudged::Denied => Prejudged::Denied,
                _ => Prejudged::Undecided,
            },
            _ => self.runner.permissions().prejudge(subject),
        };
        match prejudged {
            Prejudged::Approved => return ApprovalDecision::Approved.into(),
            Prejudged::Denied => {
                return ApprovalAnswer {
                    message: Some(format!(
                        "the session's permission rules refuse this {tool_name} call"
                    )),
                    ..ApprovalDecision::Denied.into()
                };
            }
            Prejudged::Undecided => {}
        }
        let result = self
            .runner
            .run(
                HookEvent::PermissionRequest,
                &[tool_name.as_str()],
                &format!("PermissionRequest:{tool_name}"),
                json!({
                    "permission_mode": "default",
                    "tool_name": tool_name,
                    "tool_input": tool_input,
                    "permission_suggestions": [],
                }),
            )
            .await;
        if let Some(reason) = result.block {
            self.runner.warn(format!(
                "a PermissionRequest hook denied {tool_name}: {reason}"
            ));
            if result.interrupt {
                self.runner.request_stop(reason.clone());
            }
            return ApprovalAnswer {
                message: Some(reason),
                ..ApprovalDecision::Denied.into()
            };
        }
        if result.allow {
            let unapplied = self.runner.permissions().apply(&result.updated_permissions);
            for note in unapplied {
                self.runner.warn(format!(
                    "a PermissionRequest hook's updatedPermissions: {note}"
                ));
            }
            // Leaving plan mode has no input to replace: the tool reads the plan file.
            let updated_input = result.updated_input.filter(|input| {
                input.is_object() && !matches!(request, ApprovalRequest::Plan { .. })
            });
            return ApprovalAnswer {
                updated_input,
                ..ApprovalDecision::Approved.into()
            };
        }
        self.notify(
            "permission_prompt",
            format!("agentctx needs your permission to use {tool_name}"),
            "Permission needed",
        )
        .await;
        match &self.inner {
            Some(inner) => inner.answer(request).await,
            None => ApprovalDecision::Denied.into(),
        }
    }

    async fn ask(&self, question: &UserQuestion) -> Option<String> {
        self.notify("idle_prompt", question.question.clone(), "Question")
            .await;
        match &self.inner {
            Some(inner) => inner.ask(question).await,
            None => None,
        }
    }
}
