use crate::owned_items;
use agentctx_protocol::ContentItem;
use pretty_assertions::assert_eq;

use super::*;

fn feed(events: &[(&str, &str)]) -> (Vec<ResponseEvent>, Result<(), ModelError>) {
    let mut parser = ResponsesParser::default();
    let mut out = Vec::new();
    for (event, data) in events {
        if let Err(error) = parser.on_event(event, data, &mut out) {
            return (out, Err(error));
        }
    }
    let end = parser.on_end(&mut out);
    (out, end)
}

const INCOMPLETE_AT_THE_OUTPUT_LIMIT: &str = r#"{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":20,"output_tokens":3,"total_tokens":23}}}"#;

fn usage_20_in_3_out() -> Option<TokenUsage> {
    Some(TokenUsage {
        input_tokens: 20,
        cached_input_tokens: 0,
        output_tokens: 3,
        reasoning_output_tokens: 0,
        total_tokens: 23,
    })
}

#[test]
fn incomplete_at_the_output_limit_ends_truncated_after_the_items_done() {
    let (out, result) = feed(&[
        (
            "response.output_item.done",
            r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1","status":"incomplete","role":"assistant","content":[{"type":"output_text","text":"The answer is"}]}}"#,
        ),
        ("response.incomplete", INCOMPLETE_AT_THE_OUTPUT_LIMIT),
    ]);
    assert_eq!(result, Ok(()));
    assert_eq!(
        out[1..],
        [
            ResponseEvent::OutputTruncated {
                reason: "max_output_tokens".to_string()
            },
            ResponseEvent::Completed {
                response_id: "r".to_string(),
                token_usage: usage_20_in_3_out(),
            },
        ]
    );
}

#[test]
fn a_message_cut_before_its_done_event_is_delivered_from_its_deltas_and_a_cut_call_left_out() {
    let (out, result) = feed(&[
        (
            "response.output_item.added",
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}}"#,
        ),
        (
            "response.output_text.delta",
            r#"{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","content_index":0,"delta":"The answer "}"#,
        ),
        (
            "response.output_text.delta",
            r#"{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","content_index":0,"delta":"is"}"#,
        ),
        (
            "response.output_item.added",
            r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"c1","name":"write","arguments":"","status":"in_progress"}}"#,
        ),
        ("response.incomplete", INCOMPLETE_AT_THE_OUTPUT_LIMIT),
    ]);
    assert_eq!(result, Ok(()));
    let done: Vec<&ResponseEvent> = out
        .iter()
        .filter(|event| {
            !matches!(
                event,
                ResponseEvent::OutputItemAdded(_) | ResponseEvent::OutputTextDelta(_)
            )
        })
        .collect();
    assert_eq!(
        done,
        [
            &ResponseEvent::OutputItemDone(ResponseItem::assistant_text("The answer is")),
            &ResponseEvent::OutputTruncated {
                reason: "max_output_tokens".to_string()
            },
            &ResponseEvent::Completed {
                response_id: "r".to_string(),
                token_usage: usage_20_in_3_out(),
            },
        ]
    );
}

#[test]
fn incomplete_for_another_reason_is_a_typed_error() {
    let (_, result) = feed(&[(
        "response.incomplete",
        r#"{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"content_filter"}}}"#,
    )]);
    assert_eq!(
        result,
        Err(ModelError::Incomplete {
            reason: "content_filter".to_string()
        })
    );
}

#[test]
fn stream_ending_before_completed_is_a_disconnect() {
    let (out, result) = feed(&[(
        "response.created",
        r#"{"type":"response.created","response":{"id":"r"}}"#,
    )]);
    assert_eq!(out, vec![ResponseEvent::Created]);
    assert!(matches!(result, Err(ModelError::StreamDisconnected { .. })));
}

