//! What the session feeds the reminder generators beyond the engine's own state (see
//! docs/design/reminders.md, "Who feeds each reminder"): spend against a USD budget priced
//! from the bundled LiteLLM table, the notes of past sessions in this folder, progress of running
//! background shells, the verify-plan moment, and the prompts the user queued while a turn ran.
//! The output style and the todo restatement come from `[system_reminder]` through the engine;
//! hook outcomes and async hook responses through [`crate::hooks_ext`].
//!
//! The session owns one [`ReminderFeeds`] and hands it what it reads: the generator context of
//! each request, the session state and the configured budget ([`ReminderFeeds::apply`]), and each
//! response's usage ([`ReminderFeeds::record_usage`]). Nothing here sees the session itself.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::time::SystemTime;

use agentctx_model::PriceTable;
use agentctx_model::TokenCounts;
use agentctx_protocol::TokenUsage;
use agentctx_reminders::BudgetInfo;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::QueuedCommand;
use agentctx_reminders::QueuedCommandsProvider;
use agentctx_reminders::SessionMemoryEntry;

use crate::session_state::SessionState;

/// Past sessions whose notes are previewed (the most recent first).
const PAST_SESSIONS_SHOWN: usize = 3;
/// Lines of each past session's notes in the preview.
const PREVIEW_LINES: usize = 20;

/// Prompts the user typed while a turn ran (line mode), shown to the model before its next
/// request as `queued_commands` reminders. Cloning shares the queue: the CLI keeps one handle
/// and pushes from its input task while the session runs the turn.
#[derive(Debug, Clone, Default)]
pub struct CommandQueue(Arc<Mutex<VecDeque<QueuedCommand>>>);

impl CommandQueue {
    /// Queues `prompt` for the running turn.
    pub fn push(&self, prompt: impl Into<String>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(QueuedCommand {
                prompt: prompt.into(),
                source_uuid: String::new(),
                image_paste_ids: Vec::new(),
            });
    }

    /// Prompts waiting for the next request.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes the prompts no request showed the model (the turn ended first), in order: the
    /// host runs them as the next prompt, as Claude Code submits what is still queued.
    pub fn take_prompts(&self) -> Vec<String> {
        self.take_queued_commands()
            .into_iter()
            .map(|command| command.prompt)
            .collect()
    }
}

impl QueuedCommandsProvider for CommandQueue {
    fn take_queued_commands(&self) -> Vec<QueuedCommand> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect()
    }
}

/// What the session's requests cost so far, priced per request by the model's entry in the
/// bundled LiteLLM table (`agentctx_model::PriceTable::bundled`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpendMeter {
    /// Tokens of every request.
    pub tokens: TokenCounts,
    /// US dollars of the priced requests.
    pub usd: f64,
    /// Requests whose model has no price (their cost is not in `usd`).
    pub unpriced_requests: u32,
}

impl SpendMeter {
    /// Adds one request's `usage` by `model`.
    pub(crate) fn record(&mut self, model: &str, usage: &TokenUsage) {
        let tokens = TokenCounts::from_usage(usage);
        self.tokens += tokens;
        let cost = PriceTable::bundled()
            .ok()
            .and_then(|table| table.lookup(model))
            .and_then(|price| price.cost(&tokens));
        match cost {
            Some(cost) => self.usd += cost,
            None => self.unpriced_requests = self.unpriced_requests.saturating_add(1),
        }
    }

    /// Spend against `budget` US dollars.
    pub(crate) fn budget(&self, budget: f64) -> BudgetInfo {
        BudgetInfo {
            used: self.usd,
            total: budget,
            remaining: (budget - self.usd).max(0.0),
        }
    }
}

