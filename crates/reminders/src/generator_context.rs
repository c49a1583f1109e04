//! [`GeneratorContext`]: the state of one turn that generators read (see
//! docs/design/reminders.md, "Generator context").
//!
//! The host builds one per turn. Long-lived state is shared through `Arc`s ([`FileTracker`],
//! [`ThrottleManager`], the [`Providers`]) so it survives across turns; everything else is a
//! snapshot of the session at the start of the turn.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use agentctx_protocol::PermissionMode;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;

use crate::config::DEFAULT_CHANGED_FILES_TOKEN_CAP;
use crate::config::ReminderPlacement;
use crate::config::SystemReminderConfig;
use crate::file_tracker::FileTracker;
use crate::providers::Providers;
use crate::throttle::DEFAULT_TODO_RESTATE_AFTER_REQUESTS;
use crate::throttle::ThrottleManager;

/// Everything a generator may look at on one turn.
#[derive(Debug, Clone)]
pub struct GeneratorContext {
    /// The turn number (1 for the first turn of the session). A host running reminders before
    /// every model request counts requests here.
    pub turn_number: i32,
    /// Claude Code's reminder clock: the assistant messages of the session so far, one per text
    /// or tool-call block the model produced (Claude Code stores each content block of a
    /// response as its own message and skips thinking-only ones when it counts). The todo
    /// reminder's throttle runs on it (see docs/design/reminders.md, "Throttles").
    pub assistant_messages: i32,
    /// User turns so far (requests that carried the user's message): a standing reminder is not
    /// repeated unchanged within one.
    pub user_turns: i32,
    /// True for the main agent, false for sub-agents.
    pub is_main_agent: bool,
    /// Whether this turn has user input.
    pub has_user_input: bool,
    /// The user's prompt text of this turn, if any.
    pub user_prompt: Option<String>,
    /// The working directory of the session.
    pub cwd: PathBuf,
    /// The permission mode; [`PermissionMode::Plan`] means plan mode is active.
    pub permission_mode: PermissionMode,
    /// Plan mode details.
    pub plan: PlanState,
    /// Delegate (team lead) mode details.
    pub delegate: DelegateState,
    /// The todo list.
    pub todo: TodoState,
    /// Background tasks (shells, async agents, remote sessions).
    pub background_tasks: Vec<BackgroundTaskInfo>,
    /// The tool calls of the last turn and how they ended (read by the `tool_result`
    /// reminder, which names the failed ones).
    pub last_tool_results: Vec<ToolResultInfo>,
    /// Files read in this session; shared across turns.
    pub file_tracker: Arc<FileTracker>,
    /// Throttle state; shared across turns. The orchestrator checks and updates it.
    pub throttle: Arc<ThrottleManager>,
    /// Context window usage, when tracked.
    pub token_usage: Option<ContextTokenUsage>,
    /// Budget usage, when a budget is set.
    pub budget: Option<BudgetInfo>,
    /// Summaries of past sessions.
    pub session_memory: Vec<SessionMemoryEntry>,
    /// The critical instruction (from config, or an agent definition's `critical_system_reminder`).
    pub critical_instruction: Option<String>,
    /// Skills invoked in this session.
    pub invoked_skills: Vec<InvokedSkill>,
    /// A non-default output style.
    pub output_style: Option<String>,
    /// Files read before compaction that were too large to re-include.
    pub compact_file_references: Vec<PathBuf>,
    /// Tool results cleared by micro-compaction since the last turn.
    pub micro_compact_cleared: usize,
    /// Ultra memory content to show the model, when the host has some.
    pub ultramemory: Option<String>,
    /// Token cap of the `changed_files` reminder per turn.
    pub changed_files_token_cap: usize,
    /// Requests within one user turn before an unchanged standing reminder is sent again (see
    /// docs/design/reminders.md, "Standing reminders").
    pub todo_restate_after_requests: i32,
    /// Where this turn's reminders will be placed (copied from the config). Under
    /// [`ReminderPlacement::Tail`] reminders stay in the history, so standing ones (the critical
    /// instruction) are repeated only when they change or after compaction.
    pub placement: ReminderPlacement,
    /// Outside-state providers.
    pub providers: Providers,
}

