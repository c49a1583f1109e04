use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::RolloutLineError;
use pretty_assertions::assert_eq;
use serde_json::Value;

const EVERY_KIND: &str = include_str!("../fixtures/every_kind.jsonl");

fn parse_all(text: &str) -> Vec<RolloutLine> {
    text.lines()
        .map(|line| serde_json::from_str::<RolloutLine>(line).unwrap())
        .collect()
}

#[test]
fn every_kind_round_trips_to_equal_json() {
    let first = parse_all(EVERY_KIND);
    let written: Vec<String> = first
        .iter()
        .map(|line| serde_json::to_string(line).unwrap())
        .collect();
    let second = parse_all(&written.join("\n"));
    assert_eq!(first, second);
    for (original, rewritten) in EVERY_KIND.lines().zip(&written) {
        let original: Value = serde_json::from_str(original).unwrap();
        let rewritten: Value = serde_json::from_str(rewritten).unwrap();
        assert_eq!(original, rewritten);
    }
}

#[test]
fn every_kind_is_parsed_into_its_typed_variant() {
    let lines = parse_all(EVERY_KIND);
    let kinds: Vec<String> = lines
        .iter()
        .map(|line| match &line.item {
            RolloutItem::ResponseItem(item) => format!("response_item/{}", item.type_name()),
            RolloutItem::EventMsg(EventMsg::Other(value)) => {
                format!("event_msg/other:{}", value["type"].as_str().unwrap())
            }
            RolloutItem::EventMsg(event) => format!(
                "event_msg/{}",
                serde_json::to_value(event).unwrap()["type"]
                    .as_str()
                    .unwrap()
            ),
            other => other.kind().to_string(),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "session_meta",
            "response_item/message",
            "response_item/message",
            "turn_context",
            "event_msg/user_message",
            "response_item/message",
            "response_item/reasoning",
            "response_item/reasoning",
            "response_item/function_call",
            "response_item/function_call_output",
            "response_item/function_call_output",
            "response_item/local_shell_call",
            "response_item/custom_tool_call",
            "response_item/custom_tool_call_output",
            "response_item/web_search_call",
            "response_item/ghost_snapshot",
            "response_item/compaction",
            "response_item/image_generation_call",
            "response_item/message",
            "event_msg/agent_message",
            "event_msg/agent_reasoning",
            "event_msg/token_count",
            "event_msg/token_count",
            "event_msg/other:exec_command_end",
            "compacted",
            "event_msg/context_compacted",
            "event_msg/turn_aborted",
            "world_state",
            "response_item/function_call_output",
            "response_item/compaction",
            "compacted",
            "compacted",
            "response_item/tool_search_call",
            "response_item/tool_search_output",
            "response_item/context_compaction",
            "response_item/web_search_call",
            "response_item/web_search_call",
            "response_item/web_search_call",
            "response_item/message",
            "response_item/custom_tool_call_output",
            "response_item/local_shell_call",
            "response_item/reasoning",
            "response_item/function_call_output",
            "event_msg/token_count",
            "event_msg/token_count",
            "session_meta",
            "event_msg/user_message",
        ]
    );
    assert!(matches!(
        &lines[17].item,
        RolloutItem::ResponseItem(ResponseItem::Other(_))
    ));
    assert!(matches!(&lines[27].item, RolloutItem::Unknown { .. }));
}

#[test]
fn every_line_is_written_back_byte_for_byte_in_value() {
    // Stronger than equal parsed values: each written line equals its source line as JSON, and
    // reading it again gives the same typed line (fidelity included).
    for (number, original) in EVERY_KIND.lines().enumerate() {
        let line: RolloutLine = serde_json::from_str(original).unwrap();
        let written = serde_json::to_value(&line).unwrap();
        assert_eq!(
            written,
            serde_json::from_str::<Value>(original).unwrap(),
            "line {}",
            number + 1
        );
        let again: RolloutLine = serde_json::from_value(written).unwrap();
        assert_eq!(again, line, "line {}", number + 1);
    }
}

#[test]
fn compacted_with_and_without_replacement_history() {
    let lines = parse_all(EVERY_KIND);
    let RolloutItem::Compacted(legacy) = &lines[30].item else {
        panic!("compacted expected");
    };
    assert_eq!(legacy.replacement_history, None);
    assert_eq!(legacy.message, "legacy summary without replacement history");
    let RolloutItem::Compacted(remote) = &lines[31].item else {
        panic!("compacted expected");
    };
    let kinds: Vec<&str> = remote
        .replacement_history
        .as_ref()
        .unwrap()
        .iter()
        .map(ResponseItem::type_name)
        .collect();
    assert_eq!(
        kinds,
        vec!["message", "reasoning", "compaction", "tool_search_call"]
    );
    assert_eq!(remote.extra["window_number"], 2);
}

#[test]
fn message_phase_and_end_turn_are_kept_and_typed_text_is_read() {
    let lines = parse_all(EVERY_KIND);
    let RolloutItem::ResponseItem(item @ ResponseItem::Message { extra, .. }) = &lines[38].item
    else {
        panic!("message expected");
    };
    assert_eq!(item.message_text().as_deref(), Some("Working on it."));
    assert_eq!(extra["phase"], "commentary");
    assert_eq!(extra["end_turn"], false);
}

