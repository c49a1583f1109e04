use agentctx_protocol::LoopEvent;
use pretty_assertions::assert_eq;

use super::SessionEvent;

#[test]
fn a_loop_event_is_one_json_object_with_one_type_per_level() {
    let event = SessionEvent::Loop(LoopEvent::CompactionCompleted {
        removed_messages: 12,
        summary_tokens: 340,
    });
    let line = serde_json::to_string(&event).unwrap();
    assert_eq!(
        line,
        r#"{"type":"loop","event":{"type":"compaction_completed","removed_messages":12,"summary_tokens":340}}"#
    );
    // Every key of an object once: the line reads back as the object it says.
    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(value["event"]["summary_tokens"], 340);
    let unit = serde_json::to_string(&SessionEvent::Loop(LoopEvent::CompactionStarted)).unwrap();
    assert_eq!(
        unit,
        r#"{"type":"loop","event":{"type":"compaction_started"}}"#
    );
}
