//! The texts of a full compaction: the handoff prompt the model summarises with and the prefix
//! the summary carries into the new history, both codex's texts byte for byte, and the one line
//! of ours after the summary that says how to get back what the summary left out (see
//! docs/design/compaction.md, "Full compaction" and "Getting back what compaction removed").

use agentctx_protocol::ResponseItem;

/// The prompt appended as the last user message of the summary request.
pub const SUMMARIZATION_PROMPT: &str = include_str!("../templates/summary_prompt.md");

/// The frame put before the summary in the new history, so the model reads it as another
/// model's handoff and builds on it.
pub const SUMMARY_PREFIX: &str = agentctx_protocol::COMPACTION_SUMMARY_PREFIX;

/// The line after the summary: what it replaced is still on record, and `recall` returns it.
pub const SUMMARY_RECALL_NOTE: &str = "(The messages and tool results this summary replaced are still on record: call recall with a word, a path or an identifier to get their original text.)";

/// What the summary message says when the summariser returned nothing.
pub(crate) const EMPTY_SUMMARY: &str = "(no summary available)";

/// The summary message's text: the prefix, a newline, the summary, a blank line and
/// [`SUMMARY_RECALL_NOTE`]. A summary that already ends with the note (an earlier compaction's
/// summary message carried over) does not get it twice.
pub fn summary_text(summary: &str) -> String {
    let summary = summary.trim();
    let summary = summary
        .strip_suffix(SUMMARY_RECALL_NOTE)
        .map_or(summary, str::trim_end);
    let summary = if summary.is_empty() {
        EMPTY_SUMMARY
    } else {
        summary
    };
    format!("{SUMMARY_PREFIX}\n{summary}\n\n{SUMMARY_RECALL_NOTE}")
}

/// What the summariser wrote, from a summary message's text: without the prefix and its newline,
/// and without the blank line and [`SUMMARY_RECALL_NOTE`] after it. A text without the prefix is
/// returned as it is.
pub fn summary_body(text: &str) -> &str {
    let Some(body) = text
        .strip_prefix(SUMMARY_PREFIX)
        .and_then(|rest| rest.strip_prefix('\n'))
    else {
        return text;
    };
    body.strip_suffix(SUMMARY_RECALL_NOTE)
        .and_then(|rest| rest.strip_suffix("\n\n"))
        .unwrap_or(body)
}

/// True for the text of a summary message an earlier compaction wrote.
pub fn is_summary_text(text: &str) -> bool {
    text.strip_prefix(SUMMARY_PREFIX)
        .is_some_and(|rest| rest.starts_with('\n'))
}

/// True for a user message holding an earlier compaction's summary.
pub(crate) fn is_summary_message(item: &ResponseItem) -> bool {
    item.role() == Some("user")
        && item
            .message_text()
            .is_some_and(|text| is_summary_text(&text))
}

#[cfg(test)]
#[path = "summary_prompt_tests.rs"]
mod tests;
