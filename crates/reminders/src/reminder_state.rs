//! [`ReminderState`]: the reminder-relevant session state, derived from a recorded history.
//!
//! A live session keeps this state in its own fields (the todo list, plan mode, background
//! shells, invoked skills, token usage); a core resuming a session, or a replay, has only the
//! recorded history, so it reads the state back from the tool calls that changed it
//! ([`ReminderState::from_history`], or event by event with [`ReminderState::observe`]) and
//! copies it into each turn's context ([`ReminderState::apply_to`]):
//!
//! - todo list: Claude Code `TodoWrite` (and agentctx's `todo_write`,
//!   `{"todos":[{content,status,activeForm}]}`) and Codex
//!   `update_plan` (`{"plan":[{step,status}]}`), with the turn of the last write;
//! - plan mode: Claude Code `EnterPlanMode` / `ExitPlanMode` (agentctx: `enter_plan_mode` /
//!   `exit_plan_mode`) once their result says they went
//!   through (a rejected `ExitPlanMode` keeps plan mode on);
//! - background shells: Claude Code `Bash` with `run_in_background: true` (the task id is read
//!   from its result), then `BashOutput` / `TaskOutput` (`<status>`, `<exit_code>`) and
//!   `KillShell` / `KillBash`;
//! - invoked skills: Claude Code `Skill` calls and custom `<command-name>` slash commands, with
//!   the content of the injected message that follows them;
//! - token usage: the last recorded `token_count` against the recorded context window (or the
//!   one the host assumes, [`ReminderState::set_default_context_window`], for transcripts that
//!   record none, as Claude Code's);
//! - the tool calls of the last turn and whether they failed, for the `tool_result` reminder
//!   (durations are not recorded: they stay 0).
//!
//! See docs/design/reminders.md, "Resuming from a recorded history".

use std::collections::HashMap;
use std::path::PathBuf;

use agentctx_protocol::ContentItem;
use agentctx_protocol::PermissionMode;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use agentctx_protocol::TokenUsageInfo as RecordedTokenUsage;
use serde::Deserialize;
use serde_json::Value;

use crate::generator_context::BackgroundTaskInfo;
use crate::generator_context::BackgroundTaskStatus;
use crate::generator_context::BackgroundTaskType;
use crate::generator_context::ContextTokenUsage;
use crate::generator_context::GeneratorContext;
use crate::generator_context::InvokedSkill;
use crate::generator_context::PlanState;
use crate::generator_context::TodoState;
use crate::generator_context::ToolResultInfo;

/// What the recording says about an item beyond the item itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ItemFlags {
    /// The harness injected it (Claude Code's `isMeta`: a skill body, a command's expansion),
    /// the user did not type it.
    pub injected: bool,
    /// The permission mode recorded with a user message (Claude Code records plan mode entered
    /// or left with shift+tab only here).
    pub permission_mode: Option<PermissionMode>,
}

/// One step of a recorded session of the main thread, in order.
#[derive(Debug, Clone, Copy)]
pub enum HistoryEvent<'a> {
    /// Turn `n` starts: tool calls read from now on happen in it.
    TurnStarted(i32),
    /// A conversation item and what the recording says about it.
    Item(&'a ResponseItem, ItemFlags),
    /// A recorded token count.
    TokenCount(&'a RecordedTokenUsage),
}

/// A tool call whose effect waits for its result.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PendingCall {
    EnterPlanMode,
    ExitPlanMode,
    BackgroundBash {
        command: String,
        description: String,
    },
    BashOutput {
        task_id: String,
    },
    KillShell {
        task_id: String,
    },
    Skill {
        name: String,
    },
}

/// The reminder-relevant state of a session at some point of its history.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReminderState {
    /// The turn being read (0 before the first turn).
    turn: i32,
    /// The todo list and the turn of its last write.
    todo: TodoState,
    /// [`PermissionMode::Plan`] while plan mode is on.
    permission_mode: PermissionMode,
    /// Plan mode details (re-entry, just left).
    plan: PlanState,
    /// Whether plan mode was ever left in this session.
    left_plan_mode: bool,
    /// Background shells, in start order.
    background_tasks: Vec<BackgroundTaskInfo>,
    /// Skills invoked in this session, in order.
    invoked_skills: Vec<InvokedSkill>,
    /// The last recorded context usage.
    token_usage: Option<ContextTokenUsage>,
    /// Tool calls of the turn being read, by call id: their names, until their results arrive.
    calls_this_turn: HashMap<String, String, foldhash::fast::RandomState>,
    /// Tool results of the turn being read.
    results_this_turn: Vec<ToolResultInfo>,
    /// Tool results of the turn before.
    last_tool_results: Vec<ToolResultInfo>,
    /// The context window to assume when a `token_count` records none.
    default_context_window: Option<i64>,
    /// Calls waiting for their result, by call id.
    pending: HashMap<String, PendingCall, foldhash::fast::RandomState>,
    /// A skill (index into `invoked_skills`) or slash command (name) whose content the next
    /// injected user message carries.
    awaiting_content: Option<AwaitingContent>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum AwaitingContent {
    Skill(usize),
    SlashCommand(String),
}