#[test]
fn reasoning_text_deltas_and_unknown_events() {
    let (out, result) = feed(&[
        (
            "response.reasoning_text.delta",
            r#"{"type":"response.reasoning_text.delta","delta":"raw"}"#,
        ),
        (
            "response.some_future_event",
            r#"{"type":"response.some_future_event"}"#,
        ),
        (
            "response.completed",
            r#"{"type":"response.completed","response":{"id":"r","usage":{"input_tokens":3,"output_tokens":2}}}"#,
        ),
    ]);
    assert_eq!(result, Ok(()));
    assert_eq!(
        out,
        vec![
            ResponseEvent::ReasoningContentDelta("raw".to_string()),
            ResponseEvent::Completed {
                response_id: "r".to_string(),
                token_usage: Some(TokenUsage {
                    input_tokens: 3,
                    output_tokens: 2,
                    total_tokens: 5,
                    ..TokenUsage::default()
                }),
            },
        ]
    );
}

#[test]
fn undecodable_payload_is_a_decode_error() {
    let (_, result) = feed(&[("response.output_text.delta", "{not json")]);
    assert!(
        matches!(result, Err(ModelError::Decode { .. })),
        "{result:?}"
    );
}

#[test]
fn ids_ghost_snapshots_and_unknown_items_with_ids_are_not_sent() {
    let prompt = Prompt {
        input: owned_items(vec![
            ResponseItem::Reasoning {
                id: Some("rs_1".to_string()),
                summary: Vec::new(),
                content: None,
                encrypted_content: Some("enc".to_string()),
                extra: agentctx_protocol::ExtraFields::new(),
            },
            ResponseItem::GhostSnapshot {
                ghost_commit: json!({}),
                extra: agentctx_protocol::ExtraFields::new(),
            },
            ResponseItem::Other(json!({ "type": "future_item", "id": "fi_1" })),
            ResponseItem::Other(json!({ "type": "future_item", "note": "no id" })),
        ]),
        ..Prompt::default()
    };
    let body = request_body(&prompt, "gpt-5", &ModelInfo::default(), None);
    assert_eq!(
        body["input"],
        json!([
            { "type": "reasoning", "summary": [], "encrypted_content": "enc" },
            { "type": "future_item", "note": "no id" },
        ])
    );
    assert_eq!(body.get("reasoning"), None);
    assert_eq!(body.get("text"), None);
}

#[test]
fn anthropic_thinking_signatures_are_not_sent_to_openai_after_a_switch() {
    let reasoning = |id: &str, encrypted: &str| ResponseItem::Reasoning {
        id: Some(id.to_string()),
        summary: Vec::new(),
        content: None,
        encrypted_content: Some(encrypted.to_string()),
        extra: agentctx_protocol::ExtraFields::new(),
    };
    let prompt = Prompt {
        input: owned_items(vec![
            reasoning("anthropic_thinking_msg_1_0", "anthropic-signature"),
            reasoning("rs_2", "openai-encrypted"),
        ]),
        ..Prompt::default()
    };
    let body = request_body(&prompt, "gpt-5", &ModelInfo::default(), None);
    assert_eq!(
        body["input"],
        json!([{ "type": "reasoning", "summary": [], "encrypted_content": "openai-encrypted" }])
    );
}

#[test]
fn the_injected_mark_of_an_imported_message_is_not_sent() {
    let mut skill_body = ResponseItem::user_text("Base directory for this skill: /s");
    skill_body.set_injected(true);
    let prompt = Prompt {
        input: owned_items(vec![skill_body]),
        ..Prompt::default()
    };
    let body = request_body(&prompt, "gpt-5", &ModelInfo::default(), None);
    assert_eq!(
        body["input"],
        json!([{
            "type": "message",
            "role": "user",
            "content": "Base directory for this skill: /s",
        }])
    );
}

