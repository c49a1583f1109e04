//! Context restoration after a full compaction: what the summary cannot be trusted to carry
//! is put back as structured state — the files the session most likely needs next, a note
//! naming the files read but not restored with the way to get them back, the read-set ledger,
//! active todos, the plan file, invoked skills, background tasks and the critical instruction.
//! Each is a harness-injected `user` message wrapped in `<system-reminder>`, appended after the
//! summary. Texts and limits: docs/design/compaction.md, "Context restoration" and "Getting
//! back what compaction removed".

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
use crate::file_cache::CachedFile;
use crate::file_cache::FileCache;
use crate::file_cache::token_count;
use crate::read_ledger::ReadLedger;
use crate::read_ledger::content_hash;

const RESTORED_FILE: &str = include_str!("../templates/restored_file.md");
const RESTORED_TODOS: &str = include_str!("../templates/restored_todos.md");
const RESTORED_BACKGROUND_TASKS: &str = include_str!("../templates/restored_background_tasks.md");
const UNRESTORED_FILES: &str = include_str!("../templates/unrestored_files.md");

/// The user's last messages whose file names make a file more likely to be needed next.
const RECENT_USER_MESSAGES: usize = 3;
/// The most files the note on files not restored names; it says how many more there are.
const MAX_UNRESTORED_NAMED: usize = 10;
/// How much one step back in the order of touches weighs less than the step after it.
const RECENCY_DECAY: f64 = 0.8;
/// The weight of a file the model last read, and of one it changed since it last read it (an
/// edit says more about the work in flight than a read).
const READ_WEIGHT: f64 = 1.0;
const EDIT_WEIGHT: f64 = 2.0;
/// What a file named in an open todo, or in one of the user's last messages, adds.
const NAMED_IN_TODO: f64 = 1.5;
const NAMED_BY_USER: f64 = 1.5;

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
    /// The messages the user typed, oldest first (`collect_user_message_texts` of the history
    /// compacted): a file the last few name is restored before others.
    pub user_messages: &'a [String],
}

/// The items to append after the summary, and the files the host must mark as read again in
/// the reminder engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RestoredContext {
    /// Harness-injected `user` messages, in the order to append them.
    pub items: Vec<ResponseItem>,
    /// Files whose contents were restored, most likely needed first.
    pub restored_files: Vec<PathBuf>,
    /// Recent files only named, because they did not fit the budget.
    pub referenced_files: Vec<PathBuf>,
    /// The other files read this session (cached or in the ledger), named in one note with the
    /// way to get them back; newest first.
    pub unrestored_files: Vec<PathBuf>,
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
        restore_files(input, cache, config, &mut restored);
    }
    if let Some(text) = unrestored_files_text(input, &mut restored) {
        let mut item = ResponseItem::user_text(XmlTag::SystemReminder.wrap(&text));
        item.set_injected(true);
        restored.items.push(item);
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

/// The cached files most likely needed next ([`rank_files`]) within the limits, the plan file
/// excepted (it is restored as the plan). A file that does not fit what is left of the budget
/// is named instead.
fn restore_files(
    input: &RestorationInput<'_>,
    cache: &FileCache,
    config: &ContextRestorationConfig,
    restored: &mut RestoredContext,
) {
    let per_file_tokens = usize::try_from(config.per_file_limit_tokens).unwrap_or(usize::MAX);
    let budget_tokens = usize::try_from(config.total_budget_tokens).unwrap_or(usize::MAX);
    let candidates = rank_files(input, cache)
        .into_iter()
        .filter(|entry| input.plan.is_none_or(|plan| plan.path != entry.path))
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

/// The cached files, most likely needed next first. A file's score is the weight of its last
/// touch — [`EDIT_WEIGHT`] when the model changed it since it last read it (the cache holds
/// what it wrote, which is not what the ledger's last read hashed), else [`READ_WEIGHT`] —
/// times [`RECENCY_DECAY`] to the power of how many files were touched after it, plus
/// [`NAMED_IN_TODO`] when a todo not completed names it and [`NAMED_BY_USER`] when one of the
/// user's last [`RECENT_USER_MESSAGES`] messages does. Equal scores keep the newest first.
pub(crate) fn rank_files<'c>(
    input: &RestorationInput<'_>,
    cache: &'c FileCache,
) -> Vec<&'c CachedFile> {
    let open_todos: Vec<String> = input
        .todos
        .iter()
        .filter(|todo| todo.status != TodoStatus::Completed)
        .map(|todo| todo.content.to_lowercase())
        .collect();
    let user_texts: Vec<String> = input
        .user_messages
        .iter()
        .rev()
        .take(RECENT_USER_MESSAGES)
        .map(|text| text.to_lowercase())
        .collect();
    let mut scored: Vec<(f64, &CachedFile)> = cache
        .most_recent_first()
        .zip(0_i32..)
        .map(|(entry, age)| {
            let weight = if was_edited(entry, input.read_ledger) {
                EDIT_WEIGHT
            } else {
                READ_WEIGHT
            };
            let mut score = weight * RECENCY_DECAY.powi(age);
            if open_todos.iter().any(|text| names_file(text, &entry.path)) {
                score += NAMED_IN_TODO;
            }
            if user_texts.iter().any(|text| names_file(text, &entry.path)) {
                score += NAMED_BY_USER;
            }
            (score, entry)
        })
        .collect();
    // A stable sort: equal scores keep the cache's order, newest first.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().map(|(_, entry)| entry).collect()
}

