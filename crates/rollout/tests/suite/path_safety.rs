//! The session id becomes part of the rollout's file name: an id that names another folder
//! (`..`, a separator, an absolute path) must not write outside `sessions/YYYY/MM/DD/`.

use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::SessionMetaLine;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutRecorder;
use chrono::Local;
use chrono::TimeZone;
use pretty_assertions::assert_eq;

fn meta_with_id(id: &str) -> SessionMetaLine {
    let line: RolloutLine = serde_json::from_str(
        include_str!("../fixtures/codex_current.jsonl")
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let RolloutItem::SessionMeta(mut meta) = line.item else {
        panic!("the fixture starts with its session header");
    };
    meta.id = id.to_string();
    meta
}

#[test]
fn a_session_id_that_names_another_folder_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("agentctx");
    let started = Local.with_ymd_and_hms(2025, 11, 14, 8, 12, 3).unwrap();
    let outside = home.path().join("escaped");
    let hostile = [
        format!("x/{}escaped/pwn", "../".repeat(5)),
        format!("{}escaped", "../".repeat(5)),
        format!("a/{}", outside.display()),
        "a\\..\\..\\b".to_string(),
        "..".to_string(),
        "with\0nul".to_string(),
    ];
    for id in &hostile {
        let result = RolloutRecorder::create_at(&root, meta_with_id(id), started);
        match result {
            Err(RolloutError::InvalidSessionId { id: named }) => assert_eq!(&named, id),
            Err(other) => panic!("{id:?}: expected InvalidSessionId, got {other}"),
            Ok(recorder) => panic!("{id:?} was accepted as {}", recorder.path().display()),
        }
    }
    assert!(
        !outside.exists(),
        "nothing was written outside the sessions tree"
    );
    // Nothing at all was created for the refused ids.
    assert!(!root.join("sessions").exists());
    // A UUID, and the other characters real ids use, still work.
    for id in ["0199a213-81c0-7800-8aa1-bbab2a035a53", "session_1.resumed"] {
        let recorder = RolloutRecorder::create_at(&root, meta_with_id(id), started).unwrap();
        assert!(
            recorder
                .path()
                .starts_with(root.join("sessions/2025/11/14"))
        );
    }
}
