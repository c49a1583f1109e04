//! A background task the host tracks (a background shell, an async agent, a remote session):
//! the reminder engine reports its progress and a compaction restores the list of them, so both
//! read this one definition (docs/design/compaction.md, "Context restoration").

use serde::Deserialize;
use serde::Serialize;

/// The kind of a background task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundTaskType {
    /// A background shell.
    Shell,
    /// An async agent.
    AsyncAgent,
    /// A remote session.
    RemoteSession,
}

/// The status of a background task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundTaskStatus {
    /// Still running.
    Running,
    /// Finished successfully.
    Completed,
    /// Finished with an error.
    Failed,
    /// Stopped by the user or the agent.
    Killed,
}

impl BackgroundTaskStatus {
    /// Whether the task has ended.
    pub fn is_terminal(self) -> bool {
        !matches!(self, Self::Running)
    }

    /// The status as one word, as the model reads it in reminders and restored context (and as
    /// it is serialised): `running`, `completed`, `failed` or `killed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Killed => "killed",
        }
    }
}

/// A background task as the session sees it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundTask {
    /// Its id: the one the model uses to ask for its output.
    pub task_id: String,
    /// Its kind.
    pub task_type: BackgroundTaskType,
    /// The command, for shells.
    pub command: Option<String>,
    /// What it does (a command's description, an agent's task).
    pub description: String,
    /// Its status.
    pub status: BackgroundTaskStatus,
    /// The exit code, once ended.
    pub exit_code: Option<i32>,
    /// Bytes of output produced so far (a change marks new output).
    pub output_len: u64,
    /// A short summary of what changed since the last report, if the host has one.
    pub delta_summary: Option<String>,
    /// The latest progress message, if any.
    pub progress_message: Option<String>,
}

#[cfg(test)]
#[path = "background_task_tests.rs"]
mod tests;
