//! Context restoration after a full compaction: what the summary cannot be trusted to carry
//! is put back as structured state — the most recently read files, the read-set ledger,
//! active todos, the plan file, invoked skills, background tasks and the critical instruction.
//! Each is a harness-injected `user` message wrapped in `<system-reminder>`, appended after the
//! summary. Texts and limits: docs/design/compaction.md, "Context restoration".

use std::path::PathBuf;

use agentctx_context::TruncationPolicy;
use agentctx_context::truncate_text;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use agentctx_protocol::XmlTag;
use agentctx_protocol::compact_file_reference_text;
use agentctx_protocol::invoked_skills_text;
use agentctx_protocol::plan_file_reference_text;

use crate::config::ContextRestorationConfig;
use crate::file_cache::FileCache;
use crate::file_cache::token_count;
use crate::read_ledger::ReadLedger;

const RESTORED_FILE: &str = include_str!("../templates/restored_file.md");
const RESTORED_TODOS: &str = include_str!("../templates/restored_todos.md");
const RESTORED_BACKGROUND_TASKS: &str = include_str!("../templates/restored_background_tasks.md");

/// The plan file of plan mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// Where it is.
    pub path: PathBuf,
    /// What it says.
    pub content: String,
}

/// A skill invoked in this session (defined in `agentctx-protocol`, shared with the reminders).
pub use agentctx_protocol::InvokedSkill;

/// A background task still tracked by the host (defined in `agentctx-protocol`, shared with the
/// reminders).
pub use agentctx_protocol::BackgroundTask;

/// What the host knows of the session, to restore after a full compaction.
#[derive(Debug, Clone, Copy, Default)]
pub struct RestorationInput<'a> {
    /// Recently read files.
    pub file_cache: Option<&'a FileCache>,
    /// Every file read, with content hashes.
    pub read_ledger: Option<&'a ReadLedger>,
    /// The todo list; restored when an item is not completed.
    pub todos: &'a [TodoItem],
    /// The plan file, if plan mode wrote one.
    pub plan: Option<&'a PlanFile>,
    /// Skills invoked this session.
    pub invoked_skills: &'a [InvokedSkill],
    /// Background tasks still tracked.
    pub background_tasks: &'a [BackgroundTask],
    /// The user's always-on instruction.
    pub critical_instruction: Option<&'a str>,
}

/// The items to append after the summary, and the files the host must mark as read again in
/// the reminder engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RestoredContext {
    /// Harness-injected `user` messages, in the order to append them.
    pub items: Vec<ResponseItem>,
    /// Files whose contents were restored (most recently read first).
    pub restored_files: Vec<PathBuf>,
    /// Recent files only named, because they did not fit the budget.
    pub referenced_files: Vec<PathBuf>,
    /// Approximate tokens of the restored file contents.
    pub file_tokens: usize,
}

/// Builds the restoration items: files, ledger, todos, plan, skills, background tasks, and the
/// critical instruction last, nearest to the next request.
pub fn restore_context(
    input: &RestorationInput<'_>,
    config: &ContextRestorationConfig,
) -> RestoredContext {
    let mut restored = RestoredContext::default();
    if let Some(cache) = input.file_cache {
        restore_files(cache, input.plan, config, &mut restored);
    }
    let mut push = |text: String| {
        let mut item = ResponseItem::user_text(XmlTag::SystemReminder.wrap(&text));
        item.set_injected(true);
        restored.items.push(item);
    };
    if let Some(listing) = input.read_ledger.and_then(ReadLedger::listing) {
        push(listing);
    }
    if let Some(text) = todos_text(input.todos) {
        push(text);
    }
    if let Some(plan) = input.plan {
        push(plan_file_reference_text(
            &plan.path.display().to_string(),
            &plan.content,
        ));
    }
    if !input.invoked_skills.is_empty() {
        push(invoked_skills_text(input.invoked_skills));
    }
    if !input.background_tasks.is_empty() {
        push(background_tasks_text(input.background_tasks));
    }
    if let Some(instruction) = input
        .critical_instruction
        .filter(|text| !text.trim().is_empty())
    {
        push(instruction.to_string());
    }
    restored
}

/// The newest cached files within the limits, the plan file excepted (it is restored as the
/// plan). A file that does not fit what is left of the budget is named instead.
fn restore_files(
    cache: &FileCache,
    plan: Option<&PlanFile>,
    config: &ContextRestorationConfig,
    restored: &mut RestoredContext,
) {
    let per_file_tokens = usize::try_from(config.per_file_limit_tokens).unwrap_or(usize::MAX);
    let budget_tokens = usize::try_from(config.total_budget_tokens).unwrap_or(usize::MAX);
    let candidates = cache
        .most_recent_first()
        .filter(|entry| plan.is_none_or(|plan| plan.path != entry.path))
        .take(config.max_files);
    for entry in candidates {
        let mut content = entry.content.clone();
        if entry.tokens > per_file_tokens {
            content = truncate_text(&content, TruncationPolicy::Tokens(per_file_tokens));
        }
        let tokens = token_count(&content);
        let path = entry.path.display().to_string();
        let text = if restored.file_tokens.saturating_add(tokens) > budget_tokens {
            restored.referenced_files.push(entry.path.clone());
            compact_file_reference_text(&path)
        } else {
            restored.file_tokens = restored.file_tokens.saturating_add(tokens);
            restored.restored_files.push(entry.path.clone());
            RESTORED_FILE
                .replace("{path}", &path)
                .replace("{content}", &content)
        };
        let mut item = ResponseItem::user_text(XmlTag::SystemReminder.wrap(&text));
        item.set_injected(true);
        restored.items.push(item);
    }
}

/// The file a restored-file item of an earlier compaction put back, and the contents it
/// carried (as [`restore_context`] wrote them: possibly cut to the per-file limit), from the
/// item's text; `None` for any other text. A resumed session reads the files it had been shown
/// back from these (see docs/design/engine.md, "Recorded reads").
pub fn restored_file_of(text: &str) -> Option<(PathBuf, String)> {
    let (before_path, after_path) = RESTORED_FILE.split_once("{path}")?;
    let (between, after_content) = after_path.split_once("{content}")?;
    let inner = text
        .strip_prefix(agentctx_protocol::SYSTEM_REMINDER_OPEN_TAG)?
        .strip_prefix('\n')?
        .strip_suffix(agentctx_protocol::SYSTEM_REMINDER_CLOSE_TAG)?
        .strip_suffix('\n')?;
    let rest = inner.strip_prefix(before_path)?;
    let (path, content) = rest.split_once(between)?;
    let content = content.strip_suffix(after_content)?;
    (!path.is_empty() && !path.contains('\n')).then(|| (PathBuf::from(path), content.to_string()))
}

fn todos_text(todos: &[TodoItem]) -> Option<String> {
    if todos
        .iter()
        .all(|todo| todo.status == TodoStatus::Completed)
    {
        return None;
    }
    let list = todos
        .iter()
        .enumerate()
        .map(|(index, todo)| format!("{}. [{}] {}", index + 1, todo.status.as_str(), todo.content))
        .collect::<Vec<_>>()
        .join("\n");
    Some(RESTORED_TODOS.replace("{list}", &list))
}

fn background_tasks_text(tasks: &[BackgroundTask]) -> String {
    let lines = tasks
        .iter()
        .map(|task| {
            format!(
                "- {}: {} (status: {})",
                task.task_id,
                task.description,
                task.status.as_str()
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    RESTORED_BACKGROUND_TASKS.replace("{lines}", &lines)
}

#[cfg(test)]
#[path = "restoration_tests.rs"]
mod tests;
