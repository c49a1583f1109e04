//! The history digest and the offline summariser on the bundled sample sessions (a Codex
//! rollout and a Claude Code transcript), read through `agentctx-rollout` as `agentctx compact
//! --offline` reads a user's session. The crate carries its own copy of the samples (the CLI's
//! `examples/sessions`), so it tests alone when vendored.

use std::path::PathBuf;

use agentctx_compact::summarize_offline;
use agentctx_context::HistoryDigest;
use agentctx_context::approx_token_count;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sessions")
        .join(name)
}

const CODEX_SAMPLE: &str = "rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl";
const CLAUDE_SAMPLE: &str = "claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";

/// Every conversation item of the session, in order, compactions ignored: the whole record.
fn all_items(name: &str) -> Vec<ResponseItem> {
    read_rollout(&sample(name))
        .unwrap()
        .records
        .iter()
        .filter_map(|record| record.response_item().cloned())
        .collect()
}

/// The history the model saw at the end: a recorded compaction's replacement history takes
/// the place of everything before it.
fn history_at_end(name: &str) -> Vec<ResponseItem> {
    let mut history = Vec::new();
    for record in read_rollout(&sample(name)).unwrap().records {
        match record.line.item {
            RolloutItem::ResponseItem(item) => history.push(item),
            RolloutItem::Compacted(compacted) => {
                if let Some(replacement) = compacted.replacement_history {
                    history = replacement;
                }
            }
            _ => {}
        }
    }
    history
}

#[test]
fn the_codex_sample_digest_has_its_patches_failures_and_last_request() {
    let digest = HistoryDigest::from_items(&all_items(CODEX_SAMPLE));
    assert_eq!(
        digest.user_requests.first().map(String::as_str),
        Some(
            "I want `tally report` to take a `--since <DATE>` option so I can see only recent months. Can you add it?"
        )
    );
    assert_eq!(
        digest.latest_user_request(),
        Some("thanks. last thing: update CHANGELOG.md for these")
    );
    for path in [
        "src/cli.rs",
        "src/report.rs",
        "src/dates.rs",
        "tests/cli.rs",
        "CHANGELOG.md",
    ] {
        assert!(
            digest.files_modified.iter().any(|p| p == path),
            "{path} modified: {:?}",
            digest.files_modified
        );
    }
    assert!(digest.files_read.iter().any(|p| p == "src/import/csv.rs"));
    let failed: Vec<(&str, Option<i64>)> = digest
        .commands
        .iter()
        .filter(|run| run.failed)
        .map(|run| (run.command.as_str(), run.exit_code))
        .collect();
    assert!(
        failed.contains(&("cargo test -q 2>&1 | tail -30", Some(101))),
        "{failed:?}"
    );
    assert!(
        failed.contains(&("git push -u origin report-since 2>&1 | tail -3", Some(128))),
        "{failed:?}"
    );
    assert!(
        digest
            .errors
            .iter()
            .any(|error| error.message.starts_with("error[E0277]"))
    );
}

#[test]
fn the_claude_code_sample_digest_has_its_edits_failures_and_todos() {
    let digest = HistoryDigest::from_items(&all_items(CLAUDE_SAMPLE));
    assert!(
        digest.user_requests[0].starts_with("Some posts show up twice in the daily digest."),
        "{:?}",
        digest.user_requests
    );
    assert_eq!(
        digest.latest_user_request(),
        Some("also bump the version to 0.9.0")
    );
    assert!(
        !digest
            .user_requests
            .iter()
            .any(|text| text.contains("<command-name>") || text.contains("<local-command")),
        "{:?}",
        digest.user_requests
    );
    for path in [
        "/home/mira/src/feedkit/src/feedkit/digest.py",
        "/home/mira/src/feedkit/tests/test_dedupe.py",
        "/home/mira/src/feedkit/src/feedkit/render.py",
        "/home/mira/src/feedkit/README.md",
    ] {
        assert!(
            digest.files_modified.iter().any(|p| p == path),
            "{path}: {:?}",
            digest.files_modified
        );
    }
    assert!(
        digest
            .files_read
            .iter()
            .any(|p| p == "/home/mira/src/feedkit/src/feedkit/cli.py")
    );
    assert!(digest.commands.iter().any(|run| run.command
        == "uv run pytest -q tests/test_dedupe.py 2>&1 | tail -15"
        && run.failed));
    assert!(!digest.todos.is_empty());
    // The importer records the compaction summary as the replacement history, not as an item.
    assert!(digest.prior_summaries.is_empty());
    let after_compaction = HistoryDigest::from_items(&history_at_end(CLAUDE_SAMPLE));
    assert_eq!(after_compaction.prior_summaries.len(), 1);
    assert!(after_compaction.prior_summaries[0].starts_with("This session is being continued"));
}

#[test]
fn the_offline_summaries_of_the_samples() {
    for (name, label) in [(CODEX_SAMPLE, "codex"), (CLAUDE_SAMPLE, "claude_code")] {
        let summary = summarize_offline(&history_at_end(name), 3_000);
        assert!(approx_token_count(&summary) <= 3_000, "{label}");
        insta::assert_snapshot!(format!("offline_summary_sample_{label}"), summary);
    }
}
