//! Glue to `agentctx-reminders`: builds the generators' [`GeneratorContext`] from session
//! state, runs the orchestrator before every model request and places the reminders.
//!
//! The session calls [`ReminderEngine::context`] and [`ReminderEngine::generate`] before each request of a turn,
//! [`ReminderEngine::reset_after_compaction`] after every compaction, and registers
//! [`ReminderEngine::file_observer`] with the tools. Delete this file and those call sites and
//! the session runs without reminders. See docs/design/core.md, "The extension files".

use std::borrow::Cow;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_protocol::PermissionMode;
use agentctx_protocol::ResponseItem;
use agentctx_reminders::BackgroundTaskInfo;
use agentctx_reminders::BackgroundTaskStatus;
use agentctx_reminders::BackgroundTaskType;
use agentctx_reminders::ContextTokenUsage;
use agentctx_reminders::FileTracker;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::HistoryEvent;
use agentctx_reminders::InvokedSkill;
use agentctx_reminders::ItemFlags;
use agentctx_reminders::PlanState;
use agentctx_reminders::ReminderPlacement;
use agentctx_reminders::ReminderState;
pub use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::ThrottleManager;
use agentctx_reminders::TodoState;
use agentctx_reminders::ToolResultInfo;
use agentctx_reminders::inject_system_reminders;

use crate::process::BackgroundStatus;
use crate::session_state::SessionState;
use crate::tools::FileObserver;

/// What the session knows about one model request, beyond its own state.
#[derive(Debug, Clone, Default)]
pub struct RequestFacts<'a> {
    /// This request carries the user's message (the first request of a turn).
    pub has_user_input: bool,
    /// The user's message of the turn.
    pub user_prompt: Option<&'a str>,
    /// Context usage `(used, effective window)` as the compaction trigger sees it.
    pub token_usage: Option<(u64, u64)>,
    /// Tool results micro-compaction cleared before this request.
    pub micro_compact_cleared: usize,
    /// Files the last compaction referenced without restoring them.
    pub compact_file_references: Vec<PathBuf>,
}

/// Reminders of one request, placed.
#[derive(Debug, Clone, Default)]
pub struct PlacedReminders {
    /// Items to record in the history (the `tail` placement), in order.
    pub record: Vec<ResponseItem>,
    /// Items to insert into this request's prompt view only (`after_environment_context`).
    pub prompt_only: Vec<ResponseItem>,
}

impl PlacedReminders {
    /// How many reminders this request carries.
    pub fn len(&self) -> usize {
        self.record.len() + self.prompt_only.len()
    }

    /// No reminder.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Inserts the prompt-only reminders into `prompt` after the environment context.
    pub fn place_in_prompt(&self, prompt: &mut Vec<Cow<'_, ResponseItem>>) {
        if self.prompt_only.is_empty() {
            return;
        }
        let position = agentctx_reminders::after_environment_context_position(prompt);
        prompt.splice(
            position..position,
            self.prompt_only.iter().cloned().map(Cow::Owned),
        );
    }
}

/// The main agent's reminder engine: orchestrator, file tracker and throttle.
pub struct ReminderEngine {
    config: SystemReminderConfig,
    orchestrator: SystemReminderOrchestrator,
    file_tracker: Arc<FileTracker>,
    throttle: Arc<ThrottleManager>,
    /// State read back from a resumed session's history, applied until the live state takes
    /// over (todos and plan are moved into the session state on resume).
    resumed: Option<ReminderState>,
}

