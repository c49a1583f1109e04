use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;

use super::LazyLineError;
use super::LazyRolloutLine;
use crate::rollout::RolloutLine;

const EVERY_KIND: &str = include_str!("../tests/fixtures/every_kind.jsonl");

/// What the typed reading of a line gives: the tree, then the line (or the same errors).
fn typed(line: &str) -> Result<RolloutLine, String> {
    let value: Value =
        serde_json::from_str(line.trim()).map_err(|err| format!("invalid json: {err}"))?;
    if !value.is_object() {
        return Err("not a json object".to_string());
    }
    RolloutLine::from_value(value).map_err(|err| err.to_string())
}

fn lazy(line: &str) -> Result<LazyRolloutLine, String> {
    LazyRolloutLine::parse(line.as_bytes()).map_err(|err| err.to_string())
}

/// Every payload wanted.
fn every_payload(_kind: &str, _payload_type: &str) -> bool {
    true
}

/// The line read typing its payload as it is read: the line `parse` gives, with the same item.
/// Returns whether the payload was typed on the way.
fn assert_typing_as_read_changes_nothing(line: &str) -> bool {
    let plain = lazy(line);
    let typing = LazyRolloutLine::parse_typing(line.as_bytes(), Some(every_payload))
        .map_err(|err| err.to_string());
    assert_eq!(typing, plain, "{line}");
    match (typing, plain) {
        (Ok(typing), Ok(plain)) => {
            assert_eq!(typing.item(), plain.item(), "{line}");
            assert_eq!(typing.to_line(), plain.to_line(), "{line}");
            let typed = typing.is_typed();
            assert_eq!(typing.into_item(), plain.into_item(), "{line}");
            typed
        }
        _ => false,
    }
}

/// The lazy line types to exactly the typed line, and its peeks agree with it.
fn assert_same(line: &str) {
    let expected = typed(line);
    let parsed = lazy(line);
    match (&expected, &parsed) {
        (Ok(expected), Ok(parsed)) => {
            assert_eq!(&parsed.to_line(), expected, "{line}");
            assert_eq!(&parsed.item(), &expected.item, "{line}");
            assert_eq!(parsed.kind(), expected.item.kind(), "{line}");
            assert_eq!(parsed.timestamp(), expected.timestamp, "{line}");
            assert_eq!(parsed.extra(), &expected.extra, "{line}");
            let payload: Value = serde_json::from_str(line.trim()).unwrap();
            let payload = &payload["payload"];
            assert_eq!(parsed.payload_value().unwrap(), *payload, "{line}");
            assert_eq!(
                parsed.payload_type(),
                payload.get("type").and_then(Value::as_str),
                "{line}"
            );
        }
        (Err(expected), Err(parsed)) => assert_eq!(parsed, expected, "{line}"),
        _ => panic!("{line}: typed {expected:?}, lazy {parsed:?}"),
    }
    assert_typing_as_read_changes_nothing(line);
}

#[test]
fn every_fixture_line_types_to_the_line_the_typed_reader_gives() {
    let mut lines = 0;
    for line in EVERY_KIND.lines().filter(|line| !line.trim().is_empty()) {
        assert_same(line);
        lines += 1;
    }
    assert!(lines > 40);
}

#[test]
fn odd_envelopes_read_as_the_json_tree_reads_them() {
    for line in [
        // Escapes in keys and strings, whitespace everywhere, members in any order.
        r#"  { "payload" : {"type":"agent_message","message":"a\"b"} , "typ\u0065":"event_msg", "timestamp":"t\n1" , "ordinal": 7 }  "#,
        // Duplicate members: the last wins, as in a tree.
        r#"{"type":"event_msg","type":"response_item","payload":{"type":"token_count"},"payload":{"type":"message","role":"user","content":[],"type":"reasoning"}}"#,
        // A timestamp that is not a string is kept with the envelope's other fields.
        r#"{"timestamp":12.5,"type":"turn_context","payload":{"cwd":"/x"}}"#,
        r#"{"timestamp":null,"type":"turn_context","payload":{"cwd":"/x"},"extra":[1,{"a":null}]}"#,
        // Payloads that are not objects, or have no string type.
        r#"{"type":"event_msg","payload":[1,2]}"#,
        r#"{"type":"event_msg","payload":{"type":5,"x":1}}"#,
        r#"{"type":"future_kind","payload":"text"}"#,
        r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"no","success":false}}"#,
        // Not in the envelope.
        r#"{"payload":{}}"#,
        r#"{"type":3,"payload":{}}"#,
        r#"{"type":"event_msg"}"#,
        r#"{}"#,
        // Not an object, not JSON.
        r#"[1,2]"#,
        r#""text""#,
        r#"{"type":"event_msg","payload":{}"#,
        r#"{"type":"event_msg","payload":{}} x"#,
        r#"{"type":"event_msg","payload":{},}"#,
        "{\"type\":\"event_msg\",\"payload\":{\"a\":\"\u{1}\"}}",
        r#"{"type":"event_msg","payload":{"a":tru}}"#,
        // Raw control characters in a key or a string member, escaped quotes in a key.
        "{\"timestamp\":\"a\u{1}b\",\"type\":\"x\",\"payload\":1}",
        "{\"ty\u{1}pe\":\"x\",\"payload\":1}",
        r#"{"a\"b":1,"type":"x","payload":1,"type\\":2}"#,
        r#"{"type":"x\u0000y","payload":1}"#,
    ] {
        assert_same(line);
    }
}

