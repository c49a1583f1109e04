//! Todo list items as the TodoWrite tool records them.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// The status of a todo item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    #[default]
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

impl TodoStatus {
    /// The wire name (`pending`, `in_progress`, `completed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }
}

/// One item of the todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TodoItem {
    /// What is to be done, imperative ("Run the tests").
    pub content: String,
    /// Its status.
    pub status: TodoStatus,
    /// The present-continuous form shown while it runs ("Running the tests").
    #[serde(default, alias = "activeForm")]
    pub active_form: String,
}
