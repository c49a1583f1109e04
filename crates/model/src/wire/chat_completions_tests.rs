use crate::owned_items;
use agentctx_protocol::FunctionCallOutputPayload;
use pretty_assertions::assert_eq;

use super::*;

fn feed(datas: &[&str]) -> (Vec<ResponseEvent>, Result<(), ModelError>) {
    let mut parser = ChatCompletionsParser::default();
    let mut out = Vec::new();
    for data in datas {
        if let Err(error) = parser.on_event("message", data, &mut out) {
            return (out, Err(error));
        }
    }
    let end = parser.on_end(&mut out);
    (out, end)
}

#[test]
fn finish_reason_without_done_still_completes() {
    let (out, result) = feed(&[
        r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}"#,
        r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    ]);
    assert_eq!(result, Ok(()));
    assert_eq!(
        out.last(),
        Some(&ResponseEvent::Completed {
            response_id: "c1".to_string(),
            token_usage: None
        })
    );
}

#[test]
fn stream_ending_without_finish_is_a_disconnect() {
    let (_, result) = feed(&[r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"hi"}}]}"#]);
    assert!(matches!(result, Err(ModelError::StreamDisconnected { .. })));
}

#[test]
fn tool_call_without_id_or_arguments_gets_defaults() {
    let (out, result) = feed(&[
        r#"{"id":"c9","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"now"}}]}}]}"#,
        r#"{"id":"c9","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(result, Ok(()));
    assert!(
        out.contains(&ResponseEvent::OutputItemDone(ResponseItem::function_call(
            "call_c9_0",
            "now",
            "{}"
        )))
    );
}

#[test]
fn arguments_sent_as_an_object_are_kept_as_json_text() {
    let (out, _) = feed(&[
        r#"{"id":"c2","choices":[{"index":0,"delta":{"tool_calls":[{"id":"t","function":{"name":"f","arguments":{"a":1}}}]},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    assert!(
        out.contains(&ResponseEvent::OutputItemDone(ResponseItem::function_call(
            "t",
            "f",
            r#"{"a":1}"#
        )))
    );
}

#[test]
fn parallel_calls_share_one_assistant_message_and_tool_images_follow_as_user() {
    let prompt = Prompt {
        input: owned_items(vec![
            ResponseItem::assistant_text("Checking both."),
            ResponseItem::function_call("a", "read", r#"{"p":1}"#),
            ResponseItem::function_call("b", "read", r#"{"p":2}"#),
            ResponseItem::function_call_output("a", "one"),
            ResponseItem::FunctionCallOutput {
                call_id: "b".to_string(),
                output: FunctionCallOutputPayload {
                    body: FunctionCallOutputBody::ContentItems(vec![
                        FunctionCallOutputContentItem::InputText {
                            text: "screenshot".to_string(),
                        },
                        FunctionCallOutputContentItem::InputImage {
                            image_url: "data:image/png;base64,AAA".to_string(),
                            detail: Some("low".to_string()),
                        },
                    ]),
                    success: None,
                },
                extra: ExtraFields::new(),
            },
        ]),
        ..Prompt::default()
    };
    let body = request_body(&prompt, "m", &ModelInfo::default());
    assert_eq!(
        body["messages"],
        json!([
            {
                "role": "assistant",
                "content": "Checking both.",
                "tool_calls": [
                    { "id": "a", "type": "function", "function": { "name": "read", "arguments": "{\"p\":1}" } },
                    { "id": "b", "type": "function", "function": { "name": "read", "arguments": "{\"p\":2}" } },
                ]
            },
            { "role": "tool", "tool_call_id": "a", "content": "one" },
            { "role": "tool", "tool_call_id": "b", "content": "screenshot" },
            {
                "role": "user",
                "content": [
                    { "type": "text", "text": "Images returned by tool call b:" },
                    { "type": "image_url", "image_url": { "url": "data:image/png;base64,AAA", "detail": "low" } },
                ]
            },
        ])
    );
    assert_eq!(body.get("tools"), None);
    assert_eq!(body.get("reasoning_effort"), None);
}

#[test]
fn length_finish_reason_keeps_the_text_and_ends_truncated_with_or_without_done() {
    let chunks = [
        r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"The answer is"},"finish_reason":null}]}"#,
        r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
        r#"{"id":"c1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23}}"#,
    ];
    for done in [true, false] {
        let mut datas = chunks.to_vec();
        if done {
            datas.push("[DONE]");
        }
        let (events, end) = feed(&datas);
        assert_eq!(end, Ok(()), "with [DONE]: {done}");
        assert_eq!(
            events[events.len() - 3..],
            [
                ResponseEvent::OutputItemDone(ResponseItem::assistant_text("The answer is")),
                ResponseEvent::OutputTruncated {
                    reason: "length".to_string()
                },
                ResponseEvent::Completed {
                    response_id: "c1".to_string(),
                    token_usage: Some(TokenUsage {
                        input_tokens: 20,
                        cached_input_tokens: 0,
                        output_tokens: 3,
                        reasoning_output_tokens: 0,
                        total_tokens: 23,
                    }),
                },
            ],
            "with [DONE]: {done}"
        );
    }
}

#[test]
fn a_tool_call_cut_by_the_length_limit_is_left_out_and_whole_ones_kept() {
    let (events, end) = feed(&[
        r#"{"id":"c4","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1","function":{"name":"read","arguments":"{\"p\":1}"}}]}}]}"#,
        r#"{"id":"c4","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"t2","function":{"name":"write","arguments":"{\"p\":2,\"text\":\"abc"}}]}}]}"#,
        r#"{"id":"c4","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(end, Ok(()));
    let done: Vec<&ResponseEvent> = events
        .iter()
        .filter(|event| !matches!(event, ResponseEvent::Created))
        .collect();
    let whole = ResponseItem::function_call("t1", "read", r#"{"p":1}"#);
    assert_eq!(
        done,
        [
            &ResponseEvent::OutputItemAdded(whole.clone()),
            &ResponseEvent::OutputItemDone(whole),
            &ResponseEvent::OutputTruncated {
                reason: "length".to_string()
            },
            &ResponseEvent::Completed {
                response_id: "c4".to_string(),
                token_usage: None,
            },
        ]
    );
}

#[test]
fn other_finish_reasons_complete_as_before() {
    let (events, end) = feed(&[
        r#"{"id":"c5","choices":[{"index":0,"delta":{"content":"I cannot"},"finish_reason":"content_filter"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(end, Ok(()));
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, ResponseEvent::OutputTruncated { .. }))
    );
    assert!(matches!(
        events.last(),
        Some(ResponseEvent::Completed { .. })
    ));
}

#[test]
fn tool_call_names_repeated_cumulative_or_fragmented_assemble_once() {
    let chunk = |name: &str, arguments: &str| {
        format!(
            r#"{{"id":"c3","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"t1","function":{{"name":"{name}","arguments":"{arguments}"}}}}]}}}}]}}"#
        )
    };
    let cases = [
        // Repeated in every chunk (some vLLM and llama.cpp versions).
        (["read_file", "read_file", "read_file"], "read_file"),
        // Cumulative.
        (["read", "read_f", "read_file"], "read_file"),
        // Fragments, sent once each.
        (["read", "_fi", "le"], "read_file"),
    ];
    for (pieces, expected) in cases {
        let chunks: Vec<String> = pieces.iter().map(|piece| chunk(piece, "")).collect();
        let mut datas: Vec<&str> = chunks.iter().map(String::as_str).collect();
        datas
            .push(r#"{"id":"c3","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#);
        let (out, result) = feed(&datas);
        assert_eq!(result, Ok(()));
        assert!(
            out.contains(&ResponseEvent::OutputItemDone(ResponseItem::function_call(
                "t1", expected, "{}"
            ))),
            "{pieces:?}: {out:?}"
        );
    }
}

/// The environment context and the prompt as the history holds them: two user messages in a
/// row, as a new session's first turn sends them.
fn environment_then_prompt() -> Prompt<'static> {
    Prompt {
        instructions: "You are a coding agent.".to_string(),
        input: owned_items(vec![
            ResponseItem::user_text("<environment_context>cwd: /repo</environment_context>"),
            ResponseItem::developer_text("<permissions>read-only</permissions>"),
            ResponseItem::user_text("hi"),
        ]),
        ..Prompt::default()
    }
}

#[test]
fn merged_user_texts_are_one_string_for_strict_templates() {
    let cases = [
        (
            SystemMessageMode::AsUser,
            "<environment_context>cwd: /repo</environment_context>\n\n<permissions>read-only</permissions>\n\nhi",
        ),
        (
            SystemMessageMode::MergeIntoSystem,
            "<environment_context>cwd: /repo</environment_context>\n\nhi",
        ),
    ];
    for (mode, merged) in cases {
        let info = ModelInfo {
            system_messages: Some(mode),
            ..ModelInfo::default()
        };
        let body = request_body(&environment_then_prompt(), "m", &info);
        let messages = body["messages"].as_array().unwrap();
        assert!(
            messages
                .iter()
                .all(|message| message["content"].is_string()),
            "{mode:?}: {messages:#?}"
        );
        assert_eq!(
            messages.last().unwrap()["content"],
            json!(merged),
            "{mode:?}"
        );
    }
}

#[test]
fn merged_user_messages_are_parts_only_when_an_image_is_among_them() {
    let prompt = Prompt {
        input: owned_items(vec![
            ResponseItem::user_text("<environment_context>cwd: /repo</environment_context>"),
            ResponseItem::Message {
                id: None,
                role: "user".to_string(),
                content: vec![
                    ContentItem::InputText {
                        text: "like this".to_string(),
                    },
                    ContentItem::InputImage {
                        image_url: "data:image/png;base64,AAA".to_string(),
                        detail: None,
                    },
                ],
                extra: ExtraFields::new(),
            },
        ]),
        ..Prompt::default()
    };
    let body = request_body(&prompt, "m", &ModelInfo::default());
    assert_eq!(
        body["messages"],
        json!([{
            "role": "user",
            "content": [
                { "type": "text", "text": "<environment_context>cwd: /repo</environment_context>" },
                { "type": "text", "text": "like this" },
                { "type": "image_url", "image_url": { "url": "data:image/png;base64,AAA" } },
            ]
        }])
    );
}

#[test]
fn text_only_content_is_a_string_for_every_role() {
    let several_texts = |role: &str| ResponseItem::Message {
        id: None,
        role: role.to_string(),
        content: vec![
            ContentItem::InputText {
                text: "one".to_string(),
            },
            ContentItem::InputText {
                text: "two".to_string(),
            },
        ],
        extra: ExtraFields::new(),
    };
    let text_parts_output = ResponseItem::FunctionCallOutput {
        call_id: "a".to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::ContentItems(vec![
                FunctionCallOutputContentItem::InputText {
                    text: "line 1".to_string(),
                },
                FunctionCallOutputContentItem::InputText {
                    text: "line 2".to_string(),
                },
            ]),
            success: None,
        },
        extra: ExtraFields::new(),
    };
    let prompt = Prompt {
        input: owned_items(vec![
            several_texts("user"),
            several_texts("assistant"),
            ResponseItem::function_call("a", "read", "{}"),
            text_parts_output,
            several_texts("developer"),
            several_texts("user"),
        ]),
        ..Prompt::default()
    };
    for mode in [
        SystemMessageMode::AsUser,
        SystemMessageMode::MergeIntoSystem,
        SystemMessageMode::AsIs,
    ] {
        let info = ModelInfo {
            system_messages: Some(mode),
            ..ModelInfo::default()
        };
        let body = request_body(&prompt, "m", &info);
        for message in body["messages"].as_array().unwrap() {
            if let Some(content) = message.get("content") {
                assert!(content.is_string(), "{mode:?}: {message}");
            }
        }
    }
}

#[test]
fn assistant_tool_calls_without_text_have_no_content_key() {
    let prompt = Prompt {
        input: owned_items(vec![
            ResponseItem::user_text("list src"),
            ResponseItem::function_call("a", "shell", r#"{"command":["ls"]}"#),
            ResponseItem::function_call_output("a", "lib.rs"),
            ResponseItem::assistant_text(""),
            ResponseItem::function_call("b", "shell", r#"{"command":["ls","-a"]}"#),
            ResponseItem::function_call_output("b", ".git"),
        ]),
        ..Prompt::default()
    };
    let body = request_body(&prompt, "m", &ModelInfo::default());
    let assistants: Vec<&Value> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "assistant")
        .collect();
    assert_eq!(assistants.len(), 2, "{body:#}");
    for assistant in assistants {
        assert_eq!(assistant.get("content"), None, "{assistant}");
        assert_eq!(assistant["tool_calls"].as_array().map(Vec::len), Some(1));
    }
}

#[test]
fn an_unknown_output_limit_is_sized_from_the_window() {
    let hi = Prompt::system_and_user("Be brief.", "hi");
    let max_tokens = |info: &ModelInfo, prompt: &Prompt<'_>| {
        request_body(prompt, "m", info)
            .get("max_tokens")
            .and_then(Value::as_i64)
    };
    // A quarter of a small window; 8192 where the window is large.
    assert_eq!(
        max_tokens(&ModelInfo::with_context_window(4_096), &hi),
        Some(1_024)
    );
    assert_eq!(
        max_tokens(&ModelInfo::with_context_window(16_384), &hi),
        Some(4_096)
    );
    assert_eq!(
        max_tokens(&ModelInfo::with_context_window(131_072), &hi),
        Some(8_192)
    );
    // A long input leaves less room: input plus output stay within the window.
    let long = Prompt::system_and_user("Be brief.", "x".repeat(9_000));
    let limit = max_tokens(&ModelInfo::with_context_window(4_096), &long).unwrap();
    let body = request_body(&long, "m", &ModelInfo::with_context_window(4_096));
    let input_tokens = i64::try_from(body["messages"].to_string().len().div_ceil(3)).unwrap();
    assert!(limit < 1_024, "{limit}");
    assert!(input_tokens + limit <= 4_096, "{input_tokens} + {limit}");
    // A known limit is sent as it is.
    let known = ModelInfo {
        max_output_tokens: Some(32_000),
        ..ModelInfo::with_context_window(4_096)
    };
    assert_eq!(max_tokens(&known, &hi), Some(32_000));
}
