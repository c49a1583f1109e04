//! The texts of a full compaction: the handoff prompt the model summarises with and the prefix
//! the summary carries into the new history. Both are codex's texts byte for byte (see
//! docs/design/compaction.md, "Full compaction").

use agentctx_protocol::ResponseItem;

/// The prompt appended as the last user message of the summary request.
pub const SUMMARIZATION_PROMPT: &str = include_str!("../templates/summary_prompt.md");

/// The frame put before the summary in the new history, so the model reads it as another
/// model's handoff and builds on it.
pub const SUMMARY_PREFIX: &str = agentctx_protocol::COMPACTION_SUMMARY_PREFIX;

/// What the summary message says when the summariser returned nothing.
pub(crate) const EMPTY_SUMMARY: &str = "(no summary available)";

/// The summary message's text: the prefix, a newline, the summary.
pub fn summary_text(summary: &str) -> String {
    let summary = summary.trim();
    let summary = if summary.is_empty() {
        EMPTY_SUMMARY
    } else {
        summary
    };
    format!("{SUMMARY_PREFIX}\n{summary}")
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
