//! Anthropic's provider-side context management as the Messages stream reports it: the
//! `compaction` block of server-side compaction (recorded as an item and sent back as it came),
//! the compaction step's own tokens in `usage.iterations`, and the edits context editing
//! applied (`context_management.applied_edits`).
//!
//! Sources: <https://platform.claude.com/docs/en/build-with-claude/compaction> (the block, its
//! `compaction_delta` stream events, `stop_reason: "compaction"` with
//! `pause_after_compaction`, and `usage.iterations`, whose `compaction` entries are not part of
//! the top-level usage) and
//! <https://platform.claude.com/docs/en/build-with-claude/context-editing> (the
//! `applied_edits` of a response, in the `message_delta` event when streaming).

use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use serde_json::Map;
use serde_json::Value;

use crate::response_event::AppliedContextEdit;
use crate::wire::int_field;
use crate::wire::str_field;

/// The `id` prefix of the compaction items made from Anthropic `compaction` blocks. The block
/// has no id of its own; the prefix tells it from OpenAI's opaque compaction items, which
/// Anthropic cannot read (and the other way round). It is never sent.
pub(crate) const ANTHROPIC_COMPACTION_ID_PREFIX: &str = "anthropic_compaction_";

/// The stop reason of an answer paused right after its compaction block.
pub(crate) const COMPACTION_STOP_REASON: &str = "compaction";

/// True for a compaction item made from an Anthropic `compaction` block.
pub(crate) fn is_anthropic_compaction(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Compaction { extra, .. } => extra
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.starts_with(ANTHROPIC_COMPACTION_ID_PREFIX)),
        _ => false,
    }
}

/// The readable summary of an Anthropic compaction item (the block's `content`).
pub(crate) fn anthropic_summary(item: &ResponseItem) -> Option<&str> {
    match item {
        ResponseItem::Compaction { extra, .. } if is_anthropic_compaction(item) => {
            extra.get("content").and_then(Value::as_str)
        }
        _ => None,
    }
}

/// A `compaction` block being streamed: its summary so far, its latest opaque state, and any
/// other field the block carried.
#[derive(Debug, Default)]
pub(crate) struct CompactionBlock {
    content: Option<String>,
    encrypted_content: Option<String>,
    other: Map<String, Value>,
}

impl CompactionBlock {
    /// The block as `content_block_start` opens it (its content may already be there).
    pub(crate) fn start(block: &Value) -> Self {
        let mut other = block.as_object().cloned().unwrap_or_default();
        other.remove("type");
        let content = other
            .remove("content")
            .and_then(|value| value.as_str().map(str::to_string));
        let encrypted_content = other
            .remove("encrypted_content")
            .and_then(|value| value.as_str().map(str::to_string));
        Self {
            content,
            encrypted_content,
            other,
        }
    }

    /// A `compaction_delta`: a piece of the summary, and the opaque state as it stands (the
    /// latest one wins).
    pub(crate) fn delta(&mut self, delta: &Value) {
        if let Some(piece) = str_field(delta, "content") {
            self.content.get_or_insert_default().push_str(piece);
        }
        if let Some(encrypted) = str_field(delta, "encrypted_content") {
            self.encrypted_content = Some(encrypted.to_string());
        }
    }

    /// The item recorded for the finished block: a [`ResponseItem::Compaction`] whose
    /// `encrypted_content` is the block's (empty when it had none), with the summary as
    /// `content`, the block's other fields, and an `id` of [`ANTHROPIC_COMPACTION_ID_PREFIX`].
    pub(crate) fn into_item(self, id: String) -> ResponseItem {
        let mut extra = self.other;
        extra.insert("id".into(), Value::String(id));
        extra.insert(
            "content".into(),
            self.content.map_or(Value::Null, Value::String),
        );
        ResponseItem::Compaction {
            encrypted_content: self.encrypted_content.unwrap_or_default(),
            extra,
        }
    }
}

/// The `compaction` block an Anthropic compaction item goes back as: the block as it came
/// (summary, opaque state when it had one, other fields), without our `id` and harness
/// fields. The documentation asks for the block to be sent back unchanged on the next request;
/// the API then ignores everything before it.
pub(crate) fn compaction_block(item: &ResponseItem) -> Option<Value> {
    if !is_anthropic_compaction(item) {
        return None;
    }
    let ResponseItem::Compaction {
        encrypted_content,
        extra,
    } = item.without_harness_fields()
    else {
        return None;
    };
    let mut block = Map::new();
    block.insert("type".into(), Value::String("compaction".into()));
    for (key, value) in extra {
        if key != "id" {
            block.insert(key, value);
        }
    }
    if !encrypted_content.is_empty() {
        block.insert("encrypted_content".into(), Value::String(encrypted_content));
    }
    Some(Value::Object(block))
}

/// The tokens of the `compaction` entries of `usage.iterations`, summed; `None` without any.
/// Cached and cache-written input is input, as in the top-level usage.
pub(crate) fn compaction_usage(usage: Option<&Value>) -> Option<TokenUsage> {
    let iterations = usage?.get("iterations")?.as_array()?;
    let mut total: Option<TokenUsage> = None;
    for iteration in iterations
        .iter()
        .filter(|iteration| str_field(iteration, "type") == Some("compaction"))
    {
        let cached = int_field(Some(iteration), "cache_read_input_tokens");
        let input = int_field(Some(iteration), "input_tokens")
            .saturating_add(cached)
            .saturating_add(int_field(Some(iteration), "cache_creation_input_tokens"));
        let output = int_field(Some(iteration), "output_tokens");
        let sum = total.get_or_insert_default();
        sum.input_tokens = sum.input_tokens.saturating_add(input);
        sum.cached_input_tokens = sum.cached_input_tokens.saturating_add(cached);
        sum.output_tokens = sum.output_tokens.saturating_add(output);
        sum.total_tokens = sum.input_tokens.saturating_add(sum.output_tokens);
    }
    total
}

/// The edits of a `context_management` object (`applied_edits`), in order.
pub(crate) fn applied_edits(context_management: Option<&Value>) -> Vec<AppliedContextEdit> {
    context_management
        .and_then(|value| value.get("applied_edits"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|edit| AppliedContextEdit {
            kind: str_field(edit, "type").unwrap_or_default().to_string(),
            cleared_input_tokens: int_field(Some(edit), "cleared_input_tokens"),
            cleared_tool_uses: int_field(Some(edit), "cleared_tool_uses"),
            cleared_thinking_turns: int_field(Some(edit), "cleared_thinking_turns"),
        })
        .collect()
}

#[cfg(test)]
#[path = "anthropic_compaction_tests.rs"]
mod tests;
