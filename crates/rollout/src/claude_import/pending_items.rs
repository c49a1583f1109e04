//! The items of an API response being gathered from a transcript's content blocks: text and
//! thinking blocks read from their JSON text, any other block as a JSON tree.

use std::borrow::Cow;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ResponseItem;
use serde_json::Value;

use super::content_blocks;
use super::lazy_item::LazyBlock;
use super::record_scan;
use super::record_view::Block;
use super::record_view::as_str;
use super::record_view::to_value;

/// An item of a response being gathered: typed, or a tool call kept as its block.
#[derive(Debug)]
pub(super) enum PendingItem {
    Typed(ResponseItem),
    Untyped(LazyBlock),
}

/// Appends text to the last item when it is an assistant message, else starts one.
pub(super) fn push_assistant_text(items: &mut Vec<PendingItem>, text: &str) {
    if let Some(PendingItem::Typed(ResponseItem::Message { role, content, .. })) = items.last_mut()
        && role == "assistant"
    {
        content.push(ContentItem::output_text(text));
        return;
    }
    items.push(PendingItem::Typed(ResponseItem::assistant_text(text)));
}

/// The string member `name` of a content block, read from the block's JSON text: `Some(None)`
/// when it has none or it is not a string, `None` when the scan leaves the block to serde_json.
fn block_text<'a>(block: &Block<'a>, name: &str) -> Option<Option<Cow<'a, str>>> {
    record_scan::member(block.raw, name).map(|raw| raw.and_then(as_str))
}

/// A user content block that is not a tool result, as a message part: a text block is read
/// from its JSON text, any other block as a JSON tree.
pub(super) fn user_part(block: &Block<'_>) -> ContentItem {
    if block.is("text")
        && let Some(Some(text)) = block_text(block, "text")
    {
        return ContentItem::input_text(text);
    }
    content_blocks::user_part(&to_value(block.raw))
}

/// Appends an assistant content block that is not a tool call: text and thinking blocks are
/// read from their JSON text, any other block as a JSON tree.
pub(super) fn push_assistant_block(items: &mut Vec<PendingItem>, block: &Block<'_>) {
    match block.kind.as_deref() {
        Some("text") => {
            if let Some(text) = block_text(block, "text") {
                if let Some(text) = text {
                    push_assistant_text(items, &text);
                }
                return;
            }
        }
        Some("thinking") => {
            if let Some(text) = block_text(block, "thinking") {
                items.push(PendingItem::Typed(reasoning_text(
                    text.map(Cow::into_owned).unwrap_or_default(),
                )));
                return;
            }
        }
        _ => {}
    }
    push_assistant_value(items, &to_value(block.raw));
}

/// The reasoning item of a thinking block.
pub(super) fn reasoning_text(text: String) -> ResponseItem {
    ResponseItem::Reasoning {
        id: None,
        summary: Vec::new(),
        content: Some(vec![ReasoningContent::ReasoningText { text }]),
        encrypted_content: None,
        extra: ExtraFields::new(),
    }
}

/// Appends an assistant content block read as a JSON tree.
pub(super) fn push_assistant_value(items: &mut Vec<PendingItem>, block: &Value) {
    let text_field = |name: &str| block.get(name).and_then(Value::as_str).map(str::to_string);
    let item = match block.get("type").and_then(Value::as_str) {
        Some("text") => {
            if let Some(text) = text_field("text") {
                push_assistant_text(items, &text);
            }
            return;
        }
        Some("thinking") => reasoning_text(text_field("thinking").unwrap_or_default()),
        Some("redacted_thinking") => ResponseItem::Reasoning {
            id: None,
            summary: Vec::new(),
            content: None,
            encrypted_content: text_field("data"),
            extra: ExtraFields::new(),
        },
        Some("tool_use") => content_blocks::tool_use_item(block),
        _ => ResponseItem::Other(block.clone()),
    };
    items.push(PendingItem::Typed(item));
}