impl std::fmt::Debug for ReminderEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReminderEngine")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ReminderEngine {
    /// An engine with the default generators under `config`.
    pub fn new(config: SystemReminderConfig) -> Self {
        Self {
            orchestrator: SystemReminderOrchestrator::new(config.clone()),
            config,
            file_tracker: Arc::new(FileTracker::new()),
            throttle: Arc::new(ThrottleManager::new()),
            resumed: None,
        }
    }

    /// The file tracker (what the model read, for changed-file reminders).
    pub fn file_tracker(&self) -> &Arc<FileTracker> {
        &self.file_tracker
    }

    /// The observer the file tools report reads and writes to.
    pub fn file_observer(&self) -> Arc<dyn FileObserver> {
        Arc::new(TrackerObserver(Arc::clone(&self.file_tracker)))
    }

    /// The critical instruction, re-injected after compaction.
    pub fn critical_instruction(&self) -> Option<&str> {
        self.config.critical_instruction.as_deref()
    }

    /// The generator context of the main agent for one request.
    pub fn context(
        &self,
        cwd: &Path,
        state: &SessionState,
        facts: &RequestFacts<'_>,
    ) -> GeneratorContext {
        let mut ctx = GeneratorContext::new(cwd).with_config(&self.config);
        if let Some(resumed) = &self.resumed {
            resumed.apply_to(&mut ctx);
        }
        // Reminders run before every request, so their clock is the request count.
        ctx.turn_number = state.requests;
        ctx.is_main_agent = true;
        ctx.has_user_input = facts.has_user_input;
        ctx.user_prompt = facts
            .user_prompt
            .filter(|_| facts.has_user_input)
            .map(str::to_string);
        ctx.file_tracker = Arc::clone(&self.file_tracker);
        ctx.throttle = Arc::clone(&self.throttle);
        ctx.permission_mode = if state.plan.active {
            PermissionMode::Plan
        } else {
            PermissionMode::Default
        };
        ctx.plan = PlanState {
            plan_file_path: state.plan.plan_file.clone(),
            is_reentry: state.plan.active && state.plan.entered_before,
            just_exited: state.plan.just_exited,
            ..PlanState::default()
        };
        // The todo list and plan mode of a resumed session were moved into the session state;
        // what only the recorded history knows (its shells, skills, last tool results) stays
        // from the derivation until the live session has its own.
        ctx.todo = TodoState {
            items: state.todos.clone(),
            last_write_turn: state.last_todo_write_turn,
            tool_available: true,
        };
        let live = self.resumed.is_none();
        if live || !state.shells.is_empty() {
            ctx.background_tasks = state
                .shells
                .iter()
                .map(|(id, shell)| background_task(id, shell))
                .collect();
        }
        if live || !state.invoked_skills.is_empty() {
            ctx.invoked_skills = state
                .invoked_skills
                .iter()
                .map(|skill| InvokedSkill {
                    name: skill.name.clone(),
                    path: skill.path.clone(),
                    content: skill.content.clone(),
                })
                .collect();
        }
        if live || !state.last_tool_results.is_empty() {
            ctx.last_tool_results = state
                .last_tool_results
                .iter()
                .map(|run| ToolResultInfo {
                    tool_name: run.name.clone(),
                    call_id: run.call_id.clone(),
                    success: run.success,
                    duration_ms: run.duration_ms,
                })
                .collect();
        }
        if let Some((used, total)) = facts.token_usage {
            let used = i64::try_from(used).unwrap_or(i64::MAX);
            let total = i64::try_from(total).unwrap_or(i64::MAX);
            ctx.token_usage = Some(ContextTokenUsage {
                used,
                total,
                remaining: total.saturating_sub(used).max(0),
            });
        }
        ctx.micro_compact_cleared = facts.micro_compact_cleared;
        ctx.compact_file_references = facts.compact_file_references.clone();
        ctx
    }

    /// Runs every generator on `ctx` (from [`ReminderEngine::context`]) and places the
    /// reminders: recorded at the tail of the history, or kept for the prompt view, as the
    /// config says.
    pub async fn generate(&self, ctx: GeneratorContext) -> PlacedReminders {
        let reminders = self.orchestrator.generate_all(&ctx).await;
        let mut items = Vec::new();
        inject_system_reminders(&mut items, &reminders, ReminderPlacement::Tail);
        match self.config.placement {
            ReminderPlacement::Tail => PlacedReminders {
                record: items,
                prompt_only: Vec::new(),
            },
            ReminderPlacement::AfterEnvironmentContext => PlacedReminders {
                record: Vec::new(),
                prompt_only: items,
            },
        }
    }

    /// After a compaction: every generator starts over, and the files the compaction restored
    /// count as read again, so they are neither repeated nor lost.
    pub fn reset_after_compaction(&self, cwd: &Path, restored: &[(PathBuf, String)], turn: i32) {
        let ctx = GeneratorContext::new(cwd);
        let ctx = GeneratorContext {
            file_tracker: Arc::clone(&self.file_tracker),
            throttle: Arc::clone(&self.throttle),
            ..ctx
        };
        self.orchestrator.reset(&ctx);
        for (path, content) in restored {
            self.file_tracker
                .track_read(path.clone(), content.as_str(), turn, None, None);
        }
    }

    /// Reads the reminder state back from a recorded history (resume). Returns the todo list,
    /// the plan file and whether plan mode was on, for the session state.
    pub fn resume_from_history(&mut self, items: &[ResponseItem]) -> ResumedState {
        let mut state = ReminderState::default();
        // The live session's clock counts model requests; a request starts with the first
        // model output after anything else.
        let mut clock = 0;
        let mut in_response = false;
        for item in items {
            let from_model = item.role() == Some("assistant")
                || matches!(
                    item,
                    ResponseItem::Reasoning { .. } | ResponseItem::FunctionCall { .. }
                );
            if from_model && !in_response {
                clock += 1;
                state.observe(HistoryEvent::TurnStarted(clock));
            }
            in_response = from_model;
            state.observe(HistoryEvent::Item(item, ItemFlags::default()));
        }
        let mut ctx = GeneratorContext::new(".");
        state.apply_to(&mut ctx);
        let resumed = ResumedState {
            todos: ctx.todo.items.clone(),
            last_todo_write_turn: ctx.todo.last_write_turn,
            plan_mode: ctx.is_plan_mode(),
            plan_file: ctx.plan.plan_file_path.clone(),
        };
        self.resumed = Some(state);
        resumed
    }
}