#[test]
fn payloads_typed_as_read_are_the_payloads_typed_when_asked() {
    let typed = EVERY_KIND
        .lines()
        .filter(|line| !line.trim().is_empty())
        .filter(|line| assert_typing_as_read_changes_nothing(line))
        .count();
    assert!(typed > 10, "{typed}");
    for (line, typed) in [
        (
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#,
            true,
        ),
        (
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[]},"x":1}"#,
            true,
        ),
        // The kind comes after the payload, or is given again after it: typed when asked.
        (
            r#"{"payload":{"type":"token_count","info":null},"type":"event_msg"}"#,
            false,
        ),
        (
            r#"{"type":"event_msg","payload":{"type":"token_count"},"type":"response_item"}"#,
            false,
        ),
        (
            r#"{"type":"response_item","payload":{"type":"token_count"},"type":"event_msg"}"#,
            false,
        ),
        // The payload given twice: the last one, typed or not.
        (
            r#"{"type":"event_msg","payload":{"type":"token_count"},"payload":{"type":"brand_new"}}"#,
            false,
        ),
        (
            r#"{"type":"event_msg","payload":{"type":"brand_new"},"payload":{"type":"token_count"}}"#,
            true,
        ),
        // The payload's type not first, not plain, or unknown; a kind not typed this way.
        (
            r#"{"type":"event_msg","payload":{"info":null,"type":"token_count"}}"#,
            false,
        ),
        (
            r#"{"type":"event_msg","payload":{"type":"token\u005fcount","info":null}}"#,
            false,
        ),
        (
            r#"{"type":"event_msg","payload":{"type":"task_started"}}"#,
            false,
        ),
        (
            r#"{"type":"turn_context","payload":{"type":"x","cwd":"/"}}"#,
            false,
        ),
        // A payload the fast path declines, or that is no JSON.
        (
            r#"{"type":"response_item","payload":{"type":"message","content":[]}}"#,
            false,
        ),
        (
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[]"#,
            false,
        ),
    ] {
        assert_eq!(assert_typing_as_read_changes_nothing(line), typed, "{line}");
    }
}

#[test]
fn only_the_wanted_payloads_are_typed_as_read() {
    fn only_token_counts(kind: &str, payload_type: &str) -> bool {
        kind == "event_msg" && payload_type == "token_count"
    }
    let typed = |line: &str| {
        LazyRolloutLine::parse_typing(line.as_bytes(), Some(only_token_counts))
            .unwrap()
            .is_typed()
    };
    assert!(typed(
        r#"{"type":"event_msg","payload":{"type":"token_count"}}"#
    ));
    assert!(!typed(
        r#"{"type":"event_msg","payload":{"type":"agent_message","message":"m"}}"#
    ));
    assert!(!typed(
        r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#
    ));
}

#[test]
fn bytes_that_are_not_utf8_are_reported_as_such() {
    let error =
        LazyRolloutLine::parse(b"{\"type\":\"event_msg\",\"payload\":\"\xff\"}").unwrap_err();
    assert!(matches!(error, LazyLineError::InvalidUtf8), "{error}");
}

