//! [`SessionState`]: what the session owns beside the history — the todo list, plan mode,
//! background shells, invoked skills and the tool results of the last turn.
//!
//! Tools change it; the extension files read it to build what other crates need (the reminder
//! generators' context, compaction's restoration input). It lives behind a `std::sync::Mutex`
//! that is never held across an `.await`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentctx_protocol::InvokedSkill;
use agentctx_protocol::TodoItem;

use crate::process::BackgroundProcess;

/// Plan mode and its plan file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanMode {
    /// Plan mode is on: write tools refuse, except on the plan file.
    pub active: bool,
    /// The plan file's slug, kept for the whole session so re-entry reuses the file.
    pub slug: Option<String>,
    /// `<home>/plans/<slug>.md`.
    pub plan_file: Option<PathBuf>,
    /// Plan mode was entered before in this session (a re-entry).
    pub entered_before: bool,
    /// Plan mode was left since the last model request.
    pub just_exited: bool,
}

/// One finished tool call, for the next request's reminders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolRun {
    /// The tool.
    pub name: String,
    /// The call id.
    pub call_id: String,
    /// Whether it succeeded.
    pub success: bool,
    /// How long it ran.
    pub duration_ms: i64,
}

/// A background shell and what started it.
#[derive(Debug)]
pub(crate) struct BackgroundShell {
    /// The command line.
    pub command: String,
    /// The model's description of it.
    pub description: String,
    /// The process.
    pub process: BackgroundProcess,
}

/// The session's own state.
#[derive(Debug, Default)]
pub struct SessionState {
    /// The turn running (or last run), 1-based; 0 before the first.
    pub turn: i32,
    /// Model requests made in the session, the current one included: the reminders' clock
    /// (their throttles and "turns since" count requests, since they run before each one).
    pub requests: i32,
    /// The todo list as `todo_write` last set it.
    pub todos: Vec<TodoItem>,
    /// The request (see `requests`) of the last `todo_write`.
    pub last_todo_write_turn: Option<i32>,
    /// Plan mode.
    pub plan: PlanMode,
    /// Background shells by id (`shell_1`, …), in start order.
    pub(crate) shells: BTreeMap<String, BackgroundShell>,
    /// Shells started so far, for ids.
    pub(crate) shells_started: u32,
    /// Subagents started in the background by id (`agent_1`, …), in start order.
    pub(crate) agents: BTreeMap<String, crate::background_agents::BackgroundAgent>,
    /// Background agents started so far, for ids.
    pub(crate) agents_started: u32,
    /// Skills invoked in this session, in order.
    pub invoked_skills: Vec<InvokedSkill>,
    /// Tool calls of the previous model request.
    pub(crate) last_tool_results: Vec<ToolRun>,
    /// The session's rollout file, which the `recall` tool searches for what compaction
    /// removed; `None` for a run that records none (a subagent).
    pub rollout_path: Option<PathBuf>,
}