#[derive(Deserialize)]
struct TodoWriteArgs {
    todos: Vec<TodoItem>,
}

#[derive(Deserialize)]
struct UpdatePlanArgs {
    plan: Vec<PlanStep>,
}

#[derive(Deserialize)]
struct PlanStep {
    step: String,
    status: TodoStatus,
}

impl ReminderState {
    /// The state at the end of `history`. Compactions do not matter here: the state they leave
    /// is what the later items say, and the orchestrator's own reset handles the rest.
    pub fn from_history<'a>(history: impl IntoIterator<Item = HistoryEvent<'a>>) -> Self {
        let mut state = Self::default();
        for event in history {
            state.observe(event);
        }
        state
    }

    /// Takes one step of the history into account.
    pub fn observe(&mut self, event: HistoryEvent<'_>) {
        match event {
            HistoryEvent::TurnStarted(turn) => self.begin_turn(turn),
            HistoryEvent::Item(item, flags) => self.observe_item(item, flags),
            HistoryEvent::TokenCount(info) => self.token_count(info),
        }
    }

    /// Token counts that record no context window are taken against `window`.
    pub fn set_default_context_window(&mut self, window: Option<i64>) {
        self.default_context_window = window;
    }

    /// Marks the start of `turn`: tool calls read from now on happen in it, and the tool
    /// results of the turn before become the last turn's.
    pub fn begin_turn(&mut self, turn: i32) {
        self.turn = turn;
        self.last_tool_results = std::mem::take(&mut self.results_this_turn);
        self.calls_this_turn.clear();
    }

    /// Forgets one-turn news after the turn's reminders were generated.
    pub fn reminders_generated(&mut self) {
        self.plan.just_exited = false;
    }

    /// The todo list and the turn of its last write (`tool_available` is the host's to say).
    pub fn todo(&self) -> &TodoState {
        &self.todo
    }

    /// The permission mode ([`PermissionMode::Plan`] while plan mode is on).
    pub fn permission_mode(&self) -> PermissionMode {
        self.permission_mode
    }

    /// Plan mode details.
    pub fn plan(&self) -> &PlanState {
        &self.plan
    }

    /// Background shells, in start order.
    pub fn background_tasks(&self) -> &[BackgroundTaskInfo] {
        &self.background_tasks
    }

    /// Skills invoked in this session, in order.
    pub fn invoked_skills(&self) -> &[InvokedSkill] {
        &self.invoked_skills
    }

    /// The last recorded context usage.
    pub fn token_usage(&self) -> Option<ContextTokenUsage> {
        self.token_usage
    }

    /// The tool results of the turn before.
    pub fn last_tool_results(&self) -> &[ToolResultInfo] {
        &self.last_tool_results
    }

    /// Copies the state into a turn's context: permission mode, plan mode, todo list,
    /// background tasks, invoked skills, token usage and the last turn's tool results.
    /// `todo.tool_available` is the host's to set and is left as it is.
    pub fn apply_to(&self, ctx: &mut GeneratorContext) {
        ctx.permission_mode = self.permission_mode;
        ctx.plan = self.plan.clone();
        let tool_available = ctx.todo.tool_available;
        ctx.todo = self.todo.clone();
        ctx.todo.tool_available = tool_available;
        ctx.background_tasks = self.background_tasks.clone();
        ctx.invoked_skills = self.invoked_skills.clone();
        ctx.token_usage = self.token_usage;
        ctx.last_tool_results = self.last_tool_results.clone();
    }

    /// Takes one conversation item of the main thread into account.
    pub fn observe_item(&mut self, item: &ResponseItem, flags: ItemFlags) {
        match item {
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => {
                self.calls_this_turn.insert(call_id.clone(), name.clone());
                self.function_call(name, arguments, call_id);
            }
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } => {
                let failed = output.success == Some(false);
                if let Some(tool_name) = self.calls_this_turn.remove(call_id) {
                    self.results_this_turn.push(ToolResultInfo {
                        tool_name,
                        call_id: call_id.clone(),
                        success: !failed,
                        duration_ms: 0,
                    });
                }
                if let Some(call) = self.pending.remove(call_id) {
                    self.call_result(call, call_id, failed, &output.text_content());
                }
            }
            ResponseItem::Message { role, content, .. } if role == "user" => {
                if let Some(mode) = flags.permission_mode {
                    self.permission_mode_recorded(mode);
                }
                self.user_message(content, flags);
            }
            _ => {}
        }
    }

    /// Takes a recorded `token_count` into account.
    pub fn token_count(&mut self, info: &RecordedTokenUsage) {
        let Some(total) = info
            .model_context_window
            .or(self.default_context_window)
            .filter(|window| *window > 0)
        else {
            return;
        };
        let used = info.last_token_usage.context_occupancy();
        self.token_usage = Some(ContextTokenUsage {
            used,
            total,
            remaining: total.saturating_sub(used).max(0),
        });
    }

    fn function_call(&mut self, name: &str, arguments: &str, call_id: &str) {
        // Most calls are of tools the state does not follow: their arguments are not parsed.
        if !matches!(
            name,
            "TodoWrite"
                | "todo_write"
                | "update_plan"
                | "EnterPlanMode"
                | "enter_plan_mode"
                | "ExitPlanMode"
                | "exit_plan_mode"
                | "Bash"
                | "BashOutput"
                | "TaskOutput"
                | "KillShell"
                | "KillBash"
                | "Skill"
        ) {
            return;
        }
        let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
        let pending = match name {
            // agentctx-core's own tools carry snake_case names.
            "TodoWrite" | "todo_write" => {
                match serde_json::from_value::<TodoWriteArgs>(args) {
                    Ok(write) => self.write_todos(write.todos),
                    Err(error) => tracing::debug!(%error, "unreadable TodoWrite arguments"),
                }
                None
            }
            "update_plan" => {
                match serde_json::from_value::<UpdatePlanArgs>(args) {
                    Ok(update) => self.write_todos(
                        update
                            .plan
                            .into_iter()
                            .map(|step| TodoItem {
                                active_form: step.step.clone(),
                                content: step.step,
                                status: step.status,
                            })
                            .collect(),
                    ),
                    Err(error) => tracing::debug!(%error, "unreadable update_plan arguments"),
                }
                None
            }
            "EnterPlanMode" | "enter_plan_mode" => Some(PendingCall::EnterPlanMode),
            "ExitPlanMode" | "exit_plan_mode" => Some(PendingCall::ExitPlanMode),
            "Bash" if args.get("run_in_background").and_then(Value::as_bool) == Some(true) => {
                let command = string_field(&args, &["command"]).unwrap_or_default();
                let description =
                    string_field(&args, &["description"]).unwrap_or_else(|| command.clone());
                Some(PendingCall::BackgroundBash {
                    command,
                    description,
                })
            }
            "BashOutput" | "TaskOutput" => string_field(&args, &["bash_id", "task_id", "shell_id"])
                .map(|task_id| PendingCall::BashOutput { task_id }),
            "KillShell" | "KillBash" => string_field(&args, &["shell_id", "bash_id", "task_id"])
                .map(|task_id| PendingCall::KillShell { task_id }),
            "Skill" => string_field(&args, &["skill", "command", "name"])
                .map(|name| PendingCall::Skill { name }),
            _ => None,
        };
        if let Some(pending) = pending {
            self.pending.insert(call_id.to_string(), pending);
        }
    }

    fn write_todos(&mut self, items: Vec<TodoItem>) {
        self.todo = TodoState {
            items,
            last_write_turn: Some(self.turn),
            ..TodoState::default()
        };
    }

    /// The permission mode Claude Code recorded on a user message: plan mode entered or left
    /// with shift+tab shows up only here, not as a tool call.
    fn permission_mode_recorded(&mut self, mode: PermissionMode) {
        match (
            self.permission_mode == PermissionMode::Plan,
            mode == PermissionMode::Plan,
        ) {
            (false, true) => self.enter_plan_mode(),
            (true, false) => self.exit_plan_mode(),
            (false, false) | (true, true) => {}
        }
        self.permission_mode = mode;
    }

    fn enter_plan_mode(&mut self) {
        self.permission_mode = PermissionMode::Plan;
        self.plan.is_reentry = self.left_plan_mode;
        self.plan.just_exited = false;
    }

    fn exit_plan_mode(&mut self) {
        self.permission_mode = PermissionMode::Default;
        self.plan.is_reentry = false;
        self.plan.just_exited = true;
        self.left_plan_mode = true;
    }

    fn call_result(&mut self, call: PendingCall, call_id: &str, failed: bool, output: &str) {
        match call {
            PendingCall::EnterPlanMode
                if !failed
                    && !is_rejection(output)
                    && self.permission_mode != PermissionMode::Plan =>
            {
                self.enter_plan_mode();
            }
            // Claude Code offers ExitPlanMode only in plan mode, so an approved call means plan
            // mode was on even when the transcript does not show how it was entered.
            PendingCall::ExitPlanMode if !failed && !is_rejection(output) => {
                self.exit_plan_mode();
            }
            PendingCall::BackgroundBash {
                command,
                description,
            } if !failed => {
                let task_id = background_task_id(output).unwrap_or_else(|| call_id.to_string());
                self.background_tasks.retain(|task| task.task_id != task_id);
                self.background_tasks.push(BackgroundTaskInfo {
                    task_id,
                    task_type: BackgroundTaskType::Shell,
                    command: Some(command),
                    description,
                    status: BackgroundTaskStatus::Running,
                    exit_code: None,
                    output_len: 0,
                    delta_summary: None,
                    progress_message: None,
                });
            }
            PendingCall::BashOutput { task_id } if !failed => {
                let status = tag_value(output, "status").and_then(|status| match status {
                    "running" => Some(BackgroundTaskStatus::Running),
                    "completed" => Some(BackgroundTaskStatus::Completed),
                    "failed" => Some(BackgroundTaskStatus::Failed),
                    "killed" => Some(BackgroundTaskStatus::Killed),
                    _ => None,
                });
                let exit_code = tag_value(output, "exit_code").and_then(|code| code.parse().ok());
                if let Some(task) = self.task_mut(&task_id) {
                    if let Some(status) = status {
                        task.status = status;
                    }
                    if exit_code.is_some() {
                        task.exit_code = exit_code;
                    }
                }
            }
            PendingCall::KillShell { task_id } if !failed => {
                if let Some(task) = self.task_mut(&task_id) {
                    task.status = BackgroundTaskStatus::Killed;
                }
            }
            PendingCall::Skill { name } if !failed => {
                self.invoked_skills.push(InvokedSkill {
                    path: PathBuf::from(&name),
                    name,
                    content: String::new(),
                });
                self.awaiting_content = Some(AwaitingContent::Skill(self.invoked_skills.len() - 1));
            }
            _ => {}
        }
    }

    fn task_mut(&mut self, task_id: &str) -> Option<&mut BackgroundTaskInfo> {
        self.background_tasks
            .iter_mut()
            .find(|task| task.task_id == task_id)
    }

    fn user_message(&mut self, content: &[ContentItem], flags: ItemFlags) {
        let text = content
            .iter()
            .filter_map(ContentItem::as_text)
            .collect::<Vec<_>>()
            .join("\n");
        let awaiting = self.awaiting_content.take();
        if flags.injected {
            match awaiting {
                Some(AwaitingContent::Skill(index)) => {
                    if let Some(skill) = self.invoked_skills.get_mut(index) {
                        if let Some(path) = skill_path(&text) {
                            skill.path = path;
                        }
                        skill.content = text;
                    }
                }
                Some(AwaitingContent::SlashCommand(name)) => {
                    let path =
                        skill_path(&text).unwrap_or_else(|| PathBuf::from(format!("/{name}")));
                    self.invoked_skills.push(InvokedSkill {
                        name,
                        path,
                        content: text,
                    });
                }
                None => {}
            }
            return;
        }
        if let Some(name) = tag_value(&text, "command-name") {
            let name = name.trim_start_matches('/');
            if !name.is_empty() {
                self.awaiting_content = Some(AwaitingContent::SlashCommand(name.to_string()));
            }
        } else if awaiting.is_some() && text.trim().is_empty() {
            self.awaiting_content = awaiting;
        }
    }
}

