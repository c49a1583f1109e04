//! What a summariser sees of a history, what counts as a usable summary, and which user
//! messages are the user's own words. The compaction tiers and the loop driver share these
//! rules, so they live once, here. See docs/design/compaction.md, "The message filter".

use agentctx_context::is_harness_user_text;
use agentctx_context::user_request_text;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::is_contextual_developer_fragment;

/// What replaces an image in the history sent to a summariser: the image costs tokens and the
/// summary is text, so the summariser only needs to know one was there.
pub(crate) const IMAGE_PLACEHOLDER: &str = "[image]";

/// Texts a failed summarisation request produces instead of a summary: codex-rs's placeholder
/// for an empty answer and the error texts Claude Code's API layer returns as the assistant's
/// message. Compared case-insensitively at the start of the cleaned text.
const FAILED_SUMMARY_PREFIXES: [&str; 4] = [
    "(no summary available)",
    "prompt is too long",
    "api error",
    "request timed out",
];

/// The history as a summariser must see it. Dropped: reasoning (opaque or private, and the
/// summary is about what was done), ghost snapshots (harness state, never model-visible),
/// server-side compaction blobs (only the server that made them can read them; one with a
/// readable copy is replaced by the copy, as an earlier summary), items of an
/// unknown type, injected messages, and the harness-written parts of messages (system
/// reminders, environment context, AGENTS.md instructions, skill bodies, turn-settings sections,
/// Claude Code's command output). A message left with no content is dropped. Images become the
/// `[image]` text. Tool calls, their outputs, and what the user and the assistant wrote stay, in
/// order.
pub fn filter_for_summarization(items: &[ResponseItem]) -> Vec<ResponseItem> {
    items.iter().filter_map(filter_item).collect()
}

fn filter_item(item: &ResponseItem) -> Option<ResponseItem> {
    match item {
        ResponseItem::Message {
            id,
            role,
            content,
            extra,
        } => {
            if item.is_injected() {
                return None;
            }
            let kept: Vec<ContentItem> = content
                .iter()
                .filter(|part| !is_harness_part(role, part))
                .map(|part| match part {
                    ContentItem::InputImage { .. } => ContentItem::input_text(IMAGE_PLACEHOLDER),
                    ContentItem::InputText { .. }
                    | ContentItem::OutputText { .. }
                    | ContentItem::Other(_) => part.clone(),
                })
                .collect();
            if kept.is_empty() {
                return None;
            }
            Some(ResponseItem::Message {
                id: id.clone(),
                role: role.clone(),
                content: kept,
                extra: extra.clone(),
            })
        }
        // Only the provider that wrote it reads a compaction item; what it stands for reaches
        // the summariser through its readable copy (an earlier summary), when it has one.
        ResponseItem::Compaction { .. } => item.readable_copy_message(),
        ResponseItem::Reasoning { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Other(_) => None,
        ResponseItem::LocalShellCall { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::WebSearchCall { .. } => Some(item.clone()),
    }
}

/// True when a content part was written by the harness rather than by the user or the model.
fn is_harness_part(role: &str, part: &ContentItem) -> bool {
    match role {
        "user" => part.as_text().is_some_and(is_harness_user_text),
        "developer" | "system" => is_contextual_developer_fragment(part),
        _ => false,
    }
}

/// True when `text` (the model's answer to a summarisation request) is a summary the history
/// can be replaced with: once its tags are cleaned ([`cleanup_summary_tags`]) it holds at least
/// one letter or digit, and it is not a failure text (codex-rs's "(no summary available)", a
/// "Prompt is too long" or "API Error" answer, a timeout). An answer that holds only an
/// `<analysis>` block is not a summary.
pub fn is_valid_summary(text: &str) -> bool {
    let cleaned = cleanup_summary_tags(text);
    if !cleaned.chars().any(char::is_alphanumeric) {
        return false;
    }
    let lowered = cleaned.to_lowercase();
    !FAILED_SUMMARY_PREFIXES
        .iter()
        .any(|prefix| lowered.starts_with(prefix))
}

/// The summary a model wrote, without the wrappers a summarisation prompt asks for: every
/// `<analysis>…</analysis>` block is removed (an unclosed one runs to the end: the model was cut
/// off while thinking), and when `<summary>` blocks are present only their contents are kept
/// (an unclosed one runs to the end), joined by a blank line. Tags are matched
/// case-insensitively. Runs of blank lines collapse to one and the result is trimmed.
pub fn cleanup_summary_tags(text: &str) -> String {
    let without_analysis = remove_blocks(text, "<analysis>", "</analysis>");
    let summaries = block_contents(&without_analysis, "<summary>", "</summary>");
    let body = if summaries.is_empty() {
        without_analysis
    } else {
        summaries
            .iter()
            .map(|summary| summary.trim())
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    collapse_blank_lines(body.trim())
}

/// The texts of the messages the user typed, oldest first, verbatim: `user` messages that are
/// not injected, with their harness-written parts left out (see [`filter_for_summarization`]);
/// a message with nothing left, and a summary an earlier compaction left (codex's handoff prefix
/// or Claude Code's continuation message), are skipped. Text parts of one message are joined by
/// a newline. The rule is the history digest's (`agentctx_context::user_request_text`), so the
/// offline summariser and the memory extraction see the same user messages.
pub fn collect_user_message_texts(items: &[ResponseItem]) -> Vec<String> {
    items.iter().filter_map(user_request_text).collect()
}

/// Finds `needle` (ASCII, lowercase) in `haystack` from byte `from`, ignoring ASCII case.
fn find_ignore_case(haystack: &str, needle: &str, from: usize) -> Option<usize> {
    let bytes = haystack.as_bytes();
    let needle = needle.as_bytes();
    if needle.is_empty() {
        return None;
    }
    let last = bytes.len().checked_sub(needle.len())?;
    (from..=last).find(|&start| {
        bytes
            .get(start..start + needle.len())
            .is_some_and(|window| window.eq_ignore_ascii_case(needle))
    })
}

/// `text` without its `open…close` blocks; an unclosed block runs to the end. Tags are ASCII,
/// so every cut falls on a char boundary.
fn remove_blocks(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    while let Some(start) = find_ignore_case(text, open, cursor) {
        out.push_str(text.get(cursor..start).unwrap_or_default());
        match find_ignore_case(text, close, start + open.len()) {
            Some(end) => cursor = end + close.len(),
            None => return out,
        }
    }
    out.push_str(text.get(cursor..).unwrap_or_default());
    out
}

/// The contents of every `open…close` block of `text`; an unclosed block runs to the end.
fn block_contents(text: &str, open: &str, close: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut cursor = 0;
    while let Some(start) = find_ignore_case(text, open, cursor) {
        let body_start = start + open.len();
        match find_ignore_case(text, close, body_start) {
            Some(end) => {
                blocks.push(text.get(body_start..end).unwrap_or_default().to_string());
                cursor = end + close.len();
            }
            None => {
                blocks.push(text.get(body_start..).unwrap_or_default().to_string());
                break;
            }
        }
    }
    blocks
}

/// `text` with every run of blank (whitespace-only) lines reduced to one empty line.
fn collapse_blank_lines(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut previous_blank = false;
    for line in text.lines() {
        let blank = line.trim().is_empty();
        if blank && previous_blank {
            continue;
        }
        out.push(if blank { "" } else { line.trim_end() });
        previous_blank = blank;
    }
    out.join("\n")
}

#[cfg(test)]
#[path = "message_filter_tests.rs"]
mod tests;
