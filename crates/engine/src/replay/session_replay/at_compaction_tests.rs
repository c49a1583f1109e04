use pretty_assertions::assert_eq;

use super::engine_at_compaction;
use crate::decision::CompactReason;
use crate::error::ReplayError;
use crate::replay::replay_report::ReplayOptions;

/// The bundled Codex sample (the crate's copy): one recorded compaction.
fn codex_sample() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/samples/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl")
}

#[test]
fn the_replay_stops_before_the_recorded_compaction_and_the_engine_compacts_there() {
    let home = tempfile::tempdir().expect("home");
    let options = ReplayOptions {
        home: home.path().to_path_buf(),
        ..ReplayOptions::default()
    };
    let mut at = engine_at_compaction(&codex_sample(), 1, &options).expect("stopped");
    assert!(at.requests > 0);
    let before = at.engine.history().len();
    assert!(before > 0);
    // Codex compacted under its own policy: the engine's decision there, or a requested one.
    let decided = at
        .decision
        .as_ref()
        .and_then(crate::decision::Decision::compact_reason);
    assert_eq!(at.reason(), decided.unwrap_or(CompactReason::Requested));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let compacted = runtime.block_on(at.compact(None)).expect("compacted");
    assert!(compacted.compaction.tokens_after < compacted.compaction.tokens_before);
    assert!(at.engine.history().len() < before);
}

#[test]
fn a_compaction_the_session_does_not_record_is_a_typed_error() {
    let options = ReplayOptions::default();
    let error = engine_at_compaction(&codex_sample(), 5, &options).expect_err("only one");
    assert!(
        matches!(
            error,
            ReplayError::NoSuchCompaction {
                requested: 5,
                recorded: 1
            }
        ),
        "{error}"
    );
}
