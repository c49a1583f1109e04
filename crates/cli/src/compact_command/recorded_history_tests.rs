use std::io::Cursor;
use std::path::Path;

use agentctx_compact::render_history;
use pretty_assertions::assert_eq;

use super::StopPoint;
use super::read_history;

const SESSION: &str = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1","base_instructions":{"text":"be brief"}}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done first"}]}}
{"timestamp":"t","type":"compacted","payload":{"message":"summary one","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"summary one"}]}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"second task"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done second"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"third task"}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}
{"timestamp":"t","type":"compacted","payload":{"message":"summary two"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fourth task"}]}}
"#;

fn history(stop: StopPoint) -> super::RecordedHistory {
    read_history(
        agentctx_rollout::RolloutReader::new(Path::new("s.jsonl"), Cursor::new(SESSION)),
        stop,
    )
    .unwrap()
}

#[test]
fn before_the_first_compaction_the_history_is_the_items_so_far() {
    let recorded = history(StopPoint::BeforeCompaction(1));
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:first task\n01:message/assistant:done first"
    );
    assert_eq!(recorded.session_id.as_deref(), Some("s1"));
    assert_eq!(recorded.base_instructions.as_deref(), Some("be brief"));
    assert_eq!(recorded.compactions_applied, 0);
    assert_eq!(recorded.compactions_in_file, None);
    assert_eq!(recorded.last_line, 3);
}

#[test]
fn a_recorded_replacement_history_replaces_the_items_and_a_rollback_drops_the_last_turn() {
    let recorded = history(StopPoint::BeforeCompaction(2));
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:first task\n01:message/user:summary one\n\
         02:message/user:second task\n03:message/assistant:done second"
    );
    assert_eq!(recorded.compactions_applied, 1);
}

#[test]
fn a_compaction_without_replacement_keeps_the_user_messages_and_the_summary() {
    let recorded = history(StopPoint::End);
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:first task\n01:message/user:summary one\n\
         02:message/user:second task\n03:message/user:summary two\n\
         04:message/user:fourth task"
    );
    assert_eq!(recorded.compactions_in_file, Some(2));
}

#[test]
fn at_line_stops_after_that_line() {
    let recorded = history(StopPoint::AfterLine(5));
    assert_eq!(recorded.last_line, 5);
    assert_eq!(recorded.compactions_applied, 1);
    assert_eq!(recorded.items.len(), 3);
}
