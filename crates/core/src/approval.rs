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
}

/// The answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run it.
    Approved,
    /// Do not run it; the tool reports the refusal to the model.
    Denied,
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
) -> ApprovalDecision {
    match policy {
        ApprovalPolicy::AutoApprove => ApprovalDecision::Approved,
        ApprovalPolicy::Never => ApprovalDecision::Denied,
        ApprovalPolicy::OnRequest => match approver {
            Some(approver) => approver.decide(request).await,
            // Nobody to ask: refusing is the only safe answer.
            None => ApprovalDecision::Denied,
        },
    }
}