impl GeneratorContext {
    /// A context for turn 1 of a main agent in `cwd`, with empty state and new shared stores.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            turn_number: 1,
            assistant_messages: 0,
            user_turns: 0,
            is_main_agent: true,
            has_user_input: false,
            user_prompt: None,
            cwd: cwd.into(),
            permission_mode: PermissionMode::Default,
            plan: PlanState::default(),
            delegate: DelegateState::default(),
            todo: TodoState::default(),
            background_tasks: Vec::new(),
            last_tool_results: Vec::new(),
            file_tracker: Arc::new(FileTracker::new()),
            throttle: Arc::new(ThrottleManager::new()),
            token_usage: None,
            budget: None,
            session_memory: Vec::new(),
            critical_instruction: None,
            invoked_skills: Vec::new(),
            output_style: None,
            compact_file_references: Vec::new(),
            micro_compact_cleared: 0,
            ultramemory: None,
            changed_files_token_cap: DEFAULT_CHANGED_FILES_TOKEN_CAP,
            todo_restate_after_requests: DEFAULT_TODO_RESTATE_AFTER_REQUESTS,
            providers: Providers::default(),
            placement: ReminderPlacement::default(),
        }
    }

    /// Sets the user prompt (and `has_user_input`).
    pub fn with_user_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.user_prompt = Some(prompt.into());
        self.has_user_input = true;
        self
    }

    /// Copies the per-turn settings of `config` (critical instruction, changed-files cap,
    /// todo restatement, output style).
    pub fn with_config(mut self, config: &SystemReminderConfig) -> Self {
        if self.critical_instruction.is_none() {
            self.critical_instruction = config.critical_instruction.clone();
        }
        if self.output_style.is_none() {
            self.output_style = config.output_style.clone();
        }
        self.todo_restate_after_requests = config.todo_restate_after_requests;
        self.changed_files_token_cap = config.changed_files_token_cap;
        self.placement = config.placement;
        self
    }

    /// Whether plan mode is active.
    pub fn is_plan_mode(&self) -> bool {
        self.permission_mode == PermissionMode::Plan
    }
}

/// Plan mode state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanState {
    /// The plan file of this session, if any.
    pub plan_file_path: Option<PathBuf>,
    /// Plan mode was entered again after having been left.
    pub is_reentry: bool,
    /// Plan mode was left since the last turn.
    pub just_exited: bool,
    /// Every step of the approved plan is done, not yet verified.
    pub implementation_complete: bool,
    /// The host has no `VerifyPlanExecution` tool: the verify-plan reminder asks the model to
    /// check the plan itself instead of naming a tool it was not offered.
    pub without_verify_tool: bool,
    /// A plan file from a previous session (or from before compaction) to point the model at.
    pub reference_file: Option<PathBuf>,
}

/// Delegate (team lead) mode state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DelegateState {
    /// Delegate mode is active.
    pub active: bool,
    /// Delegate mode was left since the last turn.
    pub just_exited: bool,
    /// The team's name.
    pub team_name: Option<String>,
    /// The team's task list file.
    pub task_list_path: Option<PathBuf>,
}

/// The todo list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoState {
    /// Its items.
    pub items: Vec<TodoItem>,
    /// When the TodoWrite tool was last used, on the todo reminder's clock
    /// ([`GeneratorContext::assistant_messages`] after the message that called it); `None` if it
    /// was never used.
    pub last_write_turn: Option<i32>,
    /// Whether the agent has the TodoWrite tool at all (default true). The reminder names that
    /// tool, so an agent without it (a Codex session, a sub-agent whose tools exclude it) is
    /// never told to use it.
    pub tool_available: bool,
}

impl Default for TodoState {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            last_write_turn: None,
            tool_available: true,
        }
    }
}

impl TodoState {
    /// Whether the list has no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether every item is completed (false for an empty list).
    pub fn all_completed(&self) -> bool {
        !self.items.is_empty()
            && self
                .items
                .iter()
                .all(|item| item.status == TodoStatus::Completed)
    }
}

/// Information about a tool result of the last turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResultInfo {
    /// The tool.
    pub tool_name: String,
    /// The call id.
    pub call_id: String,
    /// Whether it succeeded.
    pub success: bool,
    /// How long it ran, in milliseconds; 0 when unknown (a replayed history records none).
    pub duration_ms: i64,
}

/// A background task as the session sees it now (defined in `agentctx-protocol`, shared with
/// compaction's restoration).
pub use agentctx_protocol::BackgroundTask as BackgroundTaskInfo;
/// The status of a background task.
pub use agentctx_protocol::BackgroundTaskStatus;
/// The kind of a background task.
pub use agentctx_protocol::BackgroundTaskType;

/// Context window usage (named apart from the protocol's recorded `TokenUsageInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextTokenUsage {
    /// Tokens used.
    pub used: i64,
    /// The context window.
    pub total: i64,
    /// Tokens left.
    pub remaining: i64,
}

/// Budget usage in US dollars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetInfo {
    /// Spent.
    pub used: f64,
    /// The budget.
    pub total: f64,
    /// Left.
    pub remaining: f64,
}

/// A past session's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMemoryEntry {
    /// The full notes file.
    pub full_path: PathBuf,
    /// A preview of the notes.
    pub content: String,
    /// When the notes were last written.
    pub last_modified: Option<SystemTime>,
    /// Lines of the notes not in the preview.
    pub remaining_lines: i32,
}

/// A skill invoked in this session (defined in `agentctx-protocol`, shared with compaction's
/// restoration).
pub use agentctx_protocol::InvokedSkill;
