//! The tokens of an item counted from the text the model reads, for estimators that count text
//! (the exact o200k tokenizer and the calibrated character-class estimator).
//!
//! An item counts the tokens of its visible text (message text, tool names and arguments, tool
//! outputs, reasoning summaries and content) plus [`ITEM_OVERHEAD_TOKENS`] of framing. Images
//! keep the fixed estimate (codex's resized-image cost), encrypted blobs the length rule, ghost
//! snapshots zero: a text counter cannot see into them either.

use agentctx_protocol::ContentItem;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ReasoningSummary;
use agentctx_protocol::ResponseItem;
use serde_json::Value;

use crate::token_estimator::ENCRYPTED_CONTENT_OVERHEAD_BYTES;
use crate::token_estimator::IMAGE_BYTES_ESTIMATE;
use crate::token_estimator::approx_tokens_from_byte_count;

/// Tokens of framing counted per item (role, type and separators).
pub(crate) const ITEM_OVERHEAD_TOKENS: u64 = 4;

/// Tokens of `item` when `count` counts the tokens of a text.
pub(crate) fn item_tokens(item: &ResponseItem, count: &impl Fn(&str) -> u64) -> u64 {
    let body = match item {
        ResponseItem::GhostSnapshot { .. } => return 0,
        ResponseItem::Reasoning {
            encrypted_content: Some(content),
            ..
        }
        | ResponseItem::Compaction {
            encrypted_content: content,
            ..
        } => return encrypted_tokens(content.len()),
        ResponseItem::Message { content, .. } => content
            .iter()
            .map(|part| match part {
                ContentItem::InputText { text } | ContentItem::OutputText { text } => count(text),
                ContentItem::InputImage { .. } => image_tokens(),
                ContentItem::Other(value) => value_tokens(value, count),
            })
            .fold(0, u64::saturating_add),
        ResponseItem::Reasoning {
            summary, content, ..
        } => {
            let summary_tokens = summary
                .iter()
                .map(|part| match part {
                    ReasoningSummary::SummaryText { text } => count(text),
                    ReasoningSummary::Other(value) => value_tokens(value, count),
                })
                .fold(0, u64::saturating_add);
            let content_tokens = content
                .iter()
                .flatten()
                .map(|part| match part {
                    ReasoningContent::ReasoningText { text } | ReasoningContent::Text { text } => {
                        count(text)
                    }
                    ReasoningContent::Other(value) => value_tokens(value, count),
                })
                .fold(0, u64::saturating_add);
            summary_tokens.saturating_add(content_tokens)
        }
        ResponseItem::FunctionCall {
            name, arguments, ..
        } => count(name).saturating_add(count(arguments)),
        ResponseItem::CustomToolCall { name, input, .. } => {
            count(name).saturating_add(count(input))
        }
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => output_tokens(output, count),
        ResponseItem::LocalShellCall { action, .. } => value_tokens(action, count),
        ResponseItem::WebSearchCall { action, .. } => action
            .as_ref()
            .map_or(0, |action| value_tokens(action, count)),
        ResponseItem::Other(value) => value_tokens(value, count),
    };
    body.saturating_add(ITEM_OVERHEAD_TOKENS)
}

fn image_tokens() -> u64 {
    approx_tokens_from_byte_count(IMAGE_BYTES_ESTIMATE)
}

fn encrypted_tokens(encoded_len: usize) -> u64 {
    approx_tokens_from_byte_count(
        ((encoded_len as u64).saturating_mul(3) / 4)
            .saturating_sub(ENCRYPTED_CONTENT_OVERHEAD_BYTES),
    )
}

fn output_tokens(output: &FunctionCallOutputPayload, count: &impl Fn(&str) -> u64) -> u64 {
    match &output.body {
        FunctionCallOutputBody::Text(text) => count(text),
        FunctionCallOutputBody::ContentItems(parts) => parts
            .iter()
            .map(|part| match part {
                FunctionCallOutputContentItem::InputText { text } => count(text),
                FunctionCallOutputContentItem::InputImage { .. } => image_tokens(),
                FunctionCallOutputContentItem::Other(value) => value_tokens(value, count),
            })
            .fold(0, u64::saturating_add),
        FunctionCallOutputBody::Other(value) => value_tokens(value, count),
    }
}

fn value_tokens(value: &Value, count: &impl Fn(&str) -> u64) -> u64 {
    match value {
        Value::Null => 0,
        Value::String(text) => count(text),
        other => count(&other.to_string()),
    }
}
