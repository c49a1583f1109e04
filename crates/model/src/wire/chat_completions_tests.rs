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
fn length_finish_reason_is_incomplete_with_or_without_done() {
    let chunks = [
        r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"The answer is"},"finish_reason":null}]}"#,
        r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
    ];
    for done in [true, false] {
        let mut datas = chunks.to_vec();
        if done {
            datas.push("[DONE]");
        }
        let (events, end) = feed(&datas);
        assert_eq!(
            end,
            Err(ModelError::Incomplete {
                reason: "length".to_string()
            }),
            "with [DONE]: {done}"
        );
        assert!(matches!(
            events.last(),
            Some(ResponseEvent::OutputItemDone(item)) if item.message_text().as_deref() == Some("The answer is")
        ));
    }
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