#[test]
fn the_payload_text_is_kept_as_read() {
    let line = LazyRolloutLine::parse(
        br#"{"timestamp":"t","type":"event_msg","payload": { "type" : "token_count" , "info":null } }"#,
    )
    .unwrap();
    assert_eq!(
        line.payload_json(),
        r#"{ "type" : "token_count" , "info":null }"#
    );
    assert_eq!(line.payload_type(), Some("token_count"));
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z\"\\\\\n é]{0,8}".prop_map(Value::String),
    ]
}

proptest! {
    /// Any envelope of tree-shaped members reads lazily as it reads through the tree.
    #[test]
    fn generated_envelopes_agree(
        kind in prop_oneof![Just("response_item"), Just("event_msg"), Just("compacted"), Just("x")],
        payload_type in prop_oneof![Just("message"), Just("token_count"), Just("reasoning"), Just("user_message")],
        member in json_leaf(),
        extra in json_leaf(),
        timestamp in json_leaf(),
    ) {
        let line = serde_json::json!({
            "timestamp": timestamp,
            "type": kind,
            "payload": {"type": payload_type, "role": "user", "message": member, "content": []},
            "extra": extra,
        })
        .to_string();
        assert_same(&line);
    }
}

/// A [`super::ReadInPart`] reader of `event_msg` payloads whose `type` comes first: the payload
/// as a tree, kept as an unknown item (so it cannot be mistaken for the payload typed in full).
fn read_events_as_trees<'a>(
    kind: &str,
    first_type: Option<&'a str>,
    payload: &'a str,
) -> Option<super::PartRead<'a>> {
    if kind != "event_msg" || first_type.is_none() {
        return None;
    }
    let mut values = serde_json::Deserializer::from_str(payload).into_iter::<Value>();
    let value = values.next()?.ok()?;
    Some(super::PartRead {
        item: crate::rollout::RolloutItem::Unknown {
            kind: "read in part".to_string(),
            payload: value,
        },
        payload_type: first_type.map(std::borrow::Cow::Borrowed),
        length: values.byte_offset(),
    })
}

#[test]
fn a_payload_read_in_part_leaves_the_line_and_its_item_as_parse_gives_them() {
    let mut read_in_part = 0;
    for line in EVERY_KIND.lines() {
        let plain = lazy(line);
        let reading = LazyRolloutLine::parse_reading(
            line.as_bytes(),
            Some(every_payload),
            Some(read_events_as_trees),
        )
        .map_err(|err| err.to_string());
        assert_eq!(reading, plain, "{line}");
        let (Ok(reading), Ok(plain)) = (reading, plain) else {
            continue;
        };
        assert_eq!(reading.payload_json(), plain.payload_json(), "{line}");
        assert_eq!(reading.payload_type(), plain.payload_type(), "{line}");
        // The item is still the payload typed in full.
        assert_eq!(reading.item(), plain.item(), "{line}");
        match reading.part_read() {
            Some(crate::rollout::RolloutItem::Unknown { payload, .. }) => {
                assert_eq!(Ok(payload.clone()), plain.payload_value().map_err(|_| ()));
                assert!(!reading.is_typed(), "read in part, not typed: {line}");
                read_in_part += 1;
            }
            Some(other) => panic!("{other:?}"),
            None => assert_ne!(plain.kind(), "event_msg", "{line}"),
        }
        let mut taken = reading.clone();
        assert_eq!(taken.take_part_read().as_ref(), reading.part_read());
        assert_eq!(taken.take_part_read(), None, "taken once");
        assert_eq!(taken, plain, "the rest of the line stays");
    }
    assert!(read_in_part > 3, "{read_in_part}");
}

#[test]
fn a_payload_a_part_reader_cannot_read_is_read_as_usual() {
    // Invalid JSON inside the payload: the part reader fails, and the line fails as it would.
    let line =
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":[1,}}"#;
    let reading = LazyRolloutLine::parse_reading(line.as_bytes(), None, Some(read_events_as_trees))
        .map_err(|err| err.to_string());
    assert_eq!(reading, lazy(line));
    assert!(reading.is_err());
    // The line's type given again after the payload: what was read in part as another kind is
    // dropped, as a payload typed as another kind is.
    let line = r#"{"type":"event_msg","payload":{"type":"token_count"},"type":"response_item"}"#;
    let reading =
        LazyRolloutLine::parse_reading(line.as_bytes(), None, Some(read_events_as_trees)).unwrap();
    assert_eq!(reading.kind(), "response_item");
    assert!(reading.part_read().is_none());
}
