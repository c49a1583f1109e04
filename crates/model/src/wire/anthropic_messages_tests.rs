use crate::ContextManagementConfig;
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
    let body = request_body(
        &prompt,
        "claude",
        &ModelInfo::default(),
        CacheMarking::Breakpoints(crate::provider_config::PromptCacheTtl::FiveMinutes),
        &ContextManagementConfig::default(),
    );
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

fn max_tokens_stream(blocks: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let mut events = vec![(
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"output_tokens":1}}}"#
            .to_string(),
    )];
    events.extend(blocks.iter().cloned());
    events.push((
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}"#
            .to_string(),
    ));
    events.push(("message_stop", r#"{"type":"message_stop"}"#.to_string()));
    events
}

fn feed_owned(events: &[(&'static str, String)]) -> (Vec<ResponseEvent>, Result<(), ModelError>) {
    let borrowed: Vec<(&str, &str)> = events
        .iter()
        .map(|(event, data)| (*event, data.as_str()))
        .collect();
    feed(&borrowed)
}

fn block(index: u64, start: &str, deltas: &[&str]) -> Vec<(&'static str, String)> {
    let mut events = vec![(
        "content_block_start",
        format!(r#"{{"type":"content_block_start","index":{index},"content_block":{start}}}"#),
    )];
    for delta in deltas {
        events.push((
            "content_block_delta",
            format!(r#"{{"type":"content_block_delta","index":{index},"delta":{delta}}}"#),
        ));
    }
    events.push((
        "content_block_stop",
        format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
    ));
    events
}

fn usage_5_in_3_out() -> Option<TokenUsage> {
    Some(TokenUsage {
        input_tokens: 5,
        cached_input_tokens: 0,
        output_tokens: 3,
        reasoning_output_tokens: 0,
        total_tokens: 8,
    })
}

#[test]
fn max_tokens_stop_reason_keeps_the_text_and_ends_truncated() {
    let text = block(
        0,
        r#"{"type":"text","text":""}"#,
        &[r#"{"type":"text_delta","text":"The answer is"}"#],
    );
    let (events, end) = feed_owned(&max_tokens_stream(&text));
    assert_eq!(end, Ok(()));
    assert_eq!(
        events[events.len() - 3..],
        [
            ResponseEvent::OutputItemDone(ResponseItem::assistant_text("The answer is")),
            ResponseEvent::OutputTruncated {
                reason: "max_tokens".to_string()
            },
            ResponseEvent::Completed {
                response_id: "msg_1".to_string(),
                token_usage: usage_5_in_3_out(),
            },
        ]
    );
}

#[test]
fn a_tool_use_cut_by_max_tokens_is_left_out_and_whole_ones_kept() {
    let mut blocks = block(
        0,
        r#"{"type":"tool_use","id":"t1","name":"read","input":{}}"#,
        &[r#"{"type":"input_json_delta","partial_json":"{\"p\": 1}"}"#],
    );
    blocks.extend(block(
        1,
        r#"{"type":"tool_use","id":"t2","name":"write","input":{}}"#,
        &[r#"{"type":"input_json_delta","partial_json":"{\"p\": 2, \"text\": \"ab"}"#],
    ));
    blocks.extend(block(
        2,
        r#"{"type":"tool_use","id":"t3","name":"now","input":{}}"#,
        &[r#"{"type":"input_json_delta","partial_json":""}"#],
    ));
    let (events, end) = feed_owned(&max_tokens_stream(&blocks));
    assert_eq!(end, Ok(()));
    let done: Vec<&ResponseEvent> = events
        .iter()
        .filter(|event| !matches!(event, ResponseEvent::OutputItemAdded(_)))
        .collect();
    assert_eq!(
        done,
        [
            &ResponseEvent::Created,
            &ResponseEvent::OutputItemDone(ResponseItem::function_call(
                "t1",
                "read",
                r#"{"p": 1}"#
            )),
            &ResponseEvent::OutputTruncated {
                reason: "max_tokens".to_string()
            },
            &ResponseEvent::Completed {
                response_id: "msg_1".to_string(),
                token_usage: usage_5_in_3_out(),
            },
        ]
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

/// A system prompt, a tool, a two-text user message, an answer, a tool call with its result,
/// and a user message with an image.
fn prompt_with_text_tools_and_an_image() -> Prompt<'static> {
    Prompt {
        instructions: "Be brief.".to_string(),
        input: owned_items(vec![
            ResponseItem::developer_text("<environment>linux</environment>"),
            ResponseItem::user_text("list the files"),
            ResponseItem::assistant_text("Listing."),
            ResponseItem::function_call("t1", "shell", r#"{"command":["ls"]}"#),
            ResponseItem::function_call_output("t1", "a.rs"),
            ResponseItem::Message {
                id: None,
                role: "user".to_string(),
                content: vec![
                    ContentItem::input_text("and this?"),
                    ContentItem::InputImage {
                        image_url: "data:image/png;base64,AAAA".to_string(),
                        detail: None,
                    },
                ],
                extra: ExtraFields::new(),
            },
        ]),
        tools: vec![crate::ToolSpec {
            name: "shell".to_string(),
            description: "Run a command.".to_string(),
            parameters: json!({ "type": "object" }),
        }],
        ..Prompt::default()
    }
}

#[test]
fn without_cache_breakpoints_system_and_text_only_messages_are_strings() {
    let prompt = prompt_with_text_tools_and_an_image();
    let body = request_body(
        &prompt,
        "claude",
        &ModelInfo::default(),
        CacheMarking::Off,
        &ContextManagementConfig::default(),
    );
    assert!(!body.to_string().contains("cache_control"), "{body:#}");
    assert_eq!(body["system"], json!("Be brief."));
    assert_eq!(
        body["messages"],
        json!([
            { "role": "user", "content": "<environment>linux</environment>\nlist the files" },
            {
                "role": "assistant",
                "content": [
                    { "type": "text", "text": "Listing." },
                    { "type": "tool_use", "id": "t1", "name": "shell", "input": { "command": ["ls"] } },
                ]
            },
            {
                "role": "user",
                "content": [
                    { "type": "tool_result", "tool_use_id": "t1", "content": "a.rs" },
                    { "type": "text", "text": "and this?" },
                    { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "AAAA" } },
                ]
            },
        ])
    );
    assert_eq!(body["tools"][0].get("cache_control"), None);
}

#[test]
fn with_cache_breakpoints_system_is_a_marked_block_and_user_turns_keep_their_blocks() {
    let prompt = prompt_with_text_tools_and_an_image();
    let body = request_body(
        &prompt,
        "claude",
        &ModelInfo::default(),
        CacheMarking::Breakpoints(crate::provider_config::PromptCacheTtl::FiveMinutes),
        &ContextManagementConfig::default(),
    );
    let ephemeral = json!({ "type": "ephemeral" });
    assert_eq!(
        body["system"],
        json!([{ "type": "text", "text": "Be brief.", "cache_control": ephemeral }])
    );
    assert_eq!(body["tools"][0]["cache_control"], ephemeral);
    assert_eq!(
        body["messages"][0],
        json!({
            "role": "user",
            "content": [
                { "type": "text", "text": "<environment>linux</environment>" },
                { "type": "text", "text": "list the files", "cache_control": ephemeral },
            ]
        })
    );
    assert_eq!(
        body["messages"][1]["content"][0],
        json!({ "type": "text", "text": "Listing." })
    );
    assert_eq!(
        body["messages"][2]["content"][2]["cache_control"],
        ephemeral
    );
}
