//! [`HostState`]: what the host's own state says that the engine needs before a request or a
//! compaction — the todo list, plan mode, background tasks, invoked skills and the tool results
//! of the previous request.
//!
//! The host (the live session, a replay, a fork's turn loop) owns that state; it copies it into
//! a `HostState` at the engine's seams, so the engine never reaches into the host's types.

use std::path::PathBuf;

use agentctx_protocol::BackgroundTask;
use agentctx_protocol::InvokedSkill;
use agentctx_protocol::TodoItem;
use agentctx_reminders::ToolResultInfo;

/// Plan mode as the host runs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPlan {
    /// Plan mode is on.
    pub active: bool,
    /// The plan file.
    pub plan_file: Option<PathBuf>,
    /// Plan mode was entered before in this session (a re-entry).
    pub entered_before: bool,
    /// Plan mode was left since the last model request.
    pub just_exited: bool,
}

/// The host's state at one seam.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostState {
    /// Model requests made in the session, the current one included: the reminders' clock.
    pub requests: i32,
    /// The todo list.
    pub todos: Vec<TodoItem>,
    /// The request of the last todo write (the host's record; the todo reminder counts on the
    /// engine's own clock of assistant messages, see `agentctx_reminders::ReminderClock`).
    pub last_todo_write_turn: Option<i32>,
    /// The agent has a todo tool the todo reminder may name (Codex plans with `update_plan`
    /// and has none).
    pub todo_tool_available: bool,
    /// Plan mode.
    pub plan: HostPlan,
    /// Background tasks, in start order.
    pub background_tasks: Vec<BackgroundTask>,
    /// Skills invoked in the session, in order.
    pub invoked_skills: Vec<InvokedSkill>,
    /// Tool calls of the previous model request.
    pub last_tool_results: Vec<ToolResultInfo>,
}

impl HostState {
    /// The state of a host that keeps nothing but its request clock (no todos, plan, tasks or
    /// skills): `requests` model requests made, the current one included.
    pub fn at_request(requests: i32) -> Self {
        Self {
            requests,
            ..Self::default()
        }
    }
}