#[test]
fn legacy_object_output_reads_its_content_and_success() {
    let lines = parse_all(EVERY_KIND);
    let RolloutItem::ResponseItem(ResponseItem::FunctionCallOutput { output, .. }) =
        &lines[42].item
    else {
        panic!("function_call_output expected");
    };
    assert_eq!(output.text_content(), "legacy with items");
    assert_eq!(output.success, Some(false));
    let RolloutItem::ResponseItem(ResponseItem::FunctionCallOutput { output, .. }) =
        &lines[28].item
    else {
        panic!("function_call_output expected");
    };
    assert_eq!(output.text_content(), "legacy object shape");
    assert_eq!(output.success, Some(true));
}

#[test]
fn an_edited_item_is_written_as_edited() {
    let raw = r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[],"content":null,"encrypted_content":null}}"#;
    let mut line: RolloutLine = serde_json::from_str(raw).unwrap();
    let RolloutItem::ResponseItem(ResponseItem::Reasoning { content, .. }) = &mut line.item else {
        panic!("reasoning expected");
    };
    *content = Some(vec![agentctx_protocol::ReasoningContent::Text {
        text: "now set".to_string(),
    }]);
    let written = serde_json::to_value(&line).unwrap();
    assert_eq!(
        written["payload"],
        serde_json::json!({"type":"reasoning","summary":[],"content":[{"type":"text","text":"now set"}],"encrypted_content":null})
    );
}

#[test]
fn token_count_reads_last_usage_and_window() {
    let lines = parse_all(EVERY_KIND);
    let RolloutItem::EventMsg(EventMsg::TokenCount(event)) = &lines[21].item else {
        panic!("token_count expected");
    };
    let info = event.info.as_ref().unwrap();
    assert_eq!(info.last_token_usage.context_occupancy(), 12_400);
    assert_eq!(info.model_context_window, Some(272_000));
}

#[test]
fn compaction_summary_alias_is_read() {
    let item: ResponseItem =
        serde_json::from_str(r#"{"type":"compaction_summary","encrypted_content":"x"}"#).unwrap();
    assert_eq!(item.type_name(), "compaction");
}

#[test]
fn known_type_with_unexpected_payload_is_kept_verbatim() {
    let raw = r#"{"timestamp":"t","type":"compacted","payload":["not","an","object"]}"#;
    let line: RolloutLine = serde_json::from_str(raw).unwrap();
    assert!(matches!(line.item, RolloutItem::Unknown { .. }));
    assert_eq!(
        serde_json::to_value(&line).unwrap(),
        serde_json::from_str::<Value>(raw).unwrap()
    );
}

#[test]
fn lines_without_envelope_are_rejected_with_typed_errors() {
    for (raw, expected) in [
        ("[1]", RolloutLineError::NotAnObject),
        (r#"{"payload":{}}"#, RolloutLineError::MissingType),
        (r#"{"type":7,"payload":{}}"#, RolloutLineError::MissingType),
        (
            r#"{"type":"x"}"#,
            RolloutLineError::MissingPayload("x".to_string()),
        ),
    ] {
        // Deserializing reports the same reason.
        let err = serde_json::from_str::<RolloutLine>(raw).unwrap_err();
        assert_eq!(err.to_string(), expected.to_string(), "{raw}");
        let value: Value = serde_json::from_str(raw).unwrap();
        assert_eq!(
            RolloutLine::from_value(value).map(|_| ()),
            Err(expected),
            "{raw}"
        );
    }
}

#[test]
fn thread_rolled_back_is_a_typed_event_with_its_turn_count() {
    // codex-rs `EventMsg::ThreadRolledBack(ThreadRolledBackEvent { num_turns: u32 })`, tagged
    // `thread_rolled_back` like every event.
    let line = r#"{"timestamp":"2025-11-24T09:40:00.000Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":2}}"#;
    let parsed: RolloutLine = serde_json::from_str(line).unwrap();
    let RolloutItem::EventMsg(EventMsg::ThreadRolledBack(event)) = &parsed.item else {
        panic!("a thread_rolled_back event, got {:?}", parsed.item);
    };
    assert_eq!(event.num_turns, 2);
    assert_eq!(
        serde_json::to_value(&parsed).unwrap(),
        serde_json::from_str::<Value>(line).unwrap()
    );
    // Without its count it is not a rollback this version understands: kept verbatim.
    let odd = r#"{"timestamp":"","type":"event_msg","payload":{"type":"thread_rolled_back"}}"#;
    let parsed: RolloutLine = serde_json::from_str(odd).unwrap();
    assert!(matches!(
        parsed.item,
        RolloutItem::EventMsg(EventMsg::Other(_))
    ));
}

#[test]
fn an_injected_mark_survives_a_session_file_and_is_left_out_of_requests() {
    let mut item = ResponseItem::user_text("Base directory for this skill: /s");
    assert!(!item.is_injected());
    item.set_injected(true);
    let line = RolloutLine::new("t", RolloutItem::ResponseItem(item.clone()));
    let read: RolloutLine = serde_json::from_str(&serde_json::to_string(&line).unwrap()).unwrap();
    let RolloutItem::ResponseItem(read) = read.item else {
        panic!("a response item");
    };
    assert!(read.is_injected());
    assert_eq!(
        item.without_harness_fields(),
        ResponseItem::user_text("Base directory for this skill: /s")
    );
}
