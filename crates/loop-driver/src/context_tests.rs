use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

use super::IterationRecord;
use super::LoopContext;
use crate::condition::LoopCondition;
use crate::outcome::LoopOutcome;

fn record(iteration: i32, commit: Option<&str>, files: &[&str], success: bool) -> IterationRecord {
    IterationRecord {
        timestamp: Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
        ..IterationRecord::new(
            iteration,
            commit.map(str::to_owned),
            files.iter().map(|f| (*f).to_owned()).collect(),
            format!("summary {iteration}"),
            success,
        )
    }
}

#[test]
fn counts_iterations() {
    let mut context = LoopContext::new(
        "abc".to_owned(),
        "task".to_owned(),
        None,
        LoopCondition::iterations(3),
    );
    assert_eq!(context.current_iteration(), 0);
    assert_eq!(context.total_iterations, 3);
    context.add_iteration(record(0, Some("1234567890"), &["a"], true));
    context.add_iteration(record(1, None, &[], false));
    assert_eq!(context.current_iteration(), 2);
    assert_eq!(context.successful_iterations(), 1);
    assert_eq!(context.failed_iterations(), 1);
}

#[test]
fn commit_status_and_files_display() {
    assert_eq!(
        record(0, Some("1234567890"), &["a"], true).commit_status(),
        "commit 1234567"
    );
    assert_eq!(
        record(0, Some("12"), &["a"], true).commit_status(),
        "commit 12"
    );
    assert_eq!(record(0, None, &[], true).commit_status(), "no changes");
    assert_eq!(
        record(0, None, &["a"], false).commit_status(),
        "not committed"
    );
    assert_eq!(record(0, None, &[], true).files_display(), "none");
    assert_eq!(
        record(0, None, &["a", "b", "c", "d", "e"], true).files_display(),
        "a, b, c, d, e"
    );
    assert_eq!(
        record(0, None, &["a", "b", "c", "d", "e", "f", "g"], true).files_display(),
        "a, b, c, d, e, ... (2 more)"
    );
}

#[test]
fn saves_and_loads_the_same_context() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentctx/loop-context.json");
    let mut context = LoopContext::new(
        "abc".to_owned(),
        "task".to_owned(),
        Some("plan".to_owned()),
        LoopCondition::Duration { seconds: 60 },
    );
    context.add_iteration(record(0, Some("1234567890"), &["a b.rs"], true));
    context.outcome = Some(LoopOutcome::Cancelled);
    context.save(&path).unwrap();
    assert_eq!(LoopContext::load(&path).unwrap(), context);
}

#[test]
fn the_saved_json_keeps_the_design_field_names() {
    let mut context = LoopContext::new(
        "abc".to_owned(),
        "task".to_owned(),
        None,
        LoopCondition::iterations(2),
    );
    context.add_iteration(record(0, Some("1234567890"), &["a"], true));
    insta::assert_json_snapshot!(context);
}

#[test]
fn a_corrupt_file_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("context.json");
    std::fs::write(&path, "{not json").unwrap();
    let error = LoopContext::load(&path).unwrap_err();
    assert!(error.to_string().contains("is not valid"), "{error}");
}
