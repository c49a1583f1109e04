//! `agentctx replay` on the bundled sample sessions (this crate's `examples/sessions/`, which
//! the repository's top-level `examples` links to, so a vendored crate carries them), on
//! directories, on files with corrupt lines, and the reminders that would have fired per turn
//! (on the samples and on `tests/fixtures/claude-reminders.jsonl`, a Claude Code transcript
//! with a TodoWrite, plan mode entered twice, background shells, a skill and a compaction).

use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::Value;

const CODEX_SAMPLE: &str =
    "examples/sessions/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl";
pub(super) const CLAUDE_SAMPLE: &str =
    "examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";
pub(super) const REMINDERS_FIXTURE: &str = "tests/fixtures/claude-reminders.jsonl";

/// This crate's directory: the tests read only what the crate itself carries.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

/// The reminder settings the environment overrides; a test sets them on the child only.
const REMINDER_ENV_VARS: [&str; 8] = [
    "AGENTCTX_DISABLE_SYSTEM_REMINDERS",
    "AGENTCTX_ENABLE_TOKEN_USAGE",
    "AGENTCTX_SYSTEM_REMINDER_TIMEOUT_MS",
    "AGENTCTX_SYSTEM_REMINDER_PLACEMENT",
    "CODEX_DISABLE_SYSTEM_REMINDERS",
    "CODEX_ENABLE_TOKEN_USAGE",
    "CODEX_SYSTEM_REMINDER_TIMEOUT_MS",
    "CODEX_SYSTEM_REMINDER_PLACEMENT",
];

/// The agentctx home the replays run with unless a test passes `--home`: a folder that does not
/// exist, so no config.toml (replay writes nothing there), and never the real `~/.agentctx`.
pub(super) const NO_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/no-agentctx-home");

/// `agentctx replay <args>` run from this crate's directory, with an agentctx home without a
/// config.toml ([`NO_HOME`]) and none of the caller's reminder overrides.
pub(super) fn replay(args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(workspace())
        .env_remove("RUST_LOG")
        .arg("replay")
        .args(args);
    for name in REMINDER_ENV_VARS {
        cmd.env_remove(name);
    }
    // The compaction switches (`AGENTCTX_DISABLE_COMPACT`, …) would change where our tiers
    // trigger: none of the caller's reach the child.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("AGENTCTX_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("AGENTCTX_HOME", NO_HOME);
    cmd
}

