//! `agentctx replay --reminders-config FILE`: the settings it reads, the environment overrides
//! over them, and settings that cannot be used (one error that names the file, the line and the
//! problem, printed once).

use std::path::Path;

use assert_cmd::Command;
use pretty_assertions::assert_eq;

use super::replay::CLAUDE_SAMPLE;
use super::replay::NO_HOME;
use super::replay::REMINDERS_FIXTURE;
use super::replay::json_lines;
use super::replay::replay;

fn replay_with_config(config: &Path) -> std::process::Output {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_LOG")
        .args(["replay", "--reminders-config"])
        .arg(config)
        .arg(REMINDERS_FIXTURE);
    for (name, _) in std::env::vars_os() {
        let name_text = name.to_string_lossy();
        if name_text.starts_with("AGENTCTX_") || name_text.starts_with("CODEX_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("AGENTCTX_HOME", NO_HOME);
    cmd.output().unwrap()
}

#[test]
fn a_bad_value_in_the_reminders_config_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[system_reminder]\nenable_token_usage = \"yes\"\n").unwrap();

    let output = replay_with_config(&config);

    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.matches("expected a boolean").count(),
        1,
        "the TOML error is printed once:\n{stderr}"
    );
    assert!(stderr.contains(&config.display().to_string()), "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
}

#[test]
fn a_syntax_error_in_the_reminders_config_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[system_reminder\n").unwrap();

    let output = replay_with_config(&config);

    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.matches("TOML parse error").count(), 1, "{stderr}");
    assert!(stderr.contains("line 1"), "{stderr}");
}

#[test]
fn environment_overrides_apply_over_the_reminders_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[system_reminder]\nenable_token_usage = false\n\n[system_reminder.attachments]\ntodo_reminder = false\ntool_result = false\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();

    // The `CODEX_` name works; the `AGENTCTX_` name wins over it.
    let output = replay(&["--json", "--reminders-config", config, CLAUDE_SAMPLE])
        .env("CODEX_ENABLE_TOKEN_USAGE", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let sessions = json_lines(&output.stdout);
    assert_eq!(
        sessions[0]["reminder_counts"],
        serde_json::json!({"token_usage": 43})
    );
    let output = replay(&["--json", "--reminders-config", config, CLAUDE_SAMPLE])
        .env("CODEX_ENABLE_TOKEN_USAGE", "1")
        .env("AGENTCTX_ENABLE_TOKEN_USAGE", "0")
        .output()
        .unwrap();
    let sessions = json_lines(&output.stdout);
    assert_eq!(sessions[0]["reminder_counts"], serde_json::json!({}));

    // Without a config file too.
    let output = replay(&["--json", REMINDERS_FIXTURE])
        .env("AGENTCTX_DISABLE_SYSTEM_REMINDERS", "true")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let sessions = json_lines(&output.stdout);
    assert_eq!(sessions[0]["reminder_counts"], serde_json::json!({}));

    // A value that means nothing is an error naming the variable, not a silent default.
    let output = replay(&[REMINDERS_FIXTURE])
        .env("AGENTCTX_SYSTEM_REMINDER_PLACEMENT", "middle")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("AGENTCTX_SYSTEM_REMINDER_PLACEMENT") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn a_reminders_config_can_turn_token_usage_on_and_todo_reminders_off() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[system_reminder]\nenable_token_usage = true\n\n[system_reminder.attachments]\ntodo_reminder = false\ntool_result = false\n",
    )
    .unwrap();
    let output = replay(&[
        "--json",
        "--reminders-config",
        config.to_str().unwrap(),
        CLAUDE_SAMPLE,
    ])
    .output()
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let sessions = json_lines(&output.stdout);
    // Every request (43 of 43) has usage to report, against the 200,000-token window assumed
    // for Claude Code: the engine's usage, which the first request has too (our estimate of its
    // prompt), as in a live session.
    assert_eq!(
        sessions[0]["reminder_counts"],
        serde_json::json!({"token_usage": 43})
    );
    let turn_two = &sessions[0]["turn_details"][2]["reminders"][0];
    assert_eq!(turn_two["type"], "token_usage");
    assert_eq!(turn_two["tier"], "main_agent_only");
    // The engine's usage against its effective window (200,000 less the 20,000 reserved for
    // output), as a live session reports it.
    assert!(
        turn_two["text"].as_str().unwrap().contains("/180000; "),
        "{turn_two}"
    );

    // The section's keys alone work too.
    std::fs::write(&config, "enabled = false\n").unwrap();
    let output = replay(&[
        "--json",
        "--reminders-config",
        config.to_str().unwrap(),
        REMINDERS_FIXTURE,
    ])
    .output()
    .unwrap();
    let sessions = json_lines(&output.stdout);
    assert_eq!(sessions[0]["reminder_counts"], serde_json::json!({}));
}

#[test]
fn an_unreadable_reminders_config_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[system_reminder]\nenabled = \"maybe\"\n").unwrap();
    let output = replay(&[
        "--reminders-config",
        config.to_str().unwrap(),
        CLAUDE_SAMPLE,
    ])
    .env("RUST_BACKTRACE", "1")
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.lines().next(),
        Some(
            format!(
                "error: invalid reminder settings in {}: TOML parse error at line 2, column 11",
                config.display()
            )
            .as_str()
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}