fn string_field(args: &Value, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|name| args.get(name).and_then(Value::as_str))
        .map(str::to_string)
}

/// Whether a tool result says the user declined the call.
fn is_rejection(output: &str) -> bool {
    let lower = output.to_ascii_lowercase();
    lower.contains("doesn't want to proceed")
        || lower.contains("does not want to proceed")
        || lower.contains("user rejected")
        || lower.contains("tool use was rejected")
}

/// The id in Claude Code's `Command running in background with ID: <id>`.
fn background_task_id(output: &str) -> Option<String> {
    let (_, rest) = output.split_once("with ID:")?;
    let id: String = rest
        .trim_start()
        .chars()
        .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_' || *ch == '-')
        .collect();
    (!id.is_empty()).then_some(id)
}

/// The trimmed text of the first `<tag>…</tag>` in `text`.
fn tag_value<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = text.get(start..)?;
    let end = rest.find(&close)?;
    rest.get(..end).map(str::trim)
}

/// `<dir>/SKILL.md` from Claude Code's `Base directory for this skill: <dir>` line.
fn skill_path(text: &str) -> Option<PathBuf> {
    text.lines().find_map(|line| {
        line.trim()
            .strip_prefix("Base directory for this skill:")
            .map(str::trim)
            .filter(|dir| !dir.is_empty())
            .map(|dir| PathBuf::from(dir).join("SKILL.md"))
    })
}

#[cfg(test)]
#[path = "reminder_state_tests.rs"]
mod tests;
