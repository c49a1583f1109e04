//! Conversion of Anthropic Messages content blocks into response-item parts.

use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use serde_json::Value;

/// The URL of an `image` block: a `data:` URL for base64 sources, the URL itself for URL sources.
pub(crate) fn image_url(block: &Value) -> Option<String> {
    let source = block.get("source")?;
    match source.get("type").and_then(Value::as_str) {
        Some("base64") => {
            let media_type = source
                .get("media_type")
                .and_then(Value::as_str)
                .unwrap_or("image/png");
            let data = source.get("data").and_then(Value::as_str)?;
            Some(format!("data:{media_type};base64,{data}"))
        }
        Some("url") => source
            .get("url")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

/// A user content block that is not a tool result, as a message part.
pub(crate) fn user_part(block: &Value) -> ContentItem {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => match block.get("text").and_then(Value::as_str) {
            Some(text) => ContentItem::input_text(text),
            None => ContentItem::Other(block.clone()),
        },
        Some("image") => match image_url(block) {
            Some(image_url) => ContentItem::InputImage {
                image_url,
                detail: None,
            },
            None => ContentItem::Other(block.clone()),
        },
        _ => ContentItem::Other(block.clone()),
    }
}

/// The `function_call_output` item of a `tool_result` block.
pub(crate) fn tool_result_item(block: &Value) -> ResponseItem {
    let call_id = block
        .get("tool_use_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    ResponseItem::FunctionCallOutput {
        call_id,
        output: tool_result_output(block),
        extra: ExtraFields::new(),
    }
}

/// The `function_call` item of a `tool_use` block: arguments are the JSON of `input`, the call
/// id is `id`.
pub(crate) fn tool_use_item(block: &Value) -> ResponseItem {
    let text_field = |name: &str| block.get(name).and_then(Value::as_str).map(str::to_string);
    let arguments = block
        .get("input")
        .map(Value::to_string)
        .unwrap_or_else(|| "{}".to_string());
    ResponseItem::function_call(
        text_field("id").unwrap_or_default(),
        text_field("name").unwrap_or_default(),
        arguments,
    )
}

/// The `content` of a `tool_result` block (a string, a list of blocks, or absent) as an output.
pub(crate) fn tool_result_output(block: &Value) -> FunctionCallOutputPayload {
    let is_error = block
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let body = match block.get("content") {
        None | Some(Value::Null) => FunctionCallOutputBody::Text(String::new()),
        Some(Value::String(text)) => FunctionCallOutputBody::Text(text.clone()),
        Some(Value::Array(parts)) => {
            FunctionCallOutputBody::ContentItems(parts.iter().map(tool_result_part).collect())
        }
        Some(other) => FunctionCallOutputBody::Other(other.clone()),
    };
    FunctionCallOutputPayload {
        body,
        success: Some(!is_error),
    }
}

fn tool_result_part(part: &Value) -> FunctionCallOutputContentItem {
    match part.get("type").and_then(Value::as_str) {
        Some("text") => match part.get("text").and_then(Value::as_str) {
            Some(text) => FunctionCallOutputContentItem::InputText {
                text: text.to_string(),
            },
            None => FunctionCallOutputContentItem::Other(part.clone()),
        },
        Some("image") => match image_url(part) {
            Some(image_url) => FunctionCallOutputContentItem::InputImage {
                image_url,
                detail: None,
            },
            None => FunctionCallOutputContentItem::Other(part.clone()),
        },
        _ => FunctionCallOutputContentItem::Other(part.clone()),
    }
}