pub(super) fn json_lines(stdout: &[u8]) -> Vec<Value> {
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
    // What each compaction kept: `compact_survival.rs` checks it.
    object.remove("compaction_survival");
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
            // Over 55 of the 57 requests: not the first (no previous one), not the first after
            // the compaction (the history was rewritten); deterministic, so exact.
            "usage_prediction_error": {
                "median": 0.005112834978843441,
                "p95": 0.01874180865006553,
                "n": 55,
            },
            // The recorded 272,000-token window less 20,000 reserved for output.
            "thresholds": {
                "window": 272000,
                "effective_window": 252000,
                "warning": 232000,
                "auto_compact": 239000,
                "blocking": 249000,
            },
            "reminder_counts": {},
        })
    );
    let turns = sessions[0]["turn_details"].as_array().unwrap();
    assert_eq!(turns.len(), 17);
    let requests: Vec<&Value> = turns
        .iter()
        .flat_map(|turn| turn["request_usage"].as_array().unwrap())
        .collect();
    assert_eq!(requests.len(), 57);
    let left_out: Vec<(u64, bool)> = requests
        .iter()
        .filter(|request| request["basis"] != "previous_request")
        .map(|request| {
            (
                request["request"].as_u64().unwrap(),
                request["after_compaction"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(left_out, vec![(1, false), (44, true)]);
    // Request 2: request 1 recorded 4,570; what was added since is 878
    // (the 64 reasoning tokens request 1 reported, not our estimate of the encrypted blob).
    assert_eq!(
        *requests[1],
        serde_json::json!({
            "request": 2,
            "line": 15,
            "predicted_tokens": 5448,
            "basis": "previous_request",
            "recorded_tokens": 5414,
            // As the rollout recorded them: codex's input counts its cached part.
            "recorded_usage": {"input": 5414, "cached_input": 4352, "cache_write": 0, "output": 374},
            // The model in force when the count was recorded, and when.
            "recorded_billing": {"model": "gpt-5.1-codex", "timestamp": "2025-11-24T09:32:18.829Z", "output_estimated": false},
            "after_compaction": false,
            "micro_compact": null,
            "level": "normal",
            "auto_compact": null,
            // The engine's decisions since request 1: after its tool outputs, under the
            // auto-compact threshold; request 2 under the blocking limit.
            "decisions": [
                {"point": "after_tool_outputs", "request": 1, "tokens": 5448, "limit": 239000, "action": "continue", "trigger": "window"},
                {"point": "before_request", "request": 2, "tokens": 5448, "limit": 249000, "action": "send"},
            ],
        })
    );
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
            // The `/model` caveat, command and output before the first prompt.
            "preamble_items": 3,
            "skipped_lines": 0,
            "ignored_records": {
                "file-history-snapshot": 10,
                "progress": 22,
                "queue-operation": 2,
                "summary": 1,
                "system:turn_duration": 9,
            },
            "turns": 10,
            "tool_calls": 49,
            "compactions": 1,
            "instructions_tokens": 0,
            // The image costs codex's resized-image estimate (1,844 tokens).
            "max_prompt_tokens": 10605,
            "max_recorded_prompt_tokens": 23941,
            "model_context_window": null,
            // Over 41 of the 43 requests (not the first, not the first after the compaction).
            "usage_prediction_error": {
                "median": 0.001888098684624583,
                "p95": 0.004750168048397938,
                "n": 41,
            },
            // The transcript records no window: the --context-window default of 200,000.
            "thresholds": {
                "window": 200000,
                "effective_window": 180000,
                "warning": 160000,
                "auto_compact": 167000,
                "blocking": 177000,
            },
            "reminder_counts": {"todo_reminder": 6, "tool_result": 4},
        })
    );
    let turns = sessions[0]["turn_details"].as_array().unwrap();
    // The injected caveat (isMeta), the command output and the slash commands Claude Code
    // answered locally (`/model`, `/compact`: no model request followed them) do not start
    // turns.
    let first_lines: Vec<&str> = turns
        .iter()
        .map(|turn| turn["user_message"].as_str().unwrap())
        .take(2)
        .collect();
    assert_eq!(
        first_lines,
        vec![
            "Some posts show up twice in the daily digest. I think it's w…",
            "does the planet feed always have guids though? I've seen som…",
        ]
    );
    assert_eq!(turns[5]["compactions"], 1);
    assert_eq!(turns[0]["recorded_prompt_tokens"], 18373);
    // The engine runs before each of the 43 model requests. The todo reminder runs on Claude
    // Code 2.1's clock, assistant messages (one per text or tool-use block): ten after the
    // TodoWrite of turn 1 (request 11 of turn 1), then ten between two; the compaction at the
    // end of turn 6 starts its throttle over (the first request of turn 7). A failed Bash call
    // is named before the request after it.
    assert_eq!(
        reminder_requests(&sessions[0]),
        vec![
            (1, 8, "tool_result"),
            (1, 11, "todo_reminder"),
            (3, 6, "todo_reminder"),
            (3, 6, "tool_result"),
            (4, 3, "todo_reminder"),
            (5, 4, "tool_result"),
            (5, 5, "tool_result"),
            (6, 1, "todo_reminder"),
            (7, 1, "todo_reminder"),
            (8, 1, "todo_reminder"),
        ]
    );
    let evaluations: Vec<&Value> = turns
        .iter()
        .map(|turn| &turn["reminder_evaluations"])
        .collect();
    let requests: Vec<&Value> = turns.iter().map(|turn| &turn["requests"]).collect();
    assert_eq!(evaluations, requests);
}

