//! The summariser that needs no model: a structured handoff built from the history's digest.
//!
//! It is the fallback when no model is configured or the model fails, so compaction never
//! blocks a session. It lays the facts of [`HistoryDigest`] out in the sections a good model
//! summary has, fits them into a token budget by cutting the longest sections first (never the
//! latest user request while it fits on its own), and gives the same bytes for the same history.
//! See docs/design/compaction.md, "The history digest and the offline summariser".

use std::collections::VecDeque;

use agentctx_context::HistoryDigest;
use agentctx_context::approx_token_count;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;

/// The first line of every offline summary: the next model must know no model wrote it.
pub(crate) const OFFLINE_SUMMARY_HEADER: &str =
    "This summary was built without a model, from the session's own record of what happened.";

/// Bytes per token of the budget: the same heuristic as `approx_token_count`.
const BYTES_PER_TOKEN: usize = 4;
/// An entry is not shortened below this many characters; below it the entry goes whole.
const MIN_ENTRY_CHARS: usize = 80;

/// A deterministic, structured handoff of `items` within `max_tokens` (approximate tokens:
/// bytes / 4, rounded up). Sections: primary request and intent, key technical concepts, files
/// and code sections, errors and fixes, problem solving, all user messages, pending tasks,
/// current work, next step, and the summary an earlier compaction left, if any. Never panics;
/// the same history always gives the same bytes.
pub fn summarize_offline(items: &[ResponseItem], max_tokens: usize) -> String {
    let digest = HistoryDigest::from_items(items);
    let mut sections = build_sections(&digest);
    fit(&mut sections, max_tokens.saturating_mul(BYTES_PER_TOKEN));
    let rendered = render(&sections);
    enforce_budget(rendered, max_tokens)
}

/// One section: a heading and its entries, oldest first. Cutting drops the oldest entries (from
/// the front of a queue: a section of thousands of entries is cut one entry at a time).
#[derive(Debug)]
struct Section {
    heading: &'static str,
    entries: VecDeque<String>,
    /// Bytes of the entries, kept up to date so a cut costs no re-rendering.
    entry_bytes: usize,
    /// Entries dropped from the front to fit the budget.
    omitted: usize,
    /// The text when the section has no entries.
    empty_text: &'static str,
    /// True when the last entry (the latest user request) must survive the cuts.
    protect_last: bool,
}

impl Section {
    fn new(heading: &'static str, entries: Vec<String>, empty_text: &'static str) -> Self {
        let entry_bytes = entries.iter().map(String::len).sum();
        Self {
            heading,
            entries: entries.into(),
            entry_bytes,
            omitted: 0,
            empty_text,
            protect_last: false,
        }
    }

    /// The length of [`render_section`]'s text, without rendering it.
    fn size(&self) -> usize {
        let marker = if self.omitted > 0 {
            omission_marker_len(self.omitted) + 1
        } else {
            0
        };
        let body = if self.entries.is_empty() {
            if self.empty_text.is_empty() || self.omitted > 0 {
                0
            } else {
                self.empty_text.len() + 1
            }
        } else {
            self.entry_bytes + self.entries.len()
        };
        self.heading.len() + marker + body
    }

    /// Makes the section smaller by one step: the oldest entry goes while there are several,
    /// a last unprotected entry is halved, then dropped. False when nothing can be cut.
    fn cut(&mut self) -> bool {
        if self.entries.len() > 1
            && let Some(removed) = self.entries.pop_front()
        {
            self.entry_bytes -= removed.len();
            self.omitted += 1;
            return true;
        }
        if self.protect_last || self.entries.is_empty() {
            return false;
        }
        if !self.halve_last() {
            self.entries.clear();
            self.entry_bytes = 0;
            self.omitted += 1;
        }
        true
    }

    /// Shortens the protected entry, the last resort when it alone does not fit.
    fn cut_protected(&mut self) -> bool {
        self.protect_last && self.halve_last()
    }

    /// Halves the last entry, keeping its start and end; false when it is already short.
    fn halve_last(&mut self) -> bool {
        let Some(entry) = self.entries.back_mut() else {
            return false;
        };
        let chars = entry.chars().count();
        if chars <= MIN_ENTRY_CHARS {
            return false;
        }
        let before = entry.len();
        *entry = shorten(entry, chars / 2);
        self.entry_bytes = self.entry_bytes - before + entry.len();
        true
    }
}

