//! What a response's lines say about whether its output count was ever finalised.
//!
//! Claude Code writes one line per content block of a response, each with the response's
//! `usage` as it stood then: the output count grows from line to line and the last line's is
//! the final one. Some versions (2.1.14, 2.1.29, 2.1.36–2.1.39) never write the final count:
//! every line repeats the first, small figure (1,394 output tokens on a response whose
//! visible text, thinking and tool input hold 98,782 characters). The import cannot tell the
//! true count; it records what the replay needs to recognise such a response and bound its
//! output from below: whether every line carried the same output count, and the bytes of
//! the output it can see. The replay decides (docs/design/usage-accounting.md, "Outputs that
//! were never finalised").

use agentctx_protocol::ExtraFields;
use serde_json::Value;

use super::record_scan;
use super::record_view::Block;
use super::record_view::Content;
use super::record_view::as_str;
use super::usage::usage_counts;

/// The `token_count` member holding the visible output's bytes.
pub(crate) const VISIBLE_OUTPUT_BYTES: &str = "visible_output_bytes";
/// The `token_count` member that says every line repeated one output count.
pub(crate) const OUTPUT_TOKENS_REPEATED: &str = "output_tokens_repeated";

/// The output counts and visible output of one response's lines, as they are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OutputCheck {
    /// The output count of the first line that recorded usage.
    first: Option<i64>,
    /// A later line recorded another count.
    varied: bool,
    /// Bytes of the text, thinking and tool-call input the lines hold.
    visible_bytes: u64,
}

impl OutputCheck {
    /// A line's `usage` object, as its JSON text.
    pub(crate) fn usage(&mut self, usage: &str) {
        let output = usage_counts(usage).output_tokens;
        match self.first {
            None => self.first = Some(output),
            Some(first) if first != output => self.varied = true,
            Some(_) => {}
        }
    }

    /// A line's `content`.
    pub(crate) fn content(&mut self, content: &Content<'_>) {
        let bytes = match content {
            Content::Text(text) => text.len(),
            Content::Blocks(blocks) => blocks.iter().map(visible_bytes).sum(),
            Content::Null | Content::Other(_) => 0,
        };
        self.visible_bytes = self
            .visible_bytes
            .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX));
    }

    /// Writes what the replay reads into a `token_count` event's members: the visible bytes,
    /// and whether every line repeated one count. Nothing for a response with no visible
    /// output.
    pub(crate) fn write(&self, extra: &mut ExtraFields) {
        if self.visible_bytes == 0 {
            return;
        }
        extra.insert(
            VISIBLE_OUTPUT_BYTES.to_string(),
            Value::from(self.visible_bytes),
        );
        extra.insert(
            OUTPUT_TOKENS_REPEATED.to_string(),
            Value::Bool(self.first.is_some() && !self.varied),
        );
    }
}

/// The bytes of a block the model wrote that a transcript shows: a text block's text, a
/// thinking block's thinking (not its signature), a tool call's block (its input, with the
/// few bytes of its id and name).
fn visible_bytes(block: &Block<'_>) -> usize {
    // A block the scan leaves to serde_json counts whole.
    let member = |name: &str| match record_scan::member(block.raw, name) {
        Some(found) => found.and_then(as_str).map_or(0, |text| text.len()),
        None => block.raw.len(),
    };
    match block.kind.as_deref() {
        Some("text") => member("text"),
        Some("thinking") => member("thinking"),
        Some("tool_use") => block.raw.len(),
        _ => 0,
    }
}

#[cfg(test)]
#[path = "output_check_tests.rs"]
mod tests;
