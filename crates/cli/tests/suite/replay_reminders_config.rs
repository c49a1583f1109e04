//! `agentctx replay --reminders-config FILE` with settings that cannot be used: one error that
//! names the file, the line and the problem, printed once.

use assert_cmd::Command;
use std::path::Path;

const REMINDERS_FIXTURE: &str = "tests/fixtures/claude-reminders.jsonl";

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
