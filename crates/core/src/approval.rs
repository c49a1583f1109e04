//! Approval of shell commands and file writes before they run.
//!
//! The policy says when to ask; the [`Approver`] is who answers (the CLI prompts on the
//! terminal, a test scripts the answers). Nothing runs silently by default: the default policy
//! is [`ApprovalPolicy::OnRequest`], and a session without an approver denies.

use async_trait::async_trait;

/// When the session asks before a shell command or a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApprovalPolicy {
    /// Ask the [`Approver`] before each shell command and write.
    #[default]
    OnRequest,
    /// Never ask and never run: every shell command and write is refused.
    Never,
    /// Run without asking (`--yes`, non-interactive use).
    AutoApprove,
}

/// What needs approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalRequest {
    /// A shell command, in the working directory.
    Shell {
        /// The command line.
        command: String,
    },
    /// A file write or edit.
    Write {
        /// The file, as the tool resolved it.
        path: std::path::PathBuf,
        /// The tool asking (`write_file`, `edit_file`).
        tool: String,
    },
    /// Leaving plan mode to implement the plan.
    Plan {
        /// The plan file.
        plan_file: std::path::PathBuf,
        /// Its content.
        plan: String,
    },
    /// A tool call a `PreToolUse` hook wants the user to confirm (`permissionDecision:
    /// "ask"`), whatever the tool: shown with the input it will run with.
    ToolCall {
        /// The tool, by Claude Code's name where it has one (`Read`, `Bash`), else by ours
        /// (`mcp__server__tool`).
        tool: String,
        /// The input it runs with, as hooks see it (after the hook's `updatedInput`).
        input: serde_json::Value,
        /// Why the hook asks (`permissionDecisionReason`), for the user.
        reason: Option<String>,
    },
}

/// The answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run it.
    Approved,
    /// Do not run it; the tool reports the refusal to the model.
    Denied,
}

/// An answer with what it changes in the call beyond yes or no ([`Approver::answer`]): a
/// `PermissionRequest` hook may allow a call with other input, or deny it with a message for
/// the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalAnswer {
    /// Yes or no.
    pub decision: ApprovalDecision,
    /// With [`ApprovalDecision::Approved`]: the input the call runs with instead, as hooks see
    /// a tool's input (Claude Code's `updatedInput`; the fields it lacks keep their values).
    pub updated_input: Option<serde_json::Value>,
    /// With [`ApprovalDecision::Denied`]: why, for the model (added to the tool's refusal).
    pub message: Option<String>,
}

impl From<ApprovalDecision> for ApprovalAnswer {
    fn from(decision: ApprovalDecision) -> Self {
        Self {
            decision,
            updated_input: None,
            message: None,
        }
    }
}

/// A question the model asks the user (the `ask_user` tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserQuestion {
    /// The question.
    pub question: String,
    /// Answers the model suggests, in order (the user may answer otherwise).
    pub options: Vec<String>,
}

/// Who answers approval requests under [`ApprovalPolicy::OnRequest`], and the model's questions.
#[async_trait]
pub trait Approver: Send + Sync {
    /// Decides on `request`.
    async fn decide(&self, request: &ApprovalRequest) -> ApprovalDecision;

    /// [`Approver::decide`] with what the answer changes in the call ([`ApprovalAnswer`]); what
    /// the session asks. The default is `decide`'s answer, changing nothing.
    async fn answer(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        self.decide(request).await.into()
    }

    /// The user's answer to `question`, or `None` when no one can answer (no terminal, a
    /// scripted run): the default, so an approver that cannot ask says so.
    async fn ask(&self, _question: &UserQuestion) -> Option<String> {
        None
    }
}

/// An approver that answers the same for every request (tests, scripted runs).
#[derive(Debug, Clone, Copy)]
pub struct FixedApprover(pub ApprovalDecision);

#[async_trait]
impl Approver for FixedApprover {
    async fn decide(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        self.0
    }
}

/// Applies `policy` to `request`, asking `approver` when the policy says so.
pub(crate) async fn check(
    policy: ApprovalPolicy,
    approver: Option<&dyn Approver>,
    request: &ApprovalRequest,
) -> ApprovalAnswer {
    match policy {
        ApprovalPolicy::AutoApprove => ApprovalDecision::Approved.into(),
        ApprovalPolicy::Never => ApprovalDecision::Denied.into(),
        ApprovalPolicy::OnRequest => confirm(policy, approver, request).await,
    }
}

/// Asks `approver` about `request` whatever `policy` says, except [`ApprovalPolicy::Never`],
/// which refuses: a hook asked for the user's confirmation (`PreToolUse`
/// `permissionDecision: "ask"`), which `--yes` does not answer for the user.
pub(crate) async fn confirm(
    policy: ApprovalPolicy,
    approver: Option<&dyn Approver>,
    request: &ApprovalRequest,
) -> ApprovalAnswer {
    match (policy, approver) {
        (ApprovalPolicy::Never, _) => ApprovalDecision::Denied.into(),
        (_, Some(approver)) => approver.answer(request).await,
        // Nobody to ask: refusing is the only safe answer.
        (_, None) => ApprovalDecision::Denied.into(),
    }
}
