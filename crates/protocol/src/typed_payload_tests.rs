use pretty_assertions::assert_eq;
use schemars::JsonSchema;
use serde_json::json;

use super::*;
use crate::LazyRolloutLine;

/// The fast path never disagrees with the derived `Deserialize`: when it answers, the derived
/// path types the payload as the same value (and as a typed variant, not the fallback one).
/// Returns whether it answered.
fn answers_as_derived_item(payload: &str) -> bool {
    let derived = serde_json::from_str::<ResponseItem>(payload);
    match response_item(payload) {
        Some(fast) => {
            let derived = derived.unwrap_or_else(|err| panic!("{payload}: derived fails: {err}"));
            assert!(!matches!(derived, ResponseItem::Other(_)), "{payload}");
            assert_eq!(fast, derived, "{payload}");
            true
        }
        None => false,
    }
}

fn answers_as_derived_event(payload: &str) -> bool {
    let derived = serde_json::from_str::<EventMsg>(payload);
    match event_msg(payload) {
        Some(fast) => {
            let derived = derived.unwrap_or_else(|err| panic!("{payload}: derived fails: {err}"));
            assert!(!matches!(derived, EventMsg::Other(_)), "{payload}");
            assert_eq!(fast, derived, "{payload}");
            true
        }
        None => false,
    }
}

#[test]
fn items_of_every_variant_read_as_the_derived_path_reads_them() {
    let answered = [
        json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "hi \"there\"\n", "cache": true},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
            {"type": "input_image", "image_url": "u", "detail": "high"},
            {"type": "output_text", "text": "é\u{1F600}"}
        ], "id": null, "phase": "final", "meta": {"type": "nested", "n": [1, 2.5, -3]}}),
        json!({"type": "message", "role": "assistant", "content": [], "id": "msg_1"}),
        json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "s"}],
            "content": [{"type": "reasoning_text", "text": "r"}, {"type": "text", "text": "t"}],
            "encrypted_content": "gAAA", "id": "rs_1"}),
        json!({"type": "reasoning", "content": null}),
        json!({"type": "reasoning", "summary": []}),
        json!({"type": "local_shell_call", "action": {"type": "exec", "command": ["ls"]},
            "call_id": "c", "status": "completed", "id": null}),
        json!({"type": "function_call", "name": "shell", "arguments": "{\"cmd\":[\"ls\"]}",
            "call_id": "c1", "id": "fc_1", "extra_field": [null, true]}),
        json!({"type": "function_call_output", "call_id": "c1", "output": "done"}),
        json!({"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "a"},
            {"type": "input_image", "image_url": "u", "detail": null},
            {"type": "something_new", "x": 1},
            7
        ]}),
        json!({"type": "function_call_output", "call_id": "c1",
            "output": {"content": "old shape", "success": false}}),
        json!({"type": "function_call_output", "call_id": "c1", "output": 12}),
        json!({"type": "function_call_output", "call_id": "c1", "output": -1.5}),
        json!({"type": "function_call_output", "call_id": "c1", "output": null}),
        json!({"type": "function_call_output", "call_id": "c1", "output": true,
            "agentctx_success": false}),
        json!({"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin",
            "call_id": "c2", "status": "completed", "id": "ctc"}),
        json!({"type": "custom_tool_call_output", "call_id": "c2", "output": "ok"}),
        json!({"type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "q"}}),
        json!({"type": "web_search_call"}),
        json!({"type": "ghost_snapshot", "ghost_commit": {"id": "abc", "parent": null}}),
        json!({"type": "compaction", "encrypted_content": "e", "more": 1}),
        json!({"type": "compaction_summary", "encrypted_content": "e"}),
    ];
    for item in answered {
        let payload = tag_first(&item);
        assert!(answers_as_derived_item(&payload), "not answered: {payload}");
    }
}

