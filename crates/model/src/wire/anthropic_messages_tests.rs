use crate::owned_items;
use agentctx_protocol::FunctionCallOutputPayload;
use pretty_assertions::assert_eq;

use super::*;

fn feed(events: &[(&str, &str)]) -> (Vec<ResponseEvent>, Result<(), ModelError>) {
    let mut parser = AnthropicParser::default();
    let mut out = Vec::new();
    for (event, data) in events {
        if let Err(error) = parser.on_event(event, data, &mut out) {
            return (out, Err(error));
        }
    }
    let end = parser.on_end(&mut out);
    (out, end)
}

#[test]
fn redacted_thinking_and_empty_tool_input() {
    let (out, result) = feed(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"now","input":{}}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    assert_eq!(result, Ok(()));
    let done: Vec<&ResponseItem> = out
        .iter()
        .filter_map(|event| match event {
            ResponseEvent::OutputItemDone(item) => Some(item),
            _ => None,
        })
        .collect();
    assert_eq!(
        done,
        vec![
            &reasoning_item(
                "anthropic_thinking_m_0".to_string(),
                None,
                Some("EmwKAhgB".to_string())
            ),
            &ResponseItem::function_call("toolu_9", "now", "{}"),
        ]
    );
    assert_eq!(
        out.last(),
        Some(&ResponseEvent::Completed {
            response_id: "m".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 5,
                cached_input_tokens: 0,
                output_tokens: 7,
                reasoning_output_tokens: 0,
                total_tokens: 12,
            }),
        })
    );
}

#[test]
fn stream_ending_before_message_stop_is_a_disconnect() {
    let (_, result) = feed(&[(
        "message_start",
        r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#,
    )]);
    assert_eq!(
        result,
        Err(ModelError::StreamDisconnected {
            reason: "stream closed before message_stop".to_string()
        })
    );
}

#[test]
fn deltas_for_unknown_blocks_are_skipped() {
    let (out, result) = feed(&[
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":4}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    assert_eq!(result, Ok(()));
    assert_eq!(out.len(), 1);
}

#[test]
fn history_conversion_merges_roles_and_marks_failed_tools() {
    let prompt = Prompt {
        input: owned_items(vec![
            ResponseItem::user_text("go"),
            reasoning_item(
                "anthropic_thinking_m_0".to_string(),
                None,
                Some("redacted".to_string()),
            ),
            ResponseItem::Reasoning {
                id: None,
                summary: vec![ReasoningSummary::SummaryText {
                    text: "openai summary only".to_string(),
                }],
                content: None,
                encrypted_content: None,
                extra: ExtraFields::new(),
            },
            ResponseItem::function_call("t1", "read", r#"{"p":"a"}"#),
            ResponseItem::function_call("t2", "read", "not json"),
            ResponseItem::FunctionCallOutput {
                call_id: "t1".to_string(),
                output: FunctionCallOutputPayload {
                    body: FunctionCallOutputBody::Text("boom".to_string()),
                    success: Some(false),
                },
                extra: ExtraFields::new(),
            },
            ResponseItem::function_call_output("t2", "ok"),
            ResponseItem::developer_text("<system-reminder>x</system-reminder>"),
        ]),
        ..Prompt::default()
    };
    let body = request_body(&prompt, "claude", &ModelInfo::default());
    assert_eq!(
        body["messages"],
        json!([
            {
                "role": "user",
                "content": [{ "type": "text", "text": "go", "cache_control": { "type": "ephemeral" } }]
            },
            {
                "role": "assistant",
                "content": [
                    { "type": "redacted_thinking", "data": "redacted" },
                    { "type": "tool_use", "id": "t1", "name": "read", "input": { "p": "a" } },
                    { "type": "tool_use", "id": "t2", "name": "read", "input": {} },
                ]
            },
            {
                "role": "user",
                "content": [
                    { "type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": true },
                    { "type": "tool_result", "tool_use_id": "t2", "content": "ok" },
                    {
                        "type": "text",
                        "text": "<system-reminder>x</system-reminder>",
                        "cache_control": { "type": "ephemeral" }
                    },
                ]
            },
        ])
    );
    assert_eq!(body.get("system"), None);
    assert_eq!(body.get("thinking"), None);
    assert_eq!(body["max_tokens"], json!(DEFAULT_ANTHROPIC_MAX_TOKENS));
}

#[test]
fn http_image_urls_become_url_sources() {
    assert_eq!(
        image_block("https://example.com/a.png"),
        json!({ "type": "image", "source": { "type": "url", "url": "https://example.com/a.png" } })
    );
}

#[test]
fn max_tokens_stop_reason_is_incomplete_after_the_blocks() {
    let (events, end) = feed(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The answer is"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    assert_eq!(
        end,
        Err(ModelError::Incomplete {
            reason: "max_tokens".to_string()
        })
    );
    assert!(matches!(
        events.last(),
        Some(ResponseEvent::OutputItemDone(item)) if item.message_text().as_deref() == Some("The answer is")
    ));
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, ResponseEvent::Completed { .. }))
    );
}

#[test]
fn context_window_stop_reason_is_context_window_exceeded() {
    let (_, end) = feed(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5}}}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"model_context_window_exceeded"}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    assert_eq!(
        end,
        Err(ModelError::ContextWindowExceeded {
            message: "stop_reason model_context_window_exceeded".to_string()
        })
    );
}
