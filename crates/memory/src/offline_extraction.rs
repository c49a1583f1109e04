//! Phase 1 without a model: a deterministic raw memory and rollout summary built from the
//! session's [`HistoryDigest`] (the facts compaction's offline summariser also uses): the task
//! as the user stated it, the preferences they stated, files read and modified, commands and
//! how they ended, errors and whether a later step resolved them. See docs/design/memory.md,
//! "Offline extraction".

use agentctx_context::HistoryDigest;
use agentctx_context::clip_one_line;
use agentctx_protocol::ResponseItem;

use crate::state_db::Stage1Output;
use crate::state_db::ThreadRecord;
use crate::storage::normalize_slug;

/// Most commands listed in a raw memory (the newest).
const MAX_LISTED_COMMANDS: usize = 15;
/// Most files listed per kind.
const MAX_LISTED_FILES: usize = 20;
/// Most errors listed (the newest).
const MAX_LISTED_ERRORS: usize = 10;
/// Most decisions listed (the newest).
const MAX_LISTED_DECISIONS: usize = 8;
/// Most follow-up requests listed.
const MAX_LISTED_REQUESTS: usize = 8;
/// Longest request quoted, in characters.
const MAX_REQUEST_CHARS: usize = 400;
/// Words of the first request that make the slug.
const SLUG_WORDS: usize = 6;

/// How a task ended, as far as the digest tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The last command succeeded and no error is left unresolved.
    Success,
    /// Some work succeeded but an error was left unresolved.
    Partial,
    /// Errors were met and nothing succeeded after them.
    Fail,
    /// Nothing ran that tells (no commands).
    Uncertain,
}

impl Outcome {
    /// The word used in memories.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Partial => "partial",
            Self::Fail => "fail",
            Self::Uncertain => "uncertain",
        }
    }

    /// The outcome the digest supports.
    pub fn of(digest: &HistoryDigest) -> Self {
        let unresolved = digest.errors.iter().filter(|e| !e.resolved).count();
        let last_ok = digest.commands.last().map(|c| !c.failed);
        let did_work =
            !digest.files_modified.is_empty() || digest.commands.iter().any(|c| !c.failed);
        match (unresolved, last_ok) {
            (0, Some(true)) => Self::Success,
            (0, _) if !digest.files_modified.is_empty() => Self::Success,
            (0, _) => Self::Uncertain,
            (_, _) if did_work => Self::Partial,
            _ => Self::Fail,
        }
    }
}

/// The offline stage-1 output of a session; `None` when the no-op gate holds: no user request,
/// or nothing done and nothing stated a future agent could act on (no tool call, no file, no
/// preference).
pub fn extract_offline(thread: &ThreadRecord, items: &[ResponseItem]) -> Option<Stage1Output> {
    let digest = HistoryDigest::from_items(items);
    let first = digest.user_requests.first()?;
    let nothing_done = digest.tool_calls == 0
        && digest.files_read.is_empty()
        && digest.files_modified.is_empty()
        && digest.preferences.is_empty();
    if nothing_done {
        return None;
    }
    let title = clip_one_line(first, 120);
    let outcome = Outcome::of(&digest);
    Some(Stage1Output {
        raw_memory: raw_memory(thread, &digest, &title, outcome),
        rollout_summary: rollout_summary(&digest, &title, outcome),
        rollout_slug: Some(slug_of(first)).filter(|slug| !slug.is_empty()),
    })
}

