use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
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
        ]
    );
    assert!(matches!(
        &lines[17].item,
        RolloutItem::ResponseItem(ResponseItem::Other(_))
    ));
    assert!(matches!(&lines[27].item, RolloutItem::Unknown { .. }));
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
    assert!(serde_json::from_str::<RolloutLine>("[1]").is_err());
    assert!(serde_json::from_str::<RolloutLine>(r#"{"payload":{}}"#).is_err());
    assert!(serde_json::from_str::<RolloutLine>(r#"{"type":"x"}"#).is_err());
}
