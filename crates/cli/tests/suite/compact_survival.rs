//! What a compaction kept of what the session used after it, as the commands show it: the
//! `survival` of `agentctx compact` (ours beside the session's own at a recorded compaction)
//! and the `compaction_survival` of `agentctx replay --json`, on the bundled samples.

use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::replay::json_lines;
use super::replay::replay;

const CODEX_SAMPLE: &str =
    "examples/sessions/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl";
const CLAUDE_SAMPLE: &str =
    "examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

/// `agentctx compact --home <home> --offline <args>` from this crate's directory, with an empty
/// environment.
fn compact(home: &Path, args: &[&str]) -> std::process::Output {
    let output = Command::cargo_bin("agentctx")
        .unwrap()
        .current_dir(crate_dir())
        .env_clear()
        .arg("compact")
        .arg("--home")
        .arg(home)
        .arg("--offline")
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn lost_texts(survival: &Value) -> Vec<&str> {
    survival["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|lost| lost["text"].as_str().unwrap())
        .collect()
}

#[test]
fn at_a_recorded_compaction_ours_and_the_sessions_own_are_checked_by_the_same_probes() {
    let home = tempfile::tempdir().unwrap();
    for sample in [CODEX_SAMPLE, CLAUDE_SAMPLE] {
        let output = compact(home.path(), &["--json", "--at-compaction", "1", sample]);
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let ours = &report["survival"]["ours"];
        let recorded = &report["survival"]["recorded"];
        assert_eq!(ours["probes"], recorded["probes"], "{sample}");
        assert!(ours["probes"].as_u64().unwrap() > 0, "{sample}");
        assert!(
            ours["held"].as_u64().unwrap() > recorded["held"].as_u64().unwrap(),
            "{sample}: {ours} {recorded}"
        );
        // Every probe is held or listed as lost.
        assert_eq!(
            recorded["held"].as_u64().unwrap() + lost_texts(recorded).len() as u64,
            recorded["probes"].as_u64().unwrap()
        );
    }
    // The session's own summary of the Claude Code sample does not name the file it edited
    // next.
    let output = compact(
        home.path(),
        &["--json", "--at-compaction", "1", CLAUDE_SAMPLE],
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(lost_texts(&report["survival"]["recorded"]).contains(&"src/feedkit/cli.py"));
    assert!(!lost_texts(&report["survival"]["ours"]).contains(&"src/feedkit/cli.py"));
}

#[test]
fn away_from_a_recorded_compaction_only_ours_is_checked_and_the_text_output_says_it() {
    let home = tempfile::tempdir().unwrap();
    let output = compact(home.path(), &["--json", "--at-line", "200", CODEX_SAMPLE]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["survival"]["recorded"], Value::Null);
    assert!(report["survival"]["ours"]["probes"].as_u64().unwrap() > 0);

    let output = compact(home.path(), &["--at-compaction", "1", CODEX_SAMPLE]);
    let text = String::from_utf8(output.stdout).unwrap();
    let line = text
        .lines()
        .find(|line| line.starts_with("survival: "))
        .unwrap();
    assert!(
        line.starts_with("survival: ours ") && line.contains(", recorded "),
        "{line}"
    );
}

#[test]
fn replay_json_lists_each_compactions_survival_as_compact_measures_the_recorded_one() {
    let home = tempfile::tempdir().unwrap();
    let output = replay(&["--json", CODEX_SAMPLE]).output().unwrap();
    assert!(output.status.success());
    let sessions = json_lines(&output.stdout);
    let compactions = sessions[0]["compaction_survival"].as_array().unwrap();
    assert_eq!(compactions.len(), 1);
    assert_eq!(compactions[0]["source"], "recorded");
    assert_eq!(compactions[0]["number"], 1);
    let report: Value = serde_json::from_slice(
        &compact(
            home.path(),
            &["--json", "--at-compaction", "1", CODEX_SAMPLE],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(compactions[0]["survival"], report["survival"]["recorded"]);
}
