use pretty_assertions::assert_eq;
use serde_json::json;

use super::RecordView;
use super::as_bool;
use super::as_str;
use super::block_type;
use super::to_value;

#[test]
fn lines_that_are_not_objects_have_no_view() {
    for line in ["[1]", "\"text\"", "{", "{\"type\":\"user\"} x", "not json"] {
        assert!(RecordView::parse(line).is_none(), "{line}");
    }
}

/// Members are read as a JSON tree reads them: the last duplicate wins, a value of another JSON
/// type reads as absent, escapes are decoded.
#[test]
fn members_read_as_a_json_tree_reads_them() {
    let view = RecordView::parse(
        r#"{"type":"user","toolUseResult":{"stdout":"big"},"isMeta":"yes","type":"assi\u0073tant","isSidechain":true,"uuid":7,"message":{"content":[{"type":"tool_result","content":"x"},"text"],"id":null}}"#,
    )
    .unwrap();
    assert_eq!(view.kind.and_then(as_str).as_deref(), Some("assistant"));
    assert_eq!(view.is_meta.and_then(as_bool), None);
    assert_eq!(view.is_sidechain.and_then(as_bool), Some(true));
    assert_eq!(view.uuid.and_then(as_str), None);
    let message = view.message();
    assert_eq!(message.id.map(|id| id.get()), Some("null"));
    let blocks: Vec<&serde_json::value::RawValue> =
        serde_json::from_str(message.content.unwrap().get()).unwrap();
    let types: Vec<_> = blocks.iter().map(|block| block_type(block)).collect();
    assert_eq!(types, [Some("tool_result".into()), None]);
    assert_eq!(
        to_value(blocks[0]),
        json!({"type": "tool_result", "content": "x"})
    );
}

#[test]
fn a_message_that_is_not_an_object_has_no_members() {
    let view = RecordView::parse(r#"{"type":"user","message":"hi"}"#).unwrap();
    assert!(view.message.is_some());
    assert!(view.message().content.is_none());
}
