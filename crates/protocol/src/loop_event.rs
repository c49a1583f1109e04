//! Events the agent loop emits for hosts and UIs (plan mode, compaction, thinking).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// An event of the agent loop, for hosts and UIs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LoopEvent {
    /// Plan mode was entered; the plan is written to `plan_file`.
    PlanModeEntered {
        /// The plan file.
        plan_file: PathBuf,
    },
    /// Plan mode was left, with or without the user's approval.
    PlanModeExited {
        /// Whether the user approved the plan.
        approved: bool,
    },
    /// A full compaction started.
    CompactionStarted,
    /// A full compaction finished.
    CompactionCompleted {
        /// Messages removed from the history.
        removed_messages: i32,
        /// Tokens of the summary that replaced them.
        summary_tokens: i32,
    },
    /// Micro-compaction cleared old tool results.
    MicroCompactionApplied {
        /// Tool results cleared.
        removed_results: i32,
    },
    /// Session-memory compaction replaced old messages with the cached summary.
    SessionMemoryCompactApplied {
        /// Tokens saved, net of the summary.
        saved_tokens: i32,
        /// Tokens of the summary.
        summary_tokens: i32,
    },
    /// A chunk of model thinking arrived.
    ThinkingDelta {
        /// The turn it belongs to.
        turn_id: String,
        /// The text.
        delta: String,
    },
    /// Thinking finished for a turn.
    ThinkingComplete {
        /// The turn it belongs to.
        turn_id: String,
        /// Thinking tokens used.
        total_tokens: i32,
    },
}