#[test]
fn items_that_go_as_they_are_are_borrowed_and_the_written_body_is_the_tree() {
    let mut injected = ResponseItem::user_text("skill body");
    injected.set_injected(true);
    let mut with_id = ResponseItem::function_call("c1", "shell", "{}");
    if let ResponseItem::FunctionCall { id, .. } = &mut with_id {
        *id = Some("fc_1".to_string());
    }
    let prompt = Prompt {
        instructions: "be brief".to_string(),
        input: owned_items(vec![
            ResponseItem::user_text("list the files"),
            with_id,
            ResponseItem::function_call_output("c1", "a.rs\nb.rs"),
            injected,
            ResponseItem::Other(Value::Null),
        ]),
        session_id: Some("session-1".to_string()),
        ..Prompt::default()
    };
    let info = ModelInfo::default();
    let body = RequestBody::new(&prompt, "gpt-5", &info);
    let borrowed: Vec<bool> = body
        .input
        .iter()
        .map(|item| matches!(item, Cow::Borrowed(_)))
        .collect();
    // The id and the injected mark are removed from copies; a null item is not sent.
    assert_eq!(borrowed, [true, false, true, false]);
    let written: Value = serde_json::from_slice(&serde_json::to_vec(&body).unwrap()).unwrap();
    assert_eq!(written, request_body(&prompt, "gpt-5", &info, None));
    assert_eq!(written["prompt_cache_key"], "session-1");
    assert_eq!(
        written["input"][1],
        json!({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"})
    );
}

#[test]
fn a_text_only_message_is_a_string_and_an_image_message_stays_an_array() {
    let mut two_parts = ResponseItem::assistant_text("first");
    if let ResponseItem::Message {
        id, content, extra, ..
    } = &mut two_parts
    {
        *id = Some("msg_1".to_string());
        content.push(ContentItem::output_text("second \"quoted\""));
        extra.insert("phase".to_string(), json!("final_answer"));
    }
    let with_image = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![
            ContentItem::input_text("what is this?"),
            ContentItem::InputImage {
                image_url: "data:image/png;base64,AAAA".to_string(),
                detail: None,
            },
        ],
        extra: agentctx_protocol::ExtraFields::new(),
    };
    let prompt = Prompt {
        input: owned_items(vec![
            ResponseItem::user_text("list the files"),
            two_parts,
            with_image,
        ]),
        ..Prompt::default()
    };
    let info = ModelInfo::default();
    let body = RequestBody::new(&prompt, "gpt-5", &info);
    let written: Value = serde_json::from_slice(&serde_json::to_vec(&body).unwrap()).unwrap();
    assert_eq!(written, request_body(&prompt, "gpt-5", &info, None));
    assert_eq!(
        written["input"],
        json!([
            { "type": "message", "role": "user", "content": "list the files" },
            {
                "type": "message",
                "role": "assistant",
                "content": "first\nsecond \"quoted\"",
                "phase": "final_answer",
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    { "type": "input_text", "text": "what is this?" },
                    { "type": "input_image", "image_url": "data:image/png;base64,AAAA" },
                ],
            },
        ])
    );
}

#[test]
fn an_unknown_output_limit_is_sized_from_the_window_as_the_other_wires_size_it() {
    let hi = Prompt::system_and_user("Be brief.", "hi");
    let limit = |info: &ModelInfo, prompt: &Prompt<'_>| {
        request_body(prompt, "m", info, None)
            .get("max_output_tokens")
            .and_then(Value::as_i64)
    };
    // A quarter of a small window; 8192 where the window is large.
    assert_eq!(
        limit(&ModelInfo::with_context_window(4_096), &hi),
        Some(1_024)
    );
    assert_eq!(
        limit(&ModelInfo::with_context_window(16_384), &hi),
        Some(4_096)
    );
    assert_eq!(
        limit(&ModelInfo::with_context_window(131_072), &hi),
        Some(8_192)
    );
    // A long input leaves less room: input plus output stay within the window, and the limit
    // is the one Chat Completions sends for the same prompt (the same rule, the same input
    // measured in the body's own JSON).
    let long = Prompt::system_and_user("Be brief.", "x".repeat(9_000));
    let small = ModelInfo::with_context_window(4_096);
    let sized = limit(&small, &long).unwrap();
    assert!(sized < 1_024, "{sized}");
    assert!(sized >= 512, "{sized}");
    let chat = crate::wire::chat_completions::request_body(&long, "m", &small);
    let chat_limit = chat["max_tokens"].as_i64().unwrap();
    assert!((sized - chat_limit).abs() <= 8, "{sized} vs {chat_limit}");
    // The body as written carries the field too, and a known limit sends none: the server
    // knows its model's limit.
    let written: Value =
        serde_json::from_slice(&serde_json::to_vec(&RequestBody::new(&long, "m", &small)).unwrap())
            .unwrap();
    assert_eq!(written["max_output_tokens"], sized);
    let known = ModelInfo {
        max_output_tokens: Some(32_000),
        ..ModelInfo::with_context_window(4_096)
    };
    assert_eq!(limit(&known, &hi), None);
}