fn raw_memory(
    thread: &ThreadRecord,
    digest: &HistoryDigest,
    title: &str,
    outcome: Outcome,
) -> String {
    let mut out = String::new();
    out.push_str("---\n");
    out.push_str(&format!("description: {title}\n"));
    out.push_str(&format!("keywords: {}\n", keywords(digest).join(", ")));
    out.push_str("---\n");
    out.push_str(&format!("# {title}\n\n"));
    let mut context = format!(
        "Memory context: cwd {}",
        thread.cwd.as_deref().unwrap_or("unknown")
    );
    if let Some(branch) = &thread.git_branch {
        context.push_str(&format!(", branch {branch}"));
    }
    if let Some(source) = &thread.source {
        context.push_str(&format!(", source {source}"));
    }
    out.push_str(&context);
    out.push_str("\n\nUser preferences:\n");
    if digest.preferences.is_empty() {
        out.push_str("- none stated\n");
    }
    for preference in &digest.preferences {
        out.push_str(&format!("- {preference}\n"));
    }
    let first = digest
        .user_requests
        .first()
        .map(String::as_str)
        .unwrap_or_default();
    out.push_str(&format!(
        "\n## Task: {}\n",
        clip_one_line(first, MAX_REQUEST_CHARS)
    ));
    out.push_str(&format!("Outcome: {}\n", outcome.as_str()));
    let follow_ups: Vec<&String> = digest.user_requests.iter().skip(1).collect();
    if !follow_ups.is_empty() {
        out.push_str("Follow-up requests:\n");
        for request in follow_ups.iter().rev().take(MAX_LISTED_REQUESTS).rev() {
            out.push_str(&format!(
                "- {}\n",
                clip_one_line(request, MAX_REQUEST_CHARS)
            ));
        }
    }
    out.push_str("Key steps:\n");
    let commands = newest(&digest.commands, MAX_LISTED_COMMANDS);
    if commands.is_empty() && digest.files_modified.is_empty() {
        out.push_str("- no commands run\n");
    }
    for command in commands {
        let ending = match (command.failed, command.exit_code) {
            (true, Some(code)) => format!("failed, exit {code}"),
            (true, None) => "failed".to_string(),
            (false, Some(code)) => format!("exit {code}"),
            (false, None) => "ok".to_string(),
        };
        out.push_str(&format!("- `{}` ({ending})\n", command.command));
    }
    for path in newest(&digest.files_modified, MAX_LISTED_FILES) {
        out.push_str(&format!("- modified `{path}`\n"));
    }
    out.push_str("Failures and how they were resolved:\n");
    let errors = newest(&digest.errors, MAX_LISTED_ERRORS);
    if errors.is_empty() {
        out.push_str("- none\n");
    }
    for error in errors {
        let resolution = if error.resolved {
            "resolved by a later successful run"
        } else {
            "unresolved"
        };
        out.push_str(&format!(
            "- `{}`: {} -> {resolution}\n",
            error.source, error.message
        ));
    }
    out.push_str("Reusable knowledge:\n");
    let decisions = newest(&digest.decisions, MAX_LISTED_DECISIONS);
    if decisions.is_empty() {
        out.push_str("- none recorded\n");
    }
    for decision in decisions {
        out.push_str(&format!("- {decision}\n"));
    }
    out.push_str("Pointers:\n");
    let read = newest(&digest.files_read, MAX_LISTED_FILES);
    let changed = newest(&digest.files_modified, 5);
    if read.is_empty() && changed.is_empty() {
        out.push_str("- none\n");
    }
    for path in changed {
        out.push_str(&format!("- changed `{path}`\n"));
    }
    for path in read {
        out.push_str(&format!("- read `{path}`\n"));
    }
    out
}

fn rollout_summary(digest: &HistoryDigest, title: &str, outcome: Outcome) -> String {
    let failed = digest.commands.iter().filter(|c| c.failed).count();
    let mut out = format!("The user asked: {title}\n\n");
    out.push_str(&format!(
        "The agent made {} tool calls and ran {} commands ({failed} failed), read {} files and modified {}.",
        digest.tool_calls,
        digest.commands.len(),
        digest.files_read.len(),
        digest.files_modified.len(),
    ));
    let modified = newest(&digest.files_modified, 5);
    if !modified.is_empty() {
        let list: Vec<String> = modified.iter().map(|p| format!("`{p}`")).collect();
        out.push_str(&format!(" Changed: {}.", list.join(", ")));
    }
    let unresolved: Vec<_> = digest.errors.iter().filter(|e| !e.resolved).collect();
    let resolved = digest.errors.len() - unresolved.len();
    if !digest.errors.is_empty() {
        out.push_str(&format!(
            " Errors met: {} ({resolved} resolved).",
            digest.errors.len()
        ));
    }
    if let Some(error) = unresolved.last() {
        out.push_str(&format!(
            " Last unresolved: `{}`: {}.",
            error.source,
            clip_one_line(&error.message, 160)
        ));
    }
    out.push_str(&format!(" Outcome: {}.", outcome.as_str()));
    if let Some(last) = &digest.last_assistant_message {
        out.push_str(&format!("\n\nLast reply: {}", clip_one_line(last, 300)));
    }
    out.push('\n');
    out
}

/// Search handles: code spans, the names of files touched and the programs run.
fn keywords(digest: &HistoryDigest) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut add = |word: String| {
        if !word.is_empty() && !words.contains(&word) && words.len() < 20 {
            words.push(word);
        }
    };
    for concept in digest.concepts.iter().take(8) {
        add(concept.clone());
    }
    for path in digest
        .files_modified
        .iter()
        .rev()
        .chain(digest.files_read.iter().rev())
    {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        add(name.to_string());
    }
    for command in digest.commands.iter().rev() {
        let head: Vec<&str> = command.command.split_whitespace().take(2).collect();
        add(head.join(" "));
    }
    words.into_iter().map(|w| w.replace(',', " ")).collect()
}

/// The slug of a request: its first words, lowercased, joined by `_`.
fn slug_of(request: &str) -> String {
    let words: Vec<String> = request
        .split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .take(SLUG_WORDS)
        .collect();
    normalize_slug(&words.join("_"))
}

fn newest<T>(list: &[T], count: usize) -> &[T] {
    list.get(list.len().saturating_sub(count)..).unwrap_or(list)
}

#[cfg(test)]
#[path = "offline_extraction_tests.rs"]
mod tests;