/// Whether the model changed `entry` since it last read it: the cache holds what it last saw
/// of the file, which after a write is what it wrote; the ledger holds the hash of its last
/// read. A file cut to the cache's per-file limit cannot be compared and counts as read unless
/// the ledger never saw it read.
fn was_edited(entry: &CachedFile, ledger: Option<&ReadLedger>) -> bool {
    let Some(ledger) = ledger else {
        return false;
    };
    match ledger.get(&entry.path) {
        None => true,
        Some(_) if entry.truncated => false,
        Some(read) => read.content_hash != content_hash(&entry.content),
    }
}

/// Whether `text` (lowercase) names `path`: its file name when that has an extension
/// (`parser.rs`), else its last two components (`src/Makefile`), standing as a word of its own
/// (not inside a longer name: `myparser.rs` does not name `parser.rs`).
pub(crate) fn names_file(text: &str, path: &std::path::Path) -> bool {
    let Some(name) = path
        .file_name()
        .map(|name| name.to_string_lossy().to_lowercase())
    else {
        return false;
    };
    let needle = if name.contains('.') && name.len() > 2 {
        name
    } else {
        let Some(parent) = path
            .parent()
            .and_then(|parent| parent.file_name())
            .map(|parent| parent.to_string_lossy().to_lowercase())
        else {
            return false;
        };
        format!("{parent}/{name}")
    };
    let is_name_char = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(&needle).any(|(start, _)| {
        let before = text[..start].chars().next_back();
        let after = text[start + needle.len()..].chars().next();
        before.is_none_or(|c| !is_name_char(c) && c != '.')
            && after.is_none_or(|c| !is_name_char(c))
    })
}

/// The note naming the files read this session whose contents were not restored (neither put
/// back nor named as too large), newest first, with the two ways to get one back; `None` when
/// there are none. Records them in `restored.unrestored_files`.
fn unrestored_files_text(
    input: &RestorationInput<'_>,
    restored: &mut RestoredContext,
) -> Option<String> {
    let handled = |path: &std::path::Path| {
        restored.restored_files.iter().any(|done| done == path)
            || restored.referenced_files.iter().any(|done| done == path)
            || input.plan.is_some_and(|plan| plan.path == path)
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut add = |path: &std::path::Path| {
        if !handled(path) && !paths.iter().any(|known| known == path) {
            paths.push(path.to_path_buf());
        }
    };
    if let Some(cache) = input.file_cache {
        for entry in cache.most_recent_first() {
            add(&entry.path);
        }
    }
    if let Some(ledger) = input.read_ledger {
        let mut read: Vec<(&std::path::Path, u64)> = ledger
            .paths()
            .filter_map(|path| ledger.get(path).map(|entry| (path, entry.last_read)))
            .collect();
        read.sort_by_key(|(_, last_read)| std::cmp::Reverse(*last_read));
        for (path, _) in read {
            add(path);
        }
    }
    if paths.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = paths
        .iter()
        .take(MAX_UNRESTORED_NAMED)
        .map(|path| format!("- {}", path.display()))
        .collect();
    if paths.len() > MAX_UNRESTORED_NAMED {
        lines.push(format!(
            "- … and {} more (the list of files you read names them all)",
            paths.len() - MAX_UNRESTORED_NAMED
        ));
    }
    restored.unrestored_files = paths;
    Some(UNRESTORED_FILES.replace("{lines}", &lines.join("\n")))
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
