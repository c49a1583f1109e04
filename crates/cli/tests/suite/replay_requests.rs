//! `agentctx replay` evaluates system reminders before every recorded model request, as a live
//! session does, not once per user turn.
//!
//! `tests/fixtures/claude-long-agentic-turn.jsonl` is a Claude Code transcript of one user turn
//! of 150 model requests: a TodoWrite on the first, then 148 Read and Bash calls with their
//! results, and a closing answer; every request records its token usage.

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::replay::NO_HOME;

const LONG_TURN: &str = "tests/fixtures/claude-long-agentic-turn.jsonl";

fn replay_json(args: &[&str]) -> Value {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_LOG")
        .args(["replay", "--json"])
        .args(args);
    for (name, _) in std::env::vars_os() {
        let name_text = name.to_string_lossy();
        if name_text.starts_with("AGENTCTX_") || name_text.starts_with("CODEX_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("AGENTCTX_HOME", NO_HOME);
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn a_long_agentic_turn_evaluates_reminders_before_each_request() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[system_reminder]\nenable_token_usage = true\n").unwrap();

    let session = replay_json(&["--reminders-config", config.to_str().unwrap(), LONG_TURN]);

    let turns = session["turn_details"].as_array().unwrap();
    assert_eq!(turns.len(), 1);
    let turn = &turns[0];
    assert_eq!(turn["requests"], 150);
    assert_eq!(turn["reminder_evaluations"], 150);
    // The todo reminder waits 10 assistant messages after the TodoWrite of request 1 (one
    // message per request here: request 12); the list does not change, so within this one
    // user turn it comes again only every 30 requests (`todo_restate_after_requests`). Each
    // request has the engine's usage to report, the first included (our estimate of its
    // prompt), as in a live session.
    assert_eq!(
        session["reminder_counts"],
        serde_json::json!({"todo_reminder": 5, "token_usage": 150})
    );
    let reminders = turn["reminders"].as_array().unwrap();
    let todo_requests: Vec<u64> = reminders
        .iter()
        .filter(|reminder| reminder["type"] == "todo_reminder")
        .map(|reminder| reminder["request"].as_u64().unwrap())
        .collect();
    assert_eq!(todo_requests, [12, 42, 72, 102, 132]);
    let first_token = reminders
        .iter()
        .find(|reminder| reminder["type"] == "token_usage")
        .unwrap();
    assert_eq!(first_token["request"], 1);
}

#[test]
fn only_the_request_that_carries_the_users_message_has_user_input() {
    // The critical instruction is a user-prompt-independent reminder; the at-mention generator
    // reads the prompt and runs only with user input: a prompt naming a file that exists
    // produces its reminder once, on the first request, not on the 149 after it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "release notes\n").unwrap();
    let transcript =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(LONG_TURN))
            .unwrap()
            .replace("/home/dev/ledger", dir.path().to_str().unwrap())
            .replace(
                "Port the ledger's CSV importer to the new schema",
                "Port the importer as @notes.md says",
            );
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, transcript).unwrap();

    let session = replay_json(&[file.to_str().unwrap()]);

    let reminders = session["turn_details"][0]["reminders"].as_array().unwrap();
    let mentions: Vec<&Value> = reminders
        .iter()
        .filter(|reminder| reminder["type"] == "at_mentioned_files")
        .collect();
    assert_eq!(mentions.len(), 1, "{reminders:#?}");
    assert_eq!(mentions[0]["request"], 1);
}
