//! `agentctx replay` on the bundled sample sessions (`examples/sessions/`), on directories, and
//! on files with corrupt lines.

use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::Value;

const CODEX_SAMPLE: &str =
    "examples/sessions/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl";
const CLAUDE_SAMPLE: &str =
    "examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `agentctx replay <args>` run from the workspace root.
fn replay(args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(workspace())
        .env_remove("RUST_LOG")
        .arg("replay")
        .args(args);
    cmd
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The session-level fields of a JSON report, without per-turn details.
fn summary(session: &Value) -> Value {
    let mut summary = session.clone();
    let object = summary.as_object_mut().unwrap();
    object.remove("turn_details");
    object.remove("skipped");
    object.remove("bytes");
    summary
}

#[test]
fn codex_sample_prints_a_table_per_turn_and_a_summary() {
    let output = replay(&[CODEX_SAMPLE]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    insta::assert_snapshot!(String::from_utf8(output.stdout).unwrap());
}

#[test]
fn codex_sample_as_json() {
    let output = replay(&["--json", CODEX_SAMPLE]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let sessions = json_lines(&output.stdout);
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        summary(&sessions[0]),
        serde_json::json!({
            "file": CODEX_SAMPLE,
            "format": "codex",
            "format_detail": "codex",
            "session_id": "019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8",
            "lines": 294,
            "items": 181,
            "sidechain_items": 0,
            "preamble_items": 2,
            "skipped_lines": 0,
            "ignored_records": {},
            "turns": 17,
            "tool_calls": 58,
            "compactions": 1,
            "instructions_tokens": 286,
            "max_prompt_tokens": 14958,
            "max_recorded_prompt_tokens": 18926,
            "model_context_window": 272000,
        })
    );
    let turns = sessions[0]["turn_details"].as_array().unwrap();
    assert_eq!(turns.len(), 17);
    // The compaction is seen in turn 12; the turn after it starts from the small replacement
    // history plus the re-injected context.
    assert_eq!(turns[11]["compactions"], 1);
    assert!(turns[12]["estimated_prompt_tokens"].as_u64().unwrap() < 3_000);
    assert_eq!(
        turns[0]["tools"],
        serde_json::json!({"apply_patch": 3, "shell_command": 6})
    );
}

#[test]
fn claude_sample_as_json() {
    let output = replay(&["--json", CLAUDE_SAMPLE]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let sessions = json_lines(&output.stdout);
    assert_eq!(
        summary(&sessions[0]),
        serde_json::json!({
            "file": CLAUDE_SAMPLE,
            "format": "claude",
            "format_detail": "claude-code",
            "session_id": "3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865",
            "lines": 187,
            "items": 141,
            "sidechain_items": 0,
            "preamble_items": 1,
            "skipped_lines": 0,
            "ignored_records": {
                "file-history-snapshot": 10,
                "progress": 22,
                "queue-operation": 2,
                "summary": 1,
                "system:turn_duration": 9,
            },
            "turns": 12,
            "tool_calls": 49,
            "compactions": 1,
            "instructions_tokens": 0,
            "max_prompt_tokens": 8847,
            "max_recorded_prompt_tokens": 23941,
            "model_context_window": null,
        })
    );
    let turns = sessions[0]["turn_details"].as_array().unwrap();
    // The injected caveat (isMeta) and the command output do not start turns; the slash
    // commands do.
    let first_lines: Vec<&str> = turns
        .iter()
        .map(|turn| turn["user_message"].as_str().unwrap())
        .take(2)
        .collect();
    assert_eq!(
        first_lines,
        vec![
            "<command-name>/model</command-name>",
            "Some posts show up twice in the daily digest. I think it's w…",
        ]
    );
    assert_eq!(turns[7]["compactions"], 1);
    assert_eq!(turns[1]["recorded_prompt_tokens"], 18373);
}

#[test]
fn a_directory_replays_every_session_newest_first_with_a_total() {
    let output = replay(&["examples/sessions"]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let summaries = stdout
        .lines()
        .filter(|line| line.starts_with("summary: "))
        .count();
    assert_eq!(summaries, 3);
    let total = stdout.lines().last().unwrap();
    assert!(
        total.starts_with("total: 3 sessions, "),
        "unexpected total line: {total}"
    );
    assert!(total.contains("30 turns"), "{total}");

    let output = replay(&["--json", "examples/sessions"]).output().unwrap();
    let sessions = json_lines(&output.stdout);
    let files: BTreeSet<&str> = sessions
        .iter()
        .map(|session| session["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        BTreeSet::from([
            CLAUDE_SAMPLE,
            "examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865/subagents/agent-5c1e9a07.jsonl",
            CODEX_SAMPLE,
        ])
    );
}

#[test]
fn a_corrupt_line_is_reported_with_file_and_line_and_the_replay_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read_to_string(workspace().join(CODEX_SAMPLE)).unwrap();
    let mut lines: Vec<&str> = sample.lines().collect();
    lines.insert(
        9,
        r#"{"timestamp":"2025-11-24T09:33:00.000Z","type":"response_it"#,
    );
    let corrupt = dir.path().join("rollout-2025-11-24T09-31-07-corrupt.jsonl");
    std::fs::write(&corrupt, lines.join("\n")).unwrap();
    std::fs::copy(
        workspace().join(CLAUDE_SAMPLE),
        dir.path().join("claude.jsonl"),
    )
    .unwrap();

    let output = replay(&["--json", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "{}:10: invalid json: EOF while parsing a string at line 1 column 59\n",
            corrupt.display()
        )
    );
    let sessions = json_lines(&output.stdout);
    assert_eq!(sessions.len(), 2);
    let codex = sessions
        .iter()
        .find(|session| session["format"] == "codex")
        .unwrap();
    assert_eq!(codex["skipped_lines"], 1);
    assert_eq!(codex["skipped"][0]["line_number"], 10);
    assert_eq!(codex["lines"], 295);
    assert_eq!(codex["turns"], 17);
}

#[test]
fn a_missing_named_file_fails_after_the_others_are_replayed() {
    let output = replay(&["--json", "no/such/rollout.jsonl", CLAUDE_SAMPLE])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("no/such/rollout.jsonl: cannot open no/such/rollout.jsonl: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 of 2 files could not be replayed"),
        "{stderr}"
    );
    assert_eq!(json_lines(&output.stdout).len(), 1);
}

#[test]
fn other_jsonl_files_in_a_directory_are_noted_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("history.jsonl"),
        "{\"session_id\":\"s\",\"ts\":1,\"text\":\"hi\"}\n",
    )
    .unwrap();
    std::fs::copy(
        workspace().join(CODEX_SAMPLE),
        dir.path().join("rollout.jsonl"),
    )
    .unwrap();
    let output = replay(&[dir.path().to_str().unwrap()]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.ends_with("history.jsonl: not a codex rollout or claude code transcript, skipped\n"),
        "{stderr}"
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("total: 1 session, "), "{stdout}");
}

#[test]
fn a_path_is_required() {
    let output = replay(&[]).output().unwrap();
    assert!(!output.status.success());
}
