use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::compaction_point;
use crate::recorded_session::StopPoint;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/samples")
        .join(name)
}

const CODEX: &str = "rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl";
const CLAUDE: &str = "claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";

fn user_texts(items: &[agentctx_protocol::ResponseItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(agentctx_context::user_request_text)
        .collect()
}

#[test]
fn a_codex_compaction_splits_the_session_into_before_replacement_and_after() {
    let point = compaction_point(&sample(CODEX), StopPoint::BeforeCompaction(1)).expect("point");
    assert_eq!(point.cwd, PathBuf::from("/home/mira/src/tally"));
    assert_eq!(
        user_texts(&point.before).last().map(String::as_str),
        Some("0.17 is fine. what's left in those 0.17s?")
    );
    let recorded = point.recorded.expect("recorded compaction");
    assert_eq!(recorded.len(), 13);
    assert_eq!(
        user_texts(&point.after),
        [
            "commit all of this in sensible commits please",
            "push it and open a PR",
            "approved, run it without the sandbox",
            "CI failed on the PR: `error[E0658]: let chains are only allowed in Rust 2024` on the 1.85 job",
            "thanks. last thing: update CHANGELOG.md for these",
        ]
    );
}

#[test]
fn a_claude_code_compaction_has_its_summary_as_the_compacted_context() {
    let point = compaction_point(&sample(CLAUDE), StopPoint::BeforeCompaction(1)).expect("point");
    let recorded = point.recorded.expect("recorded compaction");
    let summary = recorded
        .iter()
        .filter_map(agentctx_protocol::ResponseItem::message_text)
        .collect::<String>();
    assert!(summary.contains("previous conversation"), "{summary}");
    assert_eq!(
        user_texts(&point.after).first().map(String::as_str),
        Some(
            "now add a `--format json` option to `feedkit digest` so I can pipe it into other tools"
        )
    );
}

#[test]
fn the_end_of_a_session_has_nothing_after_it_and_no_recorded_compaction() {
    let end = compaction_point(&sample(CODEX), StopPoint::End).expect("point");
    assert_eq!((end.recorded, end.after.len()), (None, 0));
    let beyond = compaction_point(&sample(CODEX), StopPoint::BeforeCompaction(2)).expect("point");
    assert_eq!(beyond.before, end.before);
    assert_eq!(beyond.recorded, None);
}

#[test]
fn a_line_before_the_compaction_has_the_rest_up_to_it_after() {
    let point = compaction_point(&sample(CODEX), StopPoint::AfterLine(200)).expect("point");
    assert_eq!(point.recorded, None);
    let whole = compaction_point(&sample(CODEX), StopPoint::BeforeCompaction(1)).expect("point");
    assert_eq!(point.before.len() + point.after.len(), whole.before.len());
}