/// `(turn, request in the turn, reminder type)` for every reminder of a JSON session.
fn reminder_requests(session: &Value) -> Vec<(u64, u64, &str)> {
    session["turn_details"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|turn| {
            turn["reminders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|reminder| {
                    (
                        turn["turn"].as_u64().unwrap(),
                        reminder["request"].as_u64().unwrap(),
                        reminder["type"].as_str().unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every reminder of a JSON session as `turn N, request M: type (tier)` followed by its text.
fn reminder_texts(session: &Value) -> String {
    let mut out = String::new();
    for turn in session["turn_details"].as_array().unwrap() {
        for reminder in turn["reminders"].as_array().unwrap() {
            out.push_str(&format!(
                "--- turn {}, request {}: {} ({})\n{}\n",
                turn["turn"],
                reminder["request"],
                reminder["type"].as_str().unwrap(),
                reminder["tier"].as_str().unwrap(),
                reminder["text"].as_str().unwrap(),
            ));
        }
    }
    out
}

#[test]
fn the_reminders_fixture_shows_which_reminders_fire_per_turn() {
    let output = replay(&[REMINDERS_FIXTURE]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    insta::assert_snapshot!(String::from_utf8(output.stdout).unwrap());
}

#[test]
fn the_reminders_fixture_as_json_carries_the_reminder_texts() {
    let output = replay(&["--json", REMINDERS_FIXTURE]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let sessions = json_lines(&output.stdout);
    assert_eq!(
        sessions[0]["reminder_counts"],
        serde_json::json!({
            "background_task": 2,
            "invoked_skills": 2,
            "plan_mode": 3,
            "plan_mode_exit": 1,
            "todo_reminder": 3,
        })
    );
    // `(turn, request in the turn, type)`: the engine runs before every model request, so a
    // tool call's effect is reported before the next request of the same turn.
    assert_eq!(
        reminder_requests(&sessions[0]),
        vec![
            // EnterPlanMode on request 1 of turn 2.
            (2, 2, "plan_mode"),
            // ExitPlanMode on request 1 of turn 4, then a background `cargo test`.
            (4, 2, "plan_mode_exit"),
            // BashOutput saw the tests finish.
            (5, 2, "background_task"),
            // Ten assistant messages after the TodoWrite of turn 1.
            (6, 1, "todo_reminder"),
            // KillShell on request 1 of turn 7.
            (7, 2, "background_task"),
            // The Skill call on request 1 of turn 8.
            (8, 2, "invoked_skills"),
            // Plan mode entered again on request 1 of turn 10.
            (10, 2, "plan_mode"),
            // Ten assistant messages after the last one.
            (12, 1, "todo_reminder"),
            // After the compaction (`/compact` during turn 12: a local command, not a turn)
            // everything starts over.
            (13, 1, "plan_mode"),
            (13, 1, "todo_reminder"),
            (13, 1, "invoked_skills"),
        ]
    );
    insta::assert_snapshot!(reminder_texts(&sessions[0]));
}

#[test]
fn no_reminders_drops_the_column_the_counts_and_the_json_fields() {
    let output = replay(&["--no-reminders", REMINDERS_FIXTURE])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(!stdout.contains("┆ reminders"), "{stdout}");
    assert!(stdout.contains("┆ user message"), "{stdout}");
    let summary = stdout
        .lines()
        .find(|line| line.starts_with("summary: "))
        .unwrap();
    assert!(!summary.contains("reminder"), "{summary}");

    let output = replay(&["--no-reminders", "--json", REMINDERS_FIXTURE])
        .output()
        .unwrap();
    let sessions = json_lines(&output.stdout);
    assert_eq!(sessions[0].get("reminder_counts"), None);
    assert_eq!(sessions[0]["turn_details"][2].get("reminders"), None);
    assert_eq!(sessions[0]["turns"], 13);
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
    assert!(total.contains("28 turns"), "{total}");

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
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "no/such/rollout.jsonl: cannot open no/such/rollout.jsonl: No such file or directory (os error 2)\nerror: 1 of 2 files could not be replayed\n"
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
fn a_path_is_required_and_its_absence_is_a_usage_error_not_a_panic() {
    // Without the helper's `AGENTCTX_HOME`, which clap would name in the usage line as a given
    // `--home`: the command stops before any home is read.
    let output = replay(&[])
        .env_remove("AGENTCTX_HOME")
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    // clap's usage errors exit with 2; a panic would exit with 101.
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "error: the following required arguments were not provided:\n  <PATHS>...\n\nUsage: agentctx replay <PATHS>...\n\nFor more information, try '--help'.\n"
    );
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"));
}

#[test]
fn a_missing_file_is_a_one_line_error_without_a_backtrace() {
    let output = replay(&["/nonexistent/agentctx/session.jsonl"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "/nonexistent/agentctx/session.jsonl: cannot open /nonexistent/agentctx/session.jsonl: No such file or directory (os error 2)\nerror: 1 of 1 files could not be replayed\n"
    );
}

#[test]
fn the_context_window_flag_sets_the_window_of_a_session_that_records_none() {
    let output = replay(&["--json", "--context-window", "12000", CLAUDE_SAMPLE])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let session = &json_lines(&output.stdout)[0];
    // The levels scale with a window this small: a quarter kept for the output, auto-compaction
    // an eighth below the effective window (see docs/design/compaction.md, "Small windows").
    assert_eq!(
        session["thresholds"],
        serde_json::json!({
            "window": 12000,
            "effective_window": 9000,
            "warning": 7200,
            "auto_compact": 7875,
            "blocking": 8719,
        })
    );
    // Our auto-compaction runs where the engine decides, before the recorded compaction and
    // after it; the replay goes on from what it left, as a live session would, so it runs
    // again whenever the history fills again. Each leaves less than it found.
    let triggers: Vec<Value> = session["turn_details"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|turn| turn["request_usage"].as_array().unwrap())
        .filter(|request| !request["auto_compact"].is_null())
        .map(|request| {
            serde_json::json!([
                request["request"],
                request["after_compaction"],
                request["auto_compact"]
            ])
        })
        .collect();
    assert!(triggers.len() >= 2, "{triggers:?}");
    for trigger in &triggers {
        let before = trigger[2]["tokens_before"].as_u64().unwrap();
        let after = trigger[2]["tokens_after"].as_u64().unwrap();
        assert!(after < before, "{trigger}");
    }
    // The table names each turn's auto-compaction by the reason the engine decided it for.
    let output = replay(&["--context-window", "12000", CLAUDE_SAMPLE])
        .output()
        .unwrap();
    let table = String::from_utf8(output.stdout).unwrap();
    let reasons = ["auto pre_turn ", "auto mid_turn ", "auto blocking "];
    assert!(
        reasons.iter().any(|reason| table.contains(reason)),
        "{table}"
    );
    // Never a bare `auto 12,000→…`: every auto-compaction has its reason.
    assert!(
        table
            .match_indices("auto ")
            .all(|(at, _)| table[at + 5..].starts_with(|c: char| c.is_ascii_lowercase())),
        "{table}"
    );
    // A recorded window wins over the flag.
    let output = replay(&["--json", "--context-window", "40000", CODEX_SAMPLE])
        .output()
        .unwrap();
    assert_eq!(
        json_lines(&output.stdout)[0]["thresholds"]["window"],
        272000
    );
}

/// Checks that `text` is well-formed XML as far as an SVG writer can get it wrong: every tag
/// closed in order, attribute values quoted, `&` only in the five predefined entities and
/// numeric references, no `<` in text. (The workspace has no XML parser to lean on.)
fn assert_well_formed_xml(text: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text;
    let mut roots = 0;
    while let Some(start) = rest.find('<') {
        assert_text_escaped(&rest[..start]);
        let end = rest[start..].find('>').expect("an unclosed tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "`<` inside the tag <{tag}>");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else {
            let self_closing = tag.ends_with('/');
            let body = tag.trim_end_matches('/');
            let name = body
                .split_whitespace()
                .next()
                .expect("a tag without a name");
            assert_attributes_quoted(&body[name.len()..]);
            if stack.is_empty() {
                roots += 1;
            }
            if !self_closing {
                stack.push(name.to_string());
            }
        }
        rest = &rest[end + 1..];
    }
    assert_text_escaped(rest);
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

fn assert_attributes_quoted(mut attributes: &str) {
    loop {
        attributes = attributes.trim_start();
        if attributes.is_empty() {
            return;
        }
        let equals = attributes.find('=').expect("an attribute without a value");
        let name = &attributes[..equals];
        assert!(
            !name.contains(char::is_whitespace),
            "attribute name `{name}`"
        );
        let value = &attributes[equals + 1..];
        assert!(value.starts_with('"'), "unquoted value of `{name}`");
        let close = value[1..].find('"').expect("an unterminated value") + 1;
        assert_text_escaped(&value[1..close]);
        attributes = &value[close + 1..];
    }
}

fn assert_text_escaped(text: &str) {
    for (index, _) in text.match_indices('&') {
        let entity = &text[index..];
        let known = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"];
        assert!(
            known.iter().any(|known| entity.starts_with(known)),
            "a bare `&` in {text:?}"
        );
    }
}

#[test]
fn the_xml_check_rejects_what_an_svg_writer_gets_wrong() {
    for bad in [
        "<svg><g></svg>",
        "<svg a=b/>",
        "<svg><text>a & b</text></svg>",
        "<svg/><svg/>",
        "<svg><text>1 < 2</text></svg>",
    ] {
        assert!(
            std::panic::catch_unwind(|| assert_well_formed_xml(bad)).is_err(),
            "{bad}"
        );
    }
    assert_well_formed_xml(r#"<svg a="1"><text x="&amp;">a &lt; b</text><g/></svg>"#);
}

#[test]
fn svg_draws_the_codex_sample_timeline_as_one_well_formed_document() {
    let dir = tempfile::tempdir().unwrap();
    let svg_path = dir.path().join("timeline.svg");
    let output = replay(&[
        "--no-reminders",
        "--svg",
        svg_path.to_str().unwrap(),
        CODEX_SAMPLE,
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert_well_formed_xml(&svg);
    assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg""#));
    // Self-contained: nothing is fetched.
    assert!(!svg.contains("href"));
    // Both series (the recorded one broken by nothing, the predicted one broken at the
    // requests estimated from the whole history), the thresholds and the recorded compaction.
    for expected in [
        "recorded compaction",
        "auto-compact 239,000",
        "warning 232,000",
        "blocking 249,000",
        "usage prediction error: median 0.5%, p95 1.9% over 55 request pairs",
    ] {
        assert!(svg.contains(expected), "{expected}");
    }
    insta::assert_snapshot!(svg);
}

#[test]
fn svg_leaves_out_a_zoom_that_would_draw_the_window_again() {
    let dir = tempfile::tempdir().unwrap();
    let svg_of = |window: &str| {
        let svg_path = dir.path().join(format!("timeline-{window}.svg"));
        let output = replay(&[
            "--no-reminders",
            "--context-window",
            window,
            "--svg",
            svg_path.to_str().unwrap(),
            CLAUDE_SAMPLE,
        ])
        .output()
        .unwrap();
        assert!(output.status.success(), "{output:?}");
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        assert_well_formed_xml(&svg);
        svg
    };
    // The sample peaks near 24,000 tokens: of 200,000 the zoom shows 0 to 50,000.
    let wide = svg_of("200000");
    assert_eq!(wide.matches(r#"<g class="panel""#).count(), 2);
    assert!(wide.contains("zoom: 0 to 50,000 tokens"), "{wide}");
    // Of 60,000 the same zoom would be most of the window: one panel.
    let narrow = svg_of("60000");
    assert_eq!(narrow.matches(r#"<g class="panel""#).count(), 1, "{narrow}");
    assert!(!narrow.contains(r#"data-panel="zoom""#), "{narrow}");
    assert!(!narrow.contains("zoom:"), "{narrow}");
    // Either way the legend is drawn once, after the panels.
    for svg in [&wide, &narrow] {
        assert_eq!(svg.matches(r#"<g class="legend">"#).count(), 1);
        let legend = svg.find(r#"<g class="legend">"#).unwrap();
        assert!(svg.rfind(r#"<g class="panel""#).unwrap() < legend);
    }
}

#[test]
fn svg_escapes_the_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("a<b>&\"c\".jsonl");
    std::fs::copy(workspace().join(CODEX_SAMPLE), &session).unwrap();
    let svg_path = dir.path().join("timeline.svg");
    let output = replay(&[
        "--no-reminders",
        "--svg",
        svg_path.to_str().unwrap(),
        session.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert_well_formed_xml(&svg);
    assert!(svg.contains("a&lt;b&gt;&amp;&quot;c&quot;.jsonl"));
}

#[test]
fn svg_with_several_sessions_is_an_error_before_anything_is_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let svg_path = dir.path().join("timeline.svg");
    let output = replay(&[
        "--svg",
        svg_path.to_str().unwrap(),
        CODEX_SAMPLE,
        CLAUDE_SAMPLE,
    ])
    .output()
    .unwrap();
    assert!(!output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "error: --svg draws one session, but the paths hold 2 session files: name one file\n"
    );
    assert!(!svg_path.exists());
}

/// Writes `lines` as a session file `name` in a new directory.
fn session_file(name: &str, lines: &[String]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (dir, path)
}

fn line(timestamp: &str, kind: &str, payload: &Value) -> String {
    serde_json::json!({"timestamp": timestamp, "type": kind, "payload": payload}).to_string()
}

/// A `token_count` as codex 0.50 wrote it: the request's usage, the session's total, the rate
/// limits the event was also sent for.
fn codex_050_count(last: u64, total: u64, used_percent: f64) -> Value {
    let usage = |input: u64| {
        serde_json::json!({"input_tokens": input, "cached_input_tokens": 0, "output_tokens": 300,
            "reasoning_output_tokens": 128, "total_tokens": input + 300})
    };
    serde_json::json!({"type": "token_count",
        "info": {"total_token_usage": usage(total), "last_token_usage": usage(last), "model_context_window": 272000},
        "rate_limits": {"primary": {"used_percent": used_percent, "window_minutes": 300, "resets_in_seconds": 9000},
            "secondary": {"used_percent": 1.0, "window_minutes": 10080, "resets_in_seconds": 500000}}})
}

/// A session of codex 0.50 as it wrote it: three model requests of one turn, each request's
/// lines in the order `core/src/codex.rs` wrote them then. `try_run_turn` persists the
/// `turn_context` and opens the stream; the rate limits of the response headers come first and
/// `update_rate_limits` sends a `token_count` with the usage stored so far (none before the
/// first request, the previous request's after: a copy); the stream's `Completed` sends the
/// request's own `token_count` (`update_token_usage_info`); only then does `run_task` record
/// the request's items and tool outputs (`process_items` → `record_conversation_items`). The
/// recorded inputs are those our estimate predicts: each is the previous one plus our estimate
/// of what the previous request added.
fn codex_050_session() -> Vec<String> {
    const INPUTS: [u64; 3] = [11_000, 17_768, 18_972];
    let [first, second, third] = INPUTS;
    let context = serde_json::json!({"cwd": "/work/app", "approval_policy": "on-request",
        "sandbox_policy": {"mode": "workspace-write", "network_access": false,
            "exclude_tmpdir_env_var": false, "exclude_slash_tmp": false},
        "model": "gpt-5-codex", "effort": "medium", "summary": "auto"});
    let test_log = (1..700)
        .map(|case| format!("test parser::tests::case_{case:03} ... ok"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n\nfailures:\n\n---- parser::tests::nested_lists stdout ----\nassertion `left == right` failed\n  left: [Item(1), List([])]\n right: [Item(1), List([Item(2)])]\n\ntest result: FAILED. 699 passed; 1 failed";
    let source = (180..230)
        .map(|line| format!("{line:>4}\t    fn parse_line_{line}(&mut self, line: &str) -> Result<Node> {{ self.push(line) }}"))
        .collect::<Vec<_>>()
        .join("\n");
    let shell = |call_id: &str, command: &str| {
        serde_json::json!({"type": "function_call", "name": "shell", "call_id": call_id,
            "arguments": serde_json::json!({"command": ["bash", "-lc", command], "workdir": "/work/app"}).to_string()})
    };
    let output = |call_id: &str, output: &str, exit_code: i32| {
        serde_json::json!({"type": "function_call_output", "call_id": call_id,
            "output": serde_json::json!({"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 6.4}}).to_string()})
    };
    let reasoning = |text: &str| {
        serde_json::json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
            "content": null, "encrypted_content": "gAAAAABo9zV1"})
    };
    let request = "the parser test for nested lists fails, fix it";
    let answer = "The nested list branch drops its items; `parse_list` now keeps them.";
    vec![
        line(
            "2025-10-21T08:00:00.010Z",
            "session_meta",
            &serde_json::json!({"id": "0199fb3c-7d21-7a40-9c11-2f6e8d0a4b15",
            "timestamp": "2025-10-21T08:00:00.000Z", "cwd": "/work/app", "originator": "codex_cli_rs",
            "cli_version": "0.50.0", "instructions": null, "source": "cli", "model_provider": "openai"}),
        ),
        line(
            "2025-10-21T08:00:00.020Z",
            "response_item",
            &serde_json::json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>/work/app</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"}]}),
        ),
        line(
            "2025-10-21T08:00:05.000Z",
            "response_item",
            &serde_json::json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": request}]}),
        ),
        line(
            "2025-10-21T08:00:05.001Z",
            "event_msg",
            &serde_json::json!({"type": "user_message", "message": request, "images": []}),
        ),
        // Request 1.
        line("2025-10-21T08:00:05.002Z", "turn_context", &context),
        line(
            "2025-10-21T08:00:05.900Z",
            "event_msg",
            &serde_json::json!({"type": "token_count", "info": null,
            "rate_limits": {"primary": {"used_percent": 4.0, "window_minutes": 300, "resets_in_seconds": 9000}}}),
        ),
        line(
            "2025-10-21T08:00:08.000Z",
            "event_msg",
            &serde_json::json!({"type": "agent_reasoning", "text": "**Running the parser tests**"}),
        ),
        line(
            "2025-10-21T08:00:08.500Z",
            "event_msg",
            &codex_050_count(first, first, 4.0),
        ),
        line(
            "2025-10-21T08:00:08.501Z",
            "response_item",
            &reasoning("**Running the parser tests**"),
        ),
        line(
            "2025-10-21T08:00:08.502Z",
            "response_item",
            &shell("call_Tq1", "cargo test -p parser"),
        ),
        line(
            "2025-10-21T08:00:15.000Z",
            "response_item",
            &output("call_Tq1", &test_log, 101),
        ),
        // Request 2.
        line("2025-10-21T08:00:15.001Z", "turn_context", &context),
        line(
            "2025-10-21T08:00:15.800Z",
            "event_msg",
            &codex_050_count(first, first, 5.0),
        ),
        line(
            "2025-10-21T08:00:18.000Z",
            "event_msg",
            &serde_json::json!({"type": "agent_reasoning", "text": "**Reading the list parser**"}),
        ),
        line(
            "2025-10-21T08:00:18.400Z",
            "event_msg",
            &codex_050_count(second, first + second, 5.0),
        ),
        line(
            "2025-10-21T08:00:18.401Z",
            "response_item",
            &reasoning("**Reading the list parser**"),
        ),
        line(
            "2025-10-21T08:00:18.402Z",
            "response_item",
            &shell("call_Tq2", "nl -ba src/parser.rs | sed -n '180,230p'"),
        ),
        line(
            "2025-10-21T08:00:18.600Z",
            "response_item",
            &output("call_Tq2", &source, 0),
        ),
        // Request 3.
        line("2025-10-21T08:00:18.601Z", "turn_context", &context),
        line(
            "2025-10-21T08:00:19.300Z",
            "event_msg",
            &codex_050_count(second, first + second, 5.0),
        ),
        line(
            "2025-10-21T08:00:21.000Z",
            "event_msg",
            &serde_json::json!({"type": "agent_message", "message": answer}),
        ),
        line(
            "2025-10-21T08:00:21.200Z",
            "event_msg",
            &codex_050_count(third, first + second + third, 5.0),
        ),
        line(
            "2025-10-21T08:00:21.201Z",
            "response_item",
            &serde_json::json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": answer}]}),
        ),
    ]
}

#[test]
fn a_codex_050_session_credits_each_token_count_to_the_request_it_measures() {
    let (_dir, path) = session_file(
        "rollout-2025-10-21T08-00-00-0199fb3c.jsonl",
        &codex_050_session(),
    );
    let output = replay(&["--json", "--no-reminders", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let session = &json_lines(&output.stdout)[0];
    let requests: Vec<Value> = session["turn_details"][0]["request_usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|request| {
            serde_json::json!([
                request["predicted_tokens"],
                request["basis"],
                request["recorded_tokens"]
            ])
        })
        .collect();
    // Each request recorded its own input (its copy, sent when the next request's rate limits
    // arrived, is dropped), and the prediction is exact. Crediting each count to the request
    // open when it was written gave request 1 the input of request 2 and request 2 that of
    // request 3 (predicted 24,536 against 18,972: a 29% miss), and request 3 none.
    assert_eq!(
        requests,
        vec![
            serde_json::json!([109, "whole_history", 11_000]),
            serde_json::json!([17_768, "previous_request", 17_768]),
            serde_json::json!([18_972, "previous_request", 18_972]),
        ]
    );
    assert_eq!(
        session["usage_prediction_error"],
        serde_json::json!({"median": 0.0, "p95": 0.0, "n": 2})
    );
    assert_eq!(
        session["ignored_records"],
        serde_json::json!({"token_count:copy": 2})
    );
}

#[test]
fn the_lines_codex_014x_adds_are_read_or_counted() {
    // Codex 0.145's lines beside the conversation (upstream `RolloutItem`: `world_state`, the
    // baseline of what the model was told, and `inter_agent_communication_metadata`), its
    // `thread_settings_applied` event, a `spawn_agent` call of the `collaboration` namespace
    // and a code-mode `exec` call whose output is content items.
    let lines = [
        serde_json::json!({"timestamp": "2026-08-06T12:48:58.100Z", "type": "session_meta", "payload": {"id": "019f7a2c-1b2e-7d41-9a53-3c0e2f1d8a77", "cwd": "/work/app", "originator": "codex_cli_rs", "cli_version": "0.145.0", "source": "cli", "model_provider": "openai"}}),
        serde_json::json!({"timestamp": "2026-08-06T12:48:58.186Z", "type": "world_state", "payload": {"full": true, "state": {"agents_md": {"directory": "/work/app", "text": "Use pnpm here."}, "collaboration_mode": "default"}}}),
        serde_json::json!({"timestamp": "2026-08-06T12:48:58.187Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "# AGENTS.md instructions for /work/app\n\n<INSTRUCTIONS>\nUse pnpm here.\n</INSTRUCTIONS>"}]}}),
        serde_json::json!({"timestamp": "2026-08-06T12:48:58.190Z", "type": "turn_context", "payload": {"turn_id": "t1", "cwd": "/work/app", "approval_policy": "on-request", "model": "gpt-5.5", "effort": "medium"}}),
        serde_json::json!({"timestamp": "2026-08-06T12:48:58.191Z", "type": "event_msg", "payload": {"type": "thread_settings_applied", "thread_settings": {"model": "gpt-5.5", "reasoning_effort": "medium"}}}),
        serde_json::json!({"timestamp": "2026-08-06T12:48:58.200Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "split the parser work"}]}}),
        serde_json::json!({"timestamp": "2026-08-06T12:48:58.201Z", "type": "event_msg", "payload": {"type": "user_message", "message": "split the parser work", "images": [], "local_images": [], "text_elements": []}}),
        serde_json::json!({"timestamp": "2026-08-06T12:49:02.000Z", "type": "response_item", "payload": {"type": "function_call", "id": "fc_1", "call_id": "call_spawn", "namespace": "collaboration", "name": "spawn_agent", "arguments": "{\"task_name\":\"lexer\",\"message\":\"rewrite the lexer\",\"fork_turns\":\"none\"}"}}),
        serde_json::json!({"timestamp": "2026-08-06T12:49:02.100Z", "type": "inter_agent_communication_metadata", "payload": {"trigger_turn": true}}),
        serde_json::json!({"timestamp": "2026-08-06T12:49:02.200Z", "type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_spawn", "output": "{\"agent_id\":\"019f7a2d\",\"nickname\":\"Boyle\"}"}}),
        serde_json::json!({"timestamp": "2026-08-06T12:49:05.000Z", "type": "response_item", "payload": {"type": "custom_tool_call", "status": "completed", "call_id": "call_NDJ", "name": "exec", "input": "text(await tools.exec_command({cmd:\"uname -s\",max_output_tokens:1000}));\n"}}),
        serde_json::json!({"timestamp": "2026-08-06T12:49:06.000Z", "type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": "call_NDJ", "output": [{"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"}, {"type": "input_text", "text": "Linux\n"}]}}),
        serde_json::json!({"timestamp": "2026-08-06T12:49:06.100Z", "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 15200, "total_tokens": 15380}, "last_token_usage": {"input_tokens": 15200, "total_tokens": 15380}, "model_context_window": 258400}, "rate_limits": null}}),
        serde_json::json!({"timestamp": "2026-08-06T12:49:08.000Z", "type": "world_state", "payload": {"full": false, "state": {"collaboration_mode": "default"}}}),
    ]
    .map(|line| line.to_string());
    let (_dir, path) = session_file("rollout-2026-08-06T12-48-58-019f7a2c.jsonl", &lines);
    let output = replay(&["--json", "--no-reminders", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    let session = &json_lines(&output.stdout)[0];
    assert_eq!(
        session["ignored_records"],
        serde_json::json!({"inter_agent_communication_metadata": 1, "world_state": 2})
    );
    // The AGENTS.md text the model saw is the item rendered from the baseline, read once.
    assert_eq!(session["preamble_items"], 1);
    assert_eq!(session["turns"], 1);
    assert_eq!(
        session["turn_details"][0]["tools"],
        serde_json::json!({"exec": 1, "spawn_agent": 1})
    );
}

#[test]
fn claude_code_attachments_and_a_1m_model_in_a_replay() {
    // As Claude Code 2.1.x writes them: the context it added before a request as `attachment`
    // records, and the model with the 1M window on.
    let envelope = r#""userType":"external","entrypoint":"cli","cwd":"/work/app","sessionId":"0ab3352c","version":"2.1.123","gitBranch":"main""#;
    let lines = [
        r#""parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"read the whole repo and fix the parser"},"uuid":"u1","timestamp":"2026-05-01T02:45:00.000Z""#,
        r#""parentUuid":"u1","isSidechain":false,"attachment":{"type":"hook_additional_context","content":["the repo uses pnpm"],"hookName":"UserPromptSubmit","toolUseID":"hook-1","hookEvent":"UserPromptSubmit"},"type":"attachment","uuid":"x1","timestamp":"2026-05-01T02:45:00.100Z""#,
        r#""parentUuid":"x1","isSidechain":false,"message":{"model":"claude-opus-4-6[1m]","id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"src/parser.rs"}}],"usage":{"input_tokens":2,"cache_creation_input_tokens":1000,"cache_read_input_tokens":300000,"output_tokens":40}},"requestId":"req_1","type":"assistant","uuid":"a1","timestamp":"2026-05-01T02:45:05.000Z""#,
        r#""parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"fn parse() {}"}]},"uuid":"u2","timestamp":"2026-05-01T02:45:06.000Z""#,
        r#""parentUuid":"u2","isSidechain":false,"attachment":{"type":"todo_reminder","content":[{"content":"Fix the parser","status":"in_progress","activeForm":"Fixing the parser"}],"itemCount":1},"type":"attachment","uuid":"x2","timestamp":"2026-05-01T02:45:06.100Z""#,
        r#""parentUuid":"x2","isSidechain":false,"attachment":{"type":"deferred_tools_delta","addedNames":["WebFetch"],"addedLines":["WebFetch"],"removedNames":[]},"type":"attachment","uuid":"x3","timestamp":"2026-05-01T02:45:06.110Z""#,
        r#""parentUuid":"x3","isSidechain":false,"message":{"model":"claude-opus-4-6[1m]","id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"fixed"}],"usage":{"input_tokens":2,"cache_creation_input_tokens":300,"cache_read_input_tokens":301002,"output_tokens":5}},"requestId":"req_2","type":"assistant","uuid":"a2","timestamp":"2026-05-01T02:45:09.000Z""#,
    ]
    .map(|body| format!("{{{body},{envelope}}}"));
    let (_dir, path) = session_file("0ab3352c.jsonl", &lines);
    let output = replay(&["--json", "--no-reminders", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let session = &json_lines(&output.stdout)[0];
    // Judged against a million tokens: the second request's 301,304 are far from its levels.
    assert_eq!(session["thresholds"]["window"], 1_000_000);
    let levels: Vec<&Value> = session["turn_details"][0]["request_usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|request| &request["level"])
        .collect();
    assert_eq!(levels, ["normal", "normal"]);
    // The attachments the model saw are injected items of the turn, not turns of their own.
    assert_eq!(session["turns"], 1);
    assert_eq!(session["items"], 6);
    assert_eq!(
        session["ignored_records"],
        serde_json::json!({"attachment:deferred_tools_delta": 1})
    );
}