fn build_sections(digest: &HistoryDigest) -> Vec<Section> {
    let mut primary = Section::new(
        "1. Primary Request and Intent:",
        Vec::new(),
        "No user request was recorded.",
    );
    match digest.user_requests.as_slice() {
        [] => {}
        [only] => {
            primary = Section::new(
                primary.heading,
                vec![format!("The user's request, verbatim:\n{only}")],
                primary.empty_text,
            );
            primary.protect_last = true;
        }
        [first, .., latest] => {
            primary = Section::new(
                primary.heading,
                vec![
                    format!("The session started with:\n  {}", indent(first)),
                    format!("The latest request, verbatim:\n{latest}"),
                ],
                primary.empty_text,
            );
            primary.protect_last = true;
        }
    }

    let concepts = Section::new(
        "2. Key Technical Concepts:",
        digest
            .concepts
            .iter()
            .map(|concept| format!("- `{concept}`"))
            .collect(),
        "None recorded.",
    );

    let mut files = Vec::new();
    files.extend(
        digest
            .files_read
            .iter()
            .filter(|path| !digest.files_modified.contains(path))
            .map(|path| format!("- read: {path}")),
    );
    files.extend(
        digest
            .files_modified
            .iter()
            .map(|path| format!("- modified: {path}")),
    );
    let files = Section::new(
        "3. Files and Code Sections:",
        files,
        "No files were read or modified.",
    );

    let errors = Section::new(
        "4. Errors and Fixes:",
        digest
            .errors
            .iter()
            .map(|error| {
                let outcome = if error.resolved {
                    "later succeeded"
                } else {
                    "not resolved"
                };
                format!("- {}: {} ({outcome})", error.source, error.message)
            })
            .collect(),
        "No errors were met.",
    );

    // Commands first, decisions last: cutting drops the oldest entries, and a decision says
    // more about the work than the command that ran before it.
    let mut solving: Vec<String> = digest
        .commands
        .iter()
        .map(|run| {
            let outcome = match (run.exit_code, run.failed) {
                (Some(code), _) => format!("exit {code}"),
                (None, true) => "failed".to_string(),
                (None, false) => "ok".to_string(),
            };
            format!("- ran `{}` ({outcome})", run.command)
        })
        .collect();
    solving.extend(
        digest
            .decisions
            .iter()
            .map(|decision| format!("- decided: {decision}")),
    );
    let solving = Section::new(
        "5. Problem Solving:",
        solving,
        "No decisions or commands were recorded.",
    );

    let messages = Section::new(
        "6. All User Messages:",
        digest
            .user_requests
            .iter()
            .map(|request| format!("- {}", indent(request)))
            .collect(),
        "None.",
    );

    let pending = Section::new(
        "7. Pending Tasks:",
        digest
            .todos
            .iter()
            .filter(|todo| todo.status != TodoStatus::Completed)
            .map(|todo| format!("- [{}] {}", todo.status.as_str(), todo.content))
            .collect(),
        "No open todo items.",
    );

    let mut current = Vec::new();
    if let Some(message) = &digest.last_assistant_message {
        current.push(format!(
            "The assistant's last message:\n{}",
            indent_all(message)
        ));
    }
    let current = Section::new("8. Current Work:", current, "Nothing recorded.");

    let next = Section::new("9. Next Step:", vec![next_step(digest)], "");

    let earlier = Section::new(
        "10. Summary Left by an Earlier Compaction:",
        digest.prior_summaries.last().cloned().into_iter().collect(),
        "None.",
    );

    vec![
        primary, concepts, files, errors, solving, messages, pending, current, next, earlier,
    ]
}

/// The next step: the todo in progress, else the first pending one, else the latest request
/// when the assistant has not answered it since, else waiting for the user.
fn next_step(digest: &HistoryDigest) -> String {
    let first_with = |status: TodoStatus| -> Option<&TodoItem> {
        digest.todos.iter().find(|todo| todo.status == status)
    };
    if digest.user_requests.is_empty() && digest.todos.is_empty() {
        return "Wait for the user's first request.".to_string();
    }
    if let Some(todo) = first_with(TodoStatus::InProgress) {
        return format!("Continue the task in progress: {}", todo.content);
    }
    if let Some(todo) = first_with(TodoStatus::Pending) {
        return format!("Start the next pending task: {}", todo.content);
    }
    if !digest.user_requests.is_empty() && !digest.latest_request_answered {
        return "Answer the latest request (section 1).".to_string();
    }
    "Check the latest request (section 1) is done; if it is, wait for the user.".to_string()
}

