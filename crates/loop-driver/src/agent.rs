//! [`LoopAgent`]: how the driver talks to an agent session. The core implements it over its
//! `Session` (`loop_driver_ext.rs`); tests implement it with a scripted agent.

use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use async_trait::async_trait;

/// A failure the agent reports to the driver (the host's own error, as text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AgentError {
    /// What went wrong.
    pub message: String,
}

impl AgentError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// How one turn of the agent ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnStatus {
    /// The turn completed.
    Completed,
    /// The turn failed (a model error, a tool crash); the loop counts it and goes on.
    Failed {
        /// Why.
        reason: String,
    },
    /// The turn was interrupted from outside the loop (the session was aborted or shut down);
    /// the loop stops with [`crate::LoopOutcome::Interrupted`].
    Interrupted {
        /// Why.
        reason: String,
    },
}

/// What one turn of the agent did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnReport {
    /// How it ended.
    pub status: TurnStatus,
    /// The tokens it used, summed over its model requests.
    pub usage: TokenUsage,
}

impl TurnReport {
    /// A completed turn that used `usage`.
    pub fn completed(usage: TokenUsage) -> Self {
        Self {
            status: TurnStatus::Completed,
            usage,
        }
    }

    /// A failed turn.
    pub fn failed(reason: impl Into<String>, usage: TokenUsage) -> Self {
        Self {
            status: TurnStatus::Failed {
                reason: reason.into(),
            },
            usage,
        }
    }

    /// An interrupted turn.
    pub fn interrupted(reason: impl Into<String>, usage: TokenUsage) -> Self {
        Self {
            status: TurnStatus::Interrupted {
                reason: reason.into(),
            },
            usage,
        }
    }
}

/// An agent session the loop drives: it submits one prompt per iteration, waits for the turn,
/// then reads the history to summarise what the turn did.
#[async_trait]
pub trait LoopAgent: Send + Sync {
    /// Called before each iteration's prompt. A host that wants a fresh session per
    /// iteration starts it here; the default keeps one session for the whole loop.
    async fn begin_iteration(&self, _iteration: i32) -> Result<(), AgentError> {
        Ok(())
    }

    /// Submits `prompt` as user input, starting a turn.
    async fn submit(&self, prompt: &str) -> Result<(), AgentError>;

    /// Waits until the submitted turn ends.
    async fn wait_for_turn(&self) -> TurnReport;

    /// The session's current history (after compaction, if one happened). The driver
    /// summarises the items added since the iteration started.
    async fn current_history(&self) -> Result<Vec<ResponseItem>, AgentError>;

    /// Asks the running turn to stop; called when the loop is cancelled mid-turn. The default
    /// does nothing (the driver stops waiting either way).
    async fn interrupt(&self) {}
}
