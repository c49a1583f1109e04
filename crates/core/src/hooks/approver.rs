//! The approver with the hooks in front of it: when a tool asks for approval (a shell
//! command, a write, leaving plan mode) the `PermissionRequest` hooks decide first (`allow`:
//! it runs, `deny` or exit 2: it does not, the reason in the refusal); when none decides, the
//! `Notification` hooks hear `permission_prompt` and the session's approver asks the user.
//! When the model asks the user a question (`ask_user`), the `Notification` hooks hear
//! `idle_prompt`: the session waits for the user's input. (Claude Code's hooks reference,
//! "PermissionRequest", "Notification", <https://code.claude.com/docs/en/hooks>.)

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use serde_json::json;

use super::runner::HookRunner;
use super::settings::HookEvent;
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
pub(crate) fn request_tool(request: &ApprovalRequest) -> (&'static str, Value) {
    match request {
        ApprovalRequest::Shell { command } => ("Bash", json!({ "command": command })),
        ApprovalRequest::Write { path, tool } => {
            let name = if tool == "edit_file" { "Edit" } else { "Write" };
            (name, json!({ "file_path": path.display().to_string() }))
        }
        ApprovalRequest::Plan { plan_file, plan } => (
            "ExitPlanMode",
            json!({ "plan": plan, "planFilePath": plan_file.display().to_string() }),
        ),
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
        let (tool_name, tool_input) = request_tool(request);
        let result = self
            .runner
            .run(
                HookEvent::PermissionRequest,
                &[tool_name],
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
            return ApprovalDecision::Denied;
        }
        if result.allow {
            return ApprovalDecision::Approved;
        }
        self.notify(
            "permission_prompt",
            format!("agentctx needs your permission to use {tool_name}"),
            "Permission needed",
        )
        .await;
        match &self.inner {
            Some(inner) => inner.decide(request).await,
            None => ApprovalDecision::Denied,
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
