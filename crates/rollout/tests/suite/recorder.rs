use std::path::Path;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::SessionMetaLine;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutRecorder;
use agentctx_rollout::read_rollout;
use chrono::Local;
use chrono::TimeZone;
use pretty_assertions::assert_eq;
use serde_json::Value;

const CODEX_CURRENT: &str = include_str!("../fixtures/codex_current.jsonl");

fn fixture_lines() -> Vec<RolloutLine> {
    CODEX_CURRENT
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn meta_of(line: &RolloutLine) -> SessionMetaLine {
    match &line.item {
        RolloutItem::SessionMeta(meta) => meta.clone(),
        other => panic!("expected a session header, got {other:?}"),
    }
}

#[test]
fn recorded_lines_read_back_as_equal_json() {
    let home = tempfile::tempdir().unwrap();
    let lines = fixture_lines();
    let started = Local.with_ymd_and_hms(2025, 11, 14, 8, 12, 3).unwrap();
    let mut recorder =
        RolloutRecorder::create_at(home.path(), meta_of(&lines[0]), started).unwrap();
    assert_eq!(
        recorder.path(),
        home.path().join(
            "sessions/2025/11/14/rollout-2025-11-14T08-12-03-019a8127-5c3e-7d21-9f40-2b6e1d7c9a01.jsonl"
        )
    );
    recorder.append(&lines[1..]).unwrap();
    recorder.flush().unwrap();

    let file = read_rollout(recorder.path()).unwrap();
    assert_eq!(file.format, RolloutFormat::Codex);
    assert_eq!(file.skipped, vec![]);
    let read: Vec<Value> = file
        .records
        .iter()
        .map(|record| record.line.to_value().unwrap())
        .collect();
    let expected: Vec<Value> = CODEX_CURRENT
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // The header is rewritten with the recorder's own timestamp; its payload is unchanged.
    assert_eq!(read[0]["payload"], expected[0]["payload"]);
    assert_eq!(read[1..], expected[1..]);
}

#[test]
fn resume_appends_to_the_same_file() {
    let home = tempfile::tempdir().unwrap();
    let mut first = RolloutRecorder::create(home.path(), SessionMetaLine::default()).unwrap();
    first
        .record_response_items(&[ResponseItem::user_text("one")])
        .unwrap();
    first.flush().unwrap();
    let path = first.path().to_path_buf();
    let session_id = first.session_id().to_string();
    drop(first);

    let mut resumed = RolloutRecorder::resume(&path, session_id.clone()).unwrap();
    resumed
        .record_response_items(&[ResponseItem::assistant_text("two")])
        .unwrap();
    resumed.flush().unwrap();

    let file = read_rollout(&path).unwrap();
    assert_eq!(file.session_meta().unwrap().id, session_id);
    let texts: Vec<String> = file
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert_eq!(texts, vec!["one".to_string(), "two".to_string()]);
    let timestamp = &file.records[1].line.timestamp;
    assert!(
        chrono::NaiveDateTime::parse_from_str(timestamp, "%Y-%m-%dT%H:%M:%S%.3fZ").is_ok(),
        "timestamp {timestamp}"
    );
}

#[test]
fn resume_of_a_missing_file_is_a_typed_error_naming_it() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("nope.jsonl");
    let err = RolloutRecorder::resume(&missing, "x").unwrap_err();
    match &err {
        RolloutError::Open { path, source } => {
            assert_eq!(path, &missing);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected an open error, got {other:?}"),
    }
    assert!(err.to_string().contains("nope.jsonl"), "{err}");
}

#[test]
fn concurrent_writers_never_tear_lines() {
    let home = tempfile::tempdir().unwrap();
    let recorder = RolloutRecorder::create(home.path(), SessionMetaLine::default()).unwrap();
    let path = recorder.path().to_path_buf();
    let big = "x".repeat(70_000);
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let path = path.clone();
            let big = big.clone();
            std::thread::spawn(move || {
                let mut recorder = RolloutRecorder::resume(Path::new(&path), "s").unwrap();
                for n in 0..25 {
                    recorder
                        .record_response_items(&[
                            ResponseItem::user_text(format!("{writer}-{n}-{big}")),
                            ResponseItem::assistant_text(format!("{writer}-{n}")),
                        ])
                        .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let file = read_rollout(&path).unwrap();
    assert_eq!(file.skipped, vec![]);
    assert_eq!(file.items().count(), 4 * 25 * 2);
    // Each call's two lines are adjacent: one locked write.
    let items: Vec<String> = file
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert_eq!(items.len(), 4 * 25 * 2);
    for pair in items.chunks(2) {
        assert!(pair[0].starts_with(&format!("{}-", pair[1])));
    }
}