/// `value` as JSON with every object's `type` first, as writers put it (`json!` keeps members
/// in key order).
fn tag_first(value: &Value) -> String {
    match value {
        Value::Object(members) => {
            let tag = members.get("type").map(|tag| ("type", tag));
            let rest = members.iter().filter(|(name, _)| *name != "type");
            let members: Vec<String> = tag
                .into_iter()
                .chain(rest.map(|(name, value)| (name.as_str(), value)))
                .map(|(name, value)| format!("{}:{}", json!(name), tag_first(value)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(values) => {
            let values: Vec<String> = values.iter().map(tag_first).collect();
            format!("[{}]", values.join(","))
        }
        other => other.to_string(),
    }
}

#[test]
fn written_payloads_keep_their_members_in_order_and_read_back() {
    // The enum writes its tag first: what agentctx records takes the fast path.
    let items = [
        ResponseItem::user_text("hello"),
        ResponseItem::assistant_text("hi"),
        ResponseItem::FunctionCallOutput {
            call_id: "c".to_string(),
            output: FunctionCallOutputPayload::text("out"),
            extra: ExtraFields::default(),
        },
    ];
    for item in items {
        let payload = serde_json::to_string(&item).unwrap();
        assert!(answers_as_derived_item(&payload), "{payload}");
        assert_eq!(response_item(&payload), Some(item));
    }
}

#[test]
fn unusual_items_are_left_to_the_derived_path() {
    let declined = [
        // The tag is not first, not a string, unknown, or given twice.
        r#"{"role":"user","type":"message","content":[]}"#,
        r#"{"type":0,"role":"user","content":[]}"#,
        r#"{"type":"brand_new_item","x":1}"#,
        r#"{"type":"message","role":"user","content":[],"type":"message"}"#,
        // A field missing, mistyped or given twice.
        r#"{"type":"message","content":[]}"#,
        r#"{"type":"message","role":7,"content":[]}"#,
        r#"{"type":"message","role":"user","role":"user","content":[]}"#,
        r#"{"type":"reasoning","summary":null}"#,
        r#"{"type":"function_call","name":"f","arguments":"{}"}"#,
        r#"{"type":"local_shell_call"}"#,
        // A part the fast path does not know, or whose tag repeats.
        r#"{"type":"message","role":"user","content":[{"type":"input_audio","data":"x"}]}"#,
        r#"{"type":"message","role":"user","content":[{"text":"t","type":"input_text"}]}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"t","type":"input_text"}]}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text"}]}"#,
        r#"{"type":"reasoning","summary":[{"type":"other_summary","text":"x"}]}"#,
        // Not an object.
        r#"["message",{"role":"user"}]"#,
        "null",
        // Trailing text.
        r#"{"type":"message","role":"user","content":[]} x"#,
    ];
    for payload in declined {
        assert_eq!(response_item(payload), None, "{payload}");
    }
}

#[test]
fn duplicate_and_escaped_members_read_as_the_derived_path_reads_them() {
    for payload in [
        // An unknown member twice: the last one is kept, as the derived path keeps it.
        r#"{"type":"message","role":"user","content":[],"x":1,"x":2}"#,
        // Escaped names and tag.
        r#"{"typ\u0065":"mess\u0061ge","ro\u006ce":"user","content":[],"\u0078":"y"}"#,
        // Escapes in values.
        r#"{"type":"function_call_output","call_id":"c\n","output":"a\u0000b\\c"}"#,
    ] {
        assert!(answers_as_derived_item(payload), "not answered: {payload}");
    }
}

#[test]
fn events_read_as_the_derived_path_reads_them() {
    for payload in [
        r#"{"type":"token_count","info":null,"rate_limits":null}"#,
        r#"{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":3,"reasoning_output_tokens":0,"total_tokens":13},"last_token_usage":{"input_tokens":10,"output_tokens":3,"total_tokens":13},"model_context_window":272000,"new":1},"rate_limits":{"primary":{"used_percent":1.5}},"model":"m"}"#,
        r#"{"type":"token_count"}"#,
        r#"{"type":"context_compacted"}"#,
        r#"{"type":"context_compacted","x":[1]}"#,
        r#"{"type":"user_message","message":"hi","kind":"plain","images":[]}"#,
        r#"{"type":"agent_message","message":"hello"}"#,
        r#"{"type":"agent_reasoning","text":"r"}"#,
        r#"{"type":"agent_reasoning_raw_content","text":"r"}"#,
        r#"{"type":"turn_aborted","reason":"interrupted"}"#,
        r#"{"type":"thread_rolled_back","num_turns":2,"from":"x"}"#,
    ] {
        assert!(answers_as_derived_event(payload), "not answered: {payload}");
    }
    for payload in [
        r#"{"type":"task_started","turn":1}"#,
        r#"{"info":null,"type":"token_count"}"#,
        r#"{"type":"token_count","info":null,"type":"token_count"}"#,
        r#"{"type":"token_count","info":7}"#,
        r#"{"type":"thread_rolled_back"}"#,
        r#"{"type":"user_message","message":null}"#,
    ] {
        assert_eq!(event_msg(payload), None, "{payload}");
    }
}

const EVERY_KIND: &str = include_str!("../tests/fixtures/every_kind.jsonl");

#[test]
fn every_recorded_payload_of_the_fixture_reads_as_the_derived_path_reads_it() {
    let (mut payloads, mut answered) = (0, 0);
    for line in EVERY_KIND.lines() {
        let Ok(line) = LazyRolloutLine::parse(line.as_bytes()) else {
            continue;
        };
        let answers = match line.kind() {
            "response_item" => answers_as_derived_item(line.payload_json()),
            "event_msg" => answers_as_derived_event(line.payload_json()),
            "compacted" => match compacted(line.payload_json()) {
                Some(fast) => {
                    let derived: crate::rollout::CompactedItem =
                        serde_json::from_str(line.payload_json()).unwrap();
                    assert_eq!(fast, derived, "{}", line.payload_json());
                    true
                }
                None => false,
            },
            _ => continue,
        };
        payloads += 1;
        answered += usize::from(answers);
    }
    // The fixture holds every kind, odd ones included: the fast path answers for most.
    assert!(
        payloads > 30 && answered * 4 > payloads * 3,
        "{answered} of {payloads}"
    );
}

/// The schema of a variant or fields struct, as an object: its properties and required members
/// (the tag taken out), descriptions and default values left out (a field's `default` shows in
/// whether it is required).
fn members(schema: &Value) -> Value {
    let mut properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    properties.remove("type");
    for property in properties.values_mut() {
        if let Some(property) = property.as_object_mut() {
            property.remove("description");
            property.remove("default");
        }
    }
    let mut required: Vec<Value> = schema["required"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|name| name != "type")
        .collect();
    required.sort_by_key(ToString::to_string);
    json!({"properties": properties, "required": required})
}

fn fields_schema<T: JsonSchema>() -> Value {
    members(&serde_json::to_value(schemars::schema_for!(T).schema).unwrap())
}

/// Each variant's schema, by its tag.
fn variant_schemas<T: JsonSchema>() -> Vec<(String, Value)> {
    let schema = serde_json::to_value(schemars::schema_for!(T).schema).unwrap();
    schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|variant| {
            let tag = variant["properties"]["type"]["enum"][0].as_str()?;
            // The untagged fallback, which the fast path never gives.
            (tag != "other").then(|| (tag.to_string(), members(variant)))
        })
        .collect()
}

#[test]
fn the_fields_spelled_again_are_the_variants_fields() {
    let items = variant_schemas::<ResponseItem>();
    let tags: Vec<&str> = items.iter().map(|(tag, _)| tag.as_str()).collect();
    assert_eq!(
        tags,
        vec![
            "message",
            "reasoning",
            "local_shell_call",
            "function_call",
            "function_call_output",
            "custom_tool_call",
            "custom_tool_call_output",
            "web_search_call",
            "ghost_snapshot",
            "compaction",
        ]
    );
    for (tag, variant) in items {
        let fields = match tag.as_str() {
            "message" => fields_schema::<MessageFields>(),
            "reasoning" => fields_schema::<ReasoningFields>(),
            "local_shell_call" => fields_schema::<LocalShellCallFields>(),
            "function_call" => fields_schema::<FunctionCallFields>(),
            "function_call_output" | "custom_tool_call_output" => {
                fields_schema::<ToolOutputFields>()
            }
            "custom_tool_call" => fields_schema::<CustomToolCallFields>(),
            "web_search_call" => fields_schema::<WebSearchCallFields>(),
            "ghost_snapshot" => fields_schema::<GhostSnapshotFields>(),
            "compaction" => fields_schema::<CompactionFields>(),
            other => panic!("no fields for {other}"),
        };
        assert_eq!(fields, variant, "{tag}");
    }
    assert_eq!(
        fields_schema::<CompactedFields>(),
        fields_schema::<crate::rollout::CompactedItem>()
    );
    let parts = [
        (
            variant_schemas::<ContentItem>(),
            vec!["input_text", "input_image", "output_text"],
        ),
        (variant_schemas::<ReasoningSummary>(), vec!["summary_text"]),
        (
            variant_schemas::<ReasoningContent>(),
            vec!["reasoning_text", "text"],
        ),
    ];
    for (variants, tags) in parts {
        assert_eq!(
            variants
                .iter()
                .map(|(tag, _)| tag.as_str())
                .collect::<Vec<_>>(),
            tags
        );
        for (tag, variant) in variants {
            let fields = match tag.as_str() {
                "input_image" => fields_schema::<ImageFields>(),
                _ => fields_schema::<TextField>(),
            };
            assert_eq!(fields, variant, "{tag}");
        }
    }
}

#[test]
fn compactions_read_as_the_derived_path_reads_them() {
    let item = r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#;
    for (payload, answered) in [
        (
            format!(r#"{{"message":"summary","replacement_history":[{item},{item}]}}"#),
            true,
        ),
        (
            r#"{"message":"s","replacement_history":null,"x":[1]}"#.to_string(),
            true,
        ),
        (r#"{"replacement_history":[]}"#.to_string(), true),
        (r#"{}"#.to_string(), true),
        (r#"{"message":"s","type":"compacted"}"#.to_string(), true),
        // An item the fast path leaves to the derived one, a field mistyped or repeated.
        (
            r#"{"message":"s","replacement_history":[{"type":"brand_new"}]}"#.to_string(),
            false,
        ),
        (r#"{"message":7}"#.to_string(), false),
        (r#"{"message":"a","message":"b"}"#.to_string(), false),
    ] {
        let fast = compacted(&payload);
        assert_eq!(fast.is_some(), answered, "{payload}");
        if let Some(fast) = fast {
            let derived: crate::rollout::CompactedItem = serde_json::from_str(&payload).unwrap();
            assert_eq!(fast, derived, "{payload}");
        }
    }
}
