use std::path::Path;

use agentctx_compact::MicroCompactSkip;
use agentctx_context::ContextManager;
use agentctx_protocol::ResponseItem;
use agentctx_reminders::FileChangeKind;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::MicroCompactNow;
use super::OfflineResult;
use super::OfflineTier;
use super::TierNotApplied;
use crate::ContextEngine;
use crate::EngineOptions;

/// An engine over `history` for a session in `cwd`, its home under `home`.
fn engine(cwd: &Path, home: &Path, history: Vec<ResponseItem>) -> ContextEngine {
    let mut manager = ContextManager::new();
    manager.replace(history);
    ContextEngine::with_history(
        EngineOptions {
            cwd: cwd.to_path_buf(),
            home: home.to_path_buf(),
            session_id: "s1".to_string(),
            reminders: Default::default(),
            compact: Default::default(),
            context_window: 200_000,
            max_output_tokens: None,
        },
        manager,
    )
}

/// A session that reads `src/lib.rs` with `read_file` and answers.
fn reads_lib(seen: &str) -> Vec<ResponseItem> {
    let numbered: String = seen
        .lines()
        .enumerate()
        .map(|(index, line)| format!("{:>6}\t{line}\n", index + 1))
        .collect();
    vec![
        ResponseItem::user_text("what does lib.rs do?"),
        ResponseItem::function_call("c1", "read_file", json!({"path": "src/lib.rs"}).to_string()),
        ResponseItem::function_call_output("c1", numbered),
        ResponseItem::assistant_text("It adds two numbers."),
    ]
}

/// The texts of the restored-file items of `history`.
fn restored_texts(history: &[ResponseItem]) -> Vec<String> {
    history
        .iter()
        .filter_map(ResponseItem::message_text)
        .filter(|text| text.contains("was read before the conversation was summarized"))
        .collect()
}

#[test]
fn a_file_changed_on_disk_since_the_recorded_read_is_reported_as_changed() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(cwd.path().join("src")).unwrap();
    let seen = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    std::fs::write(
        cwd.path().join("src/lib.rs"),
        "pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n",
    )
    .unwrap();
    let history = reads_lib(seen);
    let engine = engine(cwd.path(), home.path(), history.clone());
    assert_eq!(engine.observe_recorded_reads(cwd.path(), &history), 1);
    let changes = engine.reminders().file_tracker().detect_changes();
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let FileChangeKind::Modified { old, .. } = &changes[0].kind else {
        panic!("{changes:#?}");
    };
    assert_eq!(old.as_ref(), seen);
}

#[tokio::test]
async fn a_file_on_disk_that_agrees_is_tracked_unchanged_and_restored_from_disk() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(cwd.path().join("src")).unwrap();
    // The read tools do not show the final newline; the disk has it.
    let content = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}";
    std::fs::write(cwd.path().join("src/lib.rs"), format!("{content}\n")).unwrap();
    let history = reads_lib(content);
    let mut engine = engine(cwd.path(), home.path(), history.clone());
    engine.observe_recorded_reads(cwd.path(), &history);
    assert!(
        engine
            .reminders()
            .file_tracker()
            .detect_changes()
            .is_empty()
    );

    let done = engine
        .compact_offline(OfflineTier::Full, None, "")
        .await
        .unwrap();
    let OfflineResult::Compacted(compacted) = done.result else {
        panic!("{:#?}", done.result);
    };
    let real = std::fs::canonicalize(cwd.path().join("src/lib.rs")).unwrap();
    assert_eq!(
        compacted.compaction.restored_files,
        vec![(real, format!("{content}\n"))]
    );
    assert_eq!(restored_texts(engine.history()).len(), 1);
}

#[tokio::test]
async fn a_file_not_on_this_machine_is_restored_as_the_model_saw_it() {
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/nonexistent/agentctx/session");
    let seen = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    let history = reads_lib(seen);
    let mut engine = engine(cwd, home.path(), history.clone());
    engine.observe_recorded_reads(cwd, &history);
    // Nothing to compare with: not tracked.
    assert!(engine.reminders().file_tracker().is_empty());

    let done = engine
        .compact_offline(OfflineTier::Auto, None, "")
        .await
        .unwrap();
    assert_eq!(
        done.not_applied,
        vec![
            TierNotApplied {
                tier: OfflineTier::Micro,
                reason: "no tool result may be cleared".to_string(),
            },
            TierNotApplied {
                tier: OfflineTier::SessionMemory,
                reason: format!(
                    "no session-memory summary under {}",
                    home.path().join("session-memory").join("s1").display()
                ),
            },
        ]
    );
    let OfflineResult::Compacted(compacted) = done.result else {
        panic!("{:#?}", done.result);
    };
    assert_eq!(
        compacted.compaction.restored_files,
        vec![(cwd.join("src/lib.rs"), seen.to_string())]
    );
    let texts = restored_texts(engine.history());
    assert_eq!(texts.len(), 1);
    assert!(
        texts[0].ends_with(&format!("\n\n{seen}\n</system-reminder>")),
        "{}",
        texts[0]
    );
    // The summary without its frame.
    assert!(
        compacted
            .summary_body()
            .starts_with("This summary was built without a model")
    );
}

#[tokio::test]
async fn a_tier_alone_that_does_not_apply_leaves_the_history_alone() {
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/nonexistent/agentctx/session");
    let history = reads_lib("fn a() {}\n");
    let mut engine = engine(cwd, home.path(), history.clone());

    assert_eq!(
        engine.micro_compact_now().unwrap(),
        MicroCompactNow::Skipped(MicroCompactSkip::NothingToClear)
    );
    let done = engine
        .compact_offline(OfflineTier::SessionMemory, None, "")
        .await
        .unwrap();
    assert_eq!(done.result, OfflineResult::Unchanged);
    assert_eq!(done.not_applied.len(), 1);
    assert_eq!(done.not_applied[0].tier, OfflineTier::SessionMemory);
    assert_eq!(engine.history(), history.as_slice());
}