/// The notes other sessions in `cwd` left under `<home>/session-memory/` (the session-memory
/// compaction tier writes them), most recent first, as previews: `PAST_SESSIONS_SHOWN` (3)
/// sessions of `PREVIEW_LINES` (20) lines. A session belongs to `cwd` when its rollout's first
/// line (`session_meta`) says so.
pub(crate) fn past_session_notes(
    home: &Path,
    cwd: &Path,
    session_id: &str,
) -> Vec<SessionMemoryEntry> {
    let notes_root = home.join("session-memory");
    if !notes_root.is_dir() {
        return Vec::new();
    }
    let Ok(sessions) = agentctx_rollout::discover_sessions(&home.join("sessions")) else {
        return Vec::new();
    };
    let mut found: Vec<(SystemTime, SessionMemoryEntry)> = sessions
        .iter()
        .filter_map(|session| {
            let name = session.path.file_stem()?.to_string_lossy().into_owned();
            // `rollout-<time>-<id>`: the id is the last 36 characters (a UUID).
            let id = name.get(name.len().checked_sub(36)?..)?;
            if id == session_id || !ran_in(&session.path, cwd) {
                return None;
            }
            let full_path = notes_root.join(id).join("summary.md");
            let modified = std::fs::metadata(&full_path).ok()?.modified().ok()?;
            let text = std::fs::read_to_string(&full_path).ok()?;
            if text.trim().is_empty() {
                return None;
            }
            let lines: Vec<&str> = text.lines().collect();
            let shown = lines.len().min(PREVIEW_LINES);
            let entry = SessionMemoryEntry {
                full_path,
                content: lines.get(..shown).unwrap_or_default().join("\n"),
                last_modified: Some(modified),
                remaining_lines: i32::try_from(lines.len() - shown).unwrap_or(i32::MAX),
            };
            Some((modified, entry))
        })
        .collect();
    found.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    found
        .into_iter()
        .take(PAST_SESSIONS_SHOWN)
        .map(|(_, entry)| entry)
        .collect()
}

/// Whether the rollout at `rollout` records `cwd` as its folder (its first line).
fn ran_in(rollout: &Path, cwd: &Path) -> bool {
    let Ok(file) = std::fs::File::open(rollout) else {
        return false;
    };
    let mut first = String::new();
    if std::io::BufRead::read_line(&mut std::io::BufReader::new(file), &mut first).is_err() {
        return false;
    }
    serde_json::from_str::<serde_json::Value>(&first)
        .ok()
        .and_then(|line| {
            line.pointer("/payload/cwd")
                .and_then(serde_json::Value::as_str)
                .map(|recorded| Path::new(recorded) == cwd)
        })
        .unwrap_or(false)
}

/// The session's own feeds, applied to every request's generator context.
#[derive(Debug, Default)]
pub(crate) struct ReminderFeeds {
    queue: CommandQueue,
    spend: SpendMeter,
    notes: Vec<SessionMemoryEntry>,
    /// Plan mode was left with a plan file: once the todo list is done, the plan is verified.
    plan_approved: bool,
}

impl ReminderFeeds {
    /// Feeds for a session `session_id` in `cwd` under `home`: the past sessions' notes are
    /// read once, here.
    pub(crate) fn new(home: &Path, cwd: &Path, session_id: &str) -> Self {
        Self {
            notes: past_session_notes(home, cwd, session_id),
            ..Self::default()
        }
    }

    /// The queue the CLI pushes typed prompts into.
    pub(crate) fn command_queue(&self) -> CommandQueue {
        self.queue.clone()
    }

    /// What the requests cost so far.
    pub(crate) fn spend(&self) -> &SpendMeter {
        &self.spend
    }

    /// Records one request's usage by `model`.
    pub(crate) fn record_usage(&mut self, model: &str, usage: Option<&TokenUsage>) {
        if let Some(usage) = usage {
            self.spend.record(model, usage);
        }
    }

    /// Puts the feeds into `ctx` for the next request: `budget_usd` is the configured budget.
    pub(crate) fn apply(
        &mut self,
        ctx: &mut GeneratorContext,
        state: &SessionState,
        budget_usd: Option<f64>,
    ) {
        ctx.providers.queued_commands = Arc::new(self.queue.clone());
        ctx.budget = budget_usd.map(|budget| self.spend.budget(budget));
        ctx.session_memory.clone_from(&self.notes);
        if state.plan.just_exited && state.plan.plan_file.is_some() {
            self.plan_approved = true;
        }
        if state.plan.active {
            self.plan_approved = false;
        }
        let todos_done = !state.todos.is_empty()
            && state
                .todos
                .iter()
                .all(|todo| todo.status == agentctx_protocol::TodoStatus::Completed);
        ctx.plan.implementation_complete = self.plan_approved && todos_done;
        ctx.plan.without_verify_tool = true;
        if ctx.plan.plan_file_path.is_none() {
            ctx.plan.plan_file_path.clone_from(&state.plan.plan_file);
        }
        for task in &mut ctx.background_tasks {
            if let Some(shell) = state.shells.get(&task.task_id)
                && task.status == agentctx_protocol::BackgroundTaskStatus::Running
            {
                task.progress_message = shell.process.last_output_line().map(|line| {
                    format!(
                        "Background Bash {} (command: {}) is still running; its latest output: {line}",
                        task.task_id, shell.command
                    )
                });
            }
        }
    }
}

#[cfg(test)]
#[path = "reminder_feeds_tests.rs"]
mod tests;
