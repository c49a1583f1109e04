//! The pipeline with no model at all: offline extraction from the session's digest and the
//! offline consolidator, INIT then INCREMENTAL, and the injected instructions.

use std::sync::Arc;

use agentctx_memory::ConsolidationMode;
use agentctx_memory::Extractor;
use agentctx_memory::MEMORY_FILE;
use agentctx_memory::MEMORY_SUMMARY_FILE;
use agentctx_memory::OfflineConsolidator;
use agentctx_memory::Phase2Outcome;
use agentctx_memory::memory_instructions;
use agentctx_memory::memory_root;
use agentctx_memory::start_memory_pipeline;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::support::config;
use super::support::pipeline;
use super::support::write_session;
use super::support::write_session_items;

#[tokio::test]
async fn offline_memory_is_built_then_updated_incrementally() {
    let home = tempfile::tempdir().unwrap();
    write_session_items(
        home.path(),
        "/src/tally",
        &[
            ResponseItem::user_text(
                "Add a --since option to `tally report`. I prefer small commits.",
            ),
            ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
            ResponseItem::function_call_output(
                "c1",
                "error[E0425]: cannot find value `since`\nexit code: 101",
            ),
            ResponseItem::function_call(
                "c2",
                "apply_patch",
                r#"{"input":"*** Begin Patch\n*** Update File: src/cli.rs\n@@\n-a\n+b\n*** End Patch"}"#,
            ),
            ResponseItem::function_call_output("c2", "Success."),
            ResponseItem::function_call("c3", "shell", r#"{"command":["cargo","test"]}"#),
            ResponseItem::function_call_output("c3", "test result: ok. 9 passed"),
            ResponseItem::assistant_text("Added `--since`; the tests pass."),
        ],
    );
    let run = pipeline(
        config(home.path()),
        Extractor::Offline,
        Arc::new(OfflineConsolidator),
    );
    let startup = start_memory_pipeline(run.clone());
    let first = startup.handle.await.unwrap().unwrap();
    assert_eq!(first.phase1.succeeded_with_output, 1);
    assert!(matches!(
        first.phase2,
        Phase2Outcome::Consolidated {
            mode: ConsolidationMode::Init,
            ..
        }
    ));

    let root = memory_root(home.path());
    let memory = std::fs::read_to_string(root.join(MEMORY_FILE)).unwrap();
    assert!(
        memory.starts_with("# Task Group: tally\nscope: /src/tally\n"),
        "{memory}"
    );
    assert!(
        memory.contains("## Task 1: Add a --since option"),
        "{memory}"
    );
    assert!(memory.contains("modified `src/cli.rs`"), "{memory}");
    assert!(
        memory.contains("resolved by a later successful run"),
        "{memory}"
    );
    assert!(
        memory.contains("- User preference: I prefer small commits."),
        "{memory}"
    );
    let instructions = memory_instructions(home.path()).unwrap().unwrap();
    assert!(instructions.contains("I prefer small commits."));
    assert!(instructions.contains(&root.join(MEMORY_FILE).display().to_string()));

    // A hand edit of MEMORY.md survives an incremental update.
    std::fs::write(
        root.join(MEMORY_FILE),
        format!("{memory}- Hand-written tip\n"),
    )
    .unwrap();
    write_session(home.path(), "/src/feedkit", "Dedupe the digest entries");
    let second = run.run_once().await.unwrap();
    assert!(matches!(
        second.phase2,
        Phase2Outcome::Consolidated {
            mode: ConsolidationMode::Incremental,
            new_outputs: 1,
            ..
        }
    ));
    let memory = std::fs::read_to_string(root.join(MEMORY_FILE)).unwrap();
    assert!(memory.contains("# Task Group: tally"));
    assert!(memory.contains("# Task Group: feedkit"));
    assert!(memory.contains("- Hand-written tip"), "{memory}");
    assert_eq!(memory.matches("## Task 1: Add a --since option").count(), 1);
    let summary = std::fs::read_to_string(root.join(MEMORY_SUMMARY_FILE)).unwrap();
    assert!(summary.contains("## User Profile"));
    assert!(summary.contains("## What's in Memory"));
    assert!(summary.contains("2 task group(s), 2 task(s)"), "{summary}");
}

#[tokio::test]
async fn a_session_with_nothing_to_remember_passes_the_offline_gate() {
    let home = tempfile::tempdir().unwrap();
    write_session_items(
        home.path(),
        "/src/app",
        &[
            ResponseItem::user_text("hello"),
            ResponseItem::assistant_text("Hi!"),
        ],
    );
    let run = pipeline(
        config(home.path()),
        Extractor::Offline,
        Arc::new(OfflineConsolidator),
    );
    let report = run.run_once().await.unwrap();
    assert_eq!(report.phase1.succeeded_no_output, 1);
    assert_eq!(report.phase2, Phase2Outcome::SkippedNotDirty);
}

#[tokio::test]
async fn a_locked_or_corrupt_database_names_the_file() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("state.sqlite");
    std::fs::write(&path, vec![b'x'; 8192]).unwrap();
    let error = agentctx_memory::StateDb::open(home.path())
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("corrupt"), "{message}");
}