/// What a recorded history says about the session's own state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumedState {
    /// The todo list.
    pub todos: Vec<agentctx_protocol::TodoItem>,
    /// The turn of its last write.
    pub last_todo_write_turn: Option<i32>,
    /// Plan mode was on at the end.
    pub plan_mode: bool,
    /// The plan file, when recorded.
    pub plan_file: Option<PathBuf>,
}

fn background_task(id: &str, shell: &crate::session_state::BackgroundShell) -> BackgroundTaskInfo {
    let status = shell.process.status();
    BackgroundTaskInfo {
        task_id: id.to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some(shell.command.clone()),
        description: shell.description.clone(),
        status: match status {
            BackgroundStatus::Running => BackgroundTaskStatus::Running,
            BackgroundStatus::Exited(Some(0)) => BackgroundTaskStatus::Completed,
            BackgroundStatus::Exited(_) | BackgroundStatus::Failed => BackgroundTaskStatus::Failed,
            BackgroundStatus::Killed => BackgroundTaskStatus::Killed,
        },
        exit_code: match status {
            BackgroundStatus::Exited(code) => code,
            _ => None,
        },
        output_len: u64::try_from(shell.process.output_len()).unwrap_or(u64::MAX),
        delta_summary: None,
        progress_message: None,
    }
}

struct TrackerObserver(Arc<FileTracker>);

impl FileObserver for TrackerObserver {
    fn file_read(
        &self,
        path: &Path,
        content: &str,
        turn: i32,
        offset: Option<usize>,
        limit: Option<usize>,
    ) {
        self.0
            .track_read(path.to_path_buf(), content, turn, offset, limit);
    }

    fn file_written(&self, path: &Path, content: &str, turn: i32) {
        self.0.track_write(path.to_path_buf(), content, turn);
    }
}