/// Cuts the largest section until everything fits in `max_bytes`.
fn fit(sections: &mut [Section], max_bytes: usize) {
    let separators = OFFLINE_SUMMARY_HEADER.len() + 2 * sections.len();
    loop {
        let total: usize = separators + sections.iter().map(Section::size).sum::<usize>();
        if total <= max_bytes {
            return;
        }
        let mut order: Vec<usize> = (0..sections.len()).collect();
        // Largest first; ties go to the later section (less central to the handoff).
        order.sort_by_key(|&at| {
            (
                std::cmp::Reverse(sections.get(at).map_or(0, Section::size)),
                std::cmp::Reverse(at),
            )
        });
        let cut = order
            .iter()
            .any(|&at| sections.get_mut(at).is_some_and(Section::cut))
            || order
                .iter()
                .any(|&at| sections.get_mut(at).is_some_and(Section::cut_protected));
        if !cut {
            return;
        }
    }
}

fn render(sections: &[Section]) -> String {
    let mut out = String::from(OFFLINE_SUMMARY_HEADER);
    for section in sections {
        out.push_str("\n\n");
        out.push_str(&render_section(section));
    }
    out
}

fn render_section(section: &Section) -> String {
    let mut out = String::from(section.heading);
    if section.omitted > 0 {
        out.push('\n');
        out.push_str(&omission_marker(section.omitted));
    }
    if section.entries.is_empty() {
        if !section.empty_text.is_empty() && section.omitted == 0 {
            out.push('\n');
            out.push_str(section.empty_text);
        }
        return out;
    }
    for entry in &section.entries {
        out.push('\n');
        out.push_str(entry);
    }
    out
}

/// The marker of one entry left out.
const ONE_OMITTED: &str = "(1 earlier entry left out to fit the budget)";
/// The marker of several entries left out, after their number.
const MANY_OMITTED: &str = " earlier entries left out to fit the budget)";

fn omission_marker(omitted: usize) -> String {
    if omitted == 1 {
        ONE_OMITTED.to_string()
    } else {
        format!("({omitted}{MANY_OMITTED}")
    }
}

/// The length of [`omission_marker`]'s text, without writing it (the budget is checked after
/// every entry cut).
fn omission_marker_len(omitted: usize) -> usize {
    if omitted == 1 {
        ONE_OMITTED.len()
    } else {
        let digits = omitted.checked_ilog10().map_or(1, |log| log as usize + 1);
        1 + digits + MANY_OMITTED.len()
    }
}

/// The whole summary within the budget: when even the smallest layout is too big (a tiny
/// budget), the text is cut at the last char boundary that fits.
fn enforce_budget(text: String, max_tokens: usize) -> String {
    if approx_token_count(&text) <= max_tokens as u64 {
        return text;
    }
    let mut end = max_tokens.saturating_mul(BYTES_PER_TOKEN).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default().to_string()
}

/// `text` with its middle replaced by a marker, keeping about `keep_chars` characters.
fn shorten(text: &str, keep_chars: usize) -> String {
    let head_chars = keep_chars.div_ceil(2);
    let tail_chars = keep_chars / 2;
    let total = text.chars().count();
    // Cut at the characters' byte offsets rather than collecting them one by one.
    let offset = |chars: usize| {
        text.char_indices()
            .nth(chars)
            .map_or(text.len(), |(at, _)| at)
    };
    let head = text.get(..offset(head_chars)).unwrap_or_default();
    let tail = text
        .get(offset(total.saturating_sub(tail_chars))..)
        .unwrap_or_default();
    format!("{head} […] {tail}")
}

/// Continuation lines indented by two spaces, so a list entry stays one entry.
fn indent(text: &str) -> String {
    text.replace('\n', "\n  ")
}

/// Every line indented by two spaces.
fn indent_all(text: &str) -> String {
    format!("  {}", indent(text))
}

#[cfg(test)]
#[path = "offline_summary_tests.rs"]
mod tests;
