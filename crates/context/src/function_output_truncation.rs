//! Truncation of tool outputs as they are recorded into history.
//!
//! Outputs get the policy times [`TOOL_OUTPUT_SERIALIZATION_MULTIPLIER`] (1.2) as their budget, an
//! allowance for the JSON around them. Structured outputs spend one shared budget across their
//! text parts in order; images are always kept; text parts left without budget are replaced by
//! one `[omitted {n} text items ...]` marker.

use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use serde::Deserialize;
use serde_json::Value;

use crate::token_estimator::approx_token_count;
use crate::truncate::truncate_text;
use crate::truncation_policy::TOOL_OUTPUT_SERIALIZATION_MULTIPLIER;
use crate::truncation_policy::TruncationPolicy;

/// Truncates the text parts of a structured tool output under one shared budget.
///
/// Text parts are kept whole while they fit; the first one that does not fit is middle-truncated
/// to what is left; later ones are counted and replaced by a single
/// `[omitted {n} text items ...]` part at the end. Images and unknown parts are always kept and
/// empty texts are dropped.
pub fn truncate_function_output_items_with_policy(
    items: &[FunctionCallOutputContentItem],
    policy: TruncationPolicy,
) -> Vec<FunctionCallOutputContentItem> {
    let mut out = Vec::with_capacity(items.len());
    let mut remaining = match policy {
        TruncationPolicy::Bytes(_) => policy.byte_budget(),
        TruncationPolicy::Tokens(_) => policy.token_budget(),
    };
    let mut omitted_text_items = 0usize;
    for item in items {
        match item {
            FunctionCallOutputContentItem::InputText { text } => {
                if text.is_empty() {
                    continue;
                }
                if remaining == 0 {
                    omitted_text_items += 1;
                    continue;
                }
                let cost = match policy {
                    TruncationPolicy::Bytes(_) => text.len(),
                    TruncationPolicy::Tokens(_) => {
                        usize::try_from(approx_token_count(text)).unwrap_or(usize::MAX)
                    }
                };
                if cost <= remaining {
                    out.push(item.clone());
                    remaining -= cost;
                } else {
                    let snippet = truncate_text(text, policy.with_limit(remaining));
                    out.push(FunctionCallOutputContentItem::InputText { text: snippet });
                    remaining = 0;
                }
            }
            FunctionCallOutputContentItem::InputImage { .. }
            | FunctionCallOutputContentItem::Other(_) => out.push(item.clone()),
        }
    }
    if omitted_text_items > 0 {
        out.push(FunctionCallOutputContentItem::InputText {
            text: format!("[omitted {omitted_text_items} text items ...]"),
        });
    }
    out
}

/// Truncates a tool output payload to `policy` (no extra allowance): text bodies are
/// middle-truncated, structured bodies go through
/// [`truncate_function_output_items_with_policy`]; the legacy object shape
/// (`{content, content_items?, success?}`) has its `content` and `content_items` truncated the
/// same way, and any other JSON is kept verbatim.
pub(crate) fn truncate_function_output_payload(
    output: &FunctionCallOutputPayload,
    policy: TruncationPolicy,
) -> FunctionCallOutputPayload {
    let body = match &output.body {
        FunctionCallOutputBody::Text(text) => {
            FunctionCallOutputBody::Text(truncate_text(text, policy))
        }
        FunctionCallOutputBody::ContentItems(items) => FunctionCallOutputBody::ContentItems(
            truncate_function_output_items_with_policy(items, policy),
        ),
        FunctionCallOutputBody::Other(value) => {
            FunctionCallOutputBody::Other(truncate_legacy_output(value, policy))
        }
    };
    FunctionCallOutputPayload {
        body,
        success: output.success,
    }
}

/// The legacy `{content, content_items?, success?}` output with its texts truncated.
fn truncate_legacy_output(value: &Value, policy: TruncationPolicy) -> Value {
    let mut value = value.clone();
    let Value::Object(fields) = &mut value else {
        return value;
    };
    if let Some(Value::String(content)) = fields.get_mut("content") {
        *content = truncate_text(content, policy);
    }
    if let Some(items) = fields.get_mut("content_items")
        && let Ok(parsed) = Vec::<FunctionCallOutputContentItem>::deserialize(&*items)
        && let Ok(truncated) =
            serde_json::to_value(truncate_function_output_items_with_policy(&parsed, policy))
    {
        *items = truncated;
    }
    value
}

/// The item as it is recorded into history: tool outputs truncated at `policy * 1.2`, every other
/// item unchanged.
pub(crate) fn truncate_tool_output_item(
    item: ResponseItem,
    policy: TruncationPolicy,
) -> ResponseItem {
    let policy = policy * TOOL_OUTPUT_SERIALIZATION_MULTIPLIER;
    match item {
        ResponseItem::FunctionCallOutput {
            call_id,
            output,
            extra,
        } => ResponseItem::FunctionCallOutput {
            call_id,
            output: truncate_function_output_payload(&output, policy),
            extra,
        },
        ResponseItem::CustomToolCallOutput {
            call_id,
            output,
            extra,
        } => ResponseItem::CustomToolCallOutput {
            call_id,
            output: truncate_function_output_payload(&output, policy),
            extra,
        },
        other @ (ResponseItem::Message { .. }
        | ResponseItem::Reasoning { .. }
        | ResponseItem::LocalShellCall { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Compaction { .. }
        | ResponseItem::Other(_)) => other,
    }
}

#[cfg(test)]
#[path = "function_output_truncation_tests.rs"]
mod tests;
