//! `agentctx skills list` and `agentctx skills show` over a copy of the skill fixture tree of
//! `agentctx-skills` in `tests/fixtures/skills/`, so the crate carries what its tests read.

use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/skills")
        .canonicalize()
        .expect("skill fixtures exist")
}

/// `agentctx skills <args>` with the fixture home and project, and no inherited
/// `AGENTCTX_HOME`.
fn skills(args: &[&str]) -> Command {
    let fixtures = fixtures();
    let mut cmd = Command::cargo_bin("agentctx").expect("binary");
    cmd.env_remove("AGENTCTX_HOME")
        .env_remove("RUST_LOG")
        .arg("skills")
        .args(args)
        .arg("--home")
        .arg(fixtures.join("home"))
        .arg("--cwd")
        .arg(fixtures.join("project"));
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace(&fixtures().display().to_string(), "<fixtures>")
}

#[test]
fn list_shows_every_command_and_reports_problems() {
    let output = skills(&["list"]).output().expect("runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    insta::assert_snapshot!("skills_list_stdout", text(&output.stdout));
    insta::assert_snapshot!("skills_list_stderr", text(&output.stderr));
}

#[test]
fn list_json_has_commands_shadowed_and_errors() {
    let output = skills(&["list", "--json"]).output().expect("runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let names: Vec<&str> = json["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        vec![
            "bad-interface",
            "commit",
            "deploy",
            "explain",
            "internal",
            "lint",
            "hidden",
            "greet",
            "review-pr",
            "help",
            "clear",
            "compact"
        ]
    );
    let error_files: Vec<String> = json["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| text(e["path"].as_str().expect("path").as_bytes()))
        .collect();
    assert_eq!(
        error_files,
        vec![
            "<fixtures>/home/skills/bad-interface/SKILL.toml",
            "<fixtures>/home/skills/bad-interface/SKILL.toml",
            "<fixtures>/home/skills/bad-interface/SKILL.toml",
            "<fixtures>/home/skills/bad-interface/SKILL.toml",
            "<fixtures>/home/skills/bad-interface/SKILL.toml",
            "<fixtures>/home/skills/bad-yaml/SKILL.md",
            "<fixtures>/home/skills/unclosed/SKILL.md",
            "<fixtures>/project/.claude/skills/lowercase/skill.md",
        ]
    );
    assert_eq!(json["shadowed"].as_array().map(Vec::len), Some(4));
}

#[test]
fn show_renders_the_prompt_with_arguments() {
    let output = skills(&["show", "/ship", "--args", "staging"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    insta::assert_snapshot!("skills_show_deploy", text(&output.stdout));
}

#[test]
fn show_a_local_command() {
    let output = skills(&["show", "compact"]).output().expect("runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    insta::assert_snapshot!("skills_show_compact", text(&output.stdout));
}

#[test]
fn show_json_includes_the_prompt() {
    let output = skills(&["show", "explain", "--json", "--args", "src/lib.rs"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(json["command"]["type"], "prompt");
    assert_eq!(json["command"]["name"], "explain");
    assert_eq!(
        json["command"]["interface"]["display_name"],
        "Code Explainer"
    );
    assert_eq!(json["model_invocable"], true);
    let prompt = json["prompt"].as_str().expect("prompt");
    assert!(prompt.ends_with("\n\nARGUMENTS: src/lib.rs"), "{prompt}");
}

/// Asserts that the run failed with exit code 1 and printed nothing but `line` on stderr:
/// no panic message, no backtrace (asked for with `RUST_BACKTRACE=1`).
#[track_caller]
fn assert_fails_with_one_line(output: &std::process::Output, line: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(text(&output.stdout), "");
    assert_eq!(stderr, format!("{line}\n"));
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"));
}

#[test]
fn show_unknown_command_is_a_one_line_error() {
    let output = skills(&["show", "nope"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("runs");
    assert_fails_with_one_line(
        &output,
        "error: unknown command `nope`; see `agentctx skills list`",
    );
}

#[test]
fn home_defaults_to_agentctx_home() {
    let fixtures = fixtures();
    let output = Command::cargo_bin("agentctx")
        .expect("binary")
        .env("AGENTCTX_HOME", fixtures.join("home"))
        .current_dir(fixtures.join("project"))
        .args(["skills", "show", "explain"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("source:          user\n"));

    let empty = tempfile::tempdir().expect("tempdir");
    let output = Command::cargo_bin("agentctx")
        .expect("binary")
        .env("AGENTCTX_HOME", empty.path())
        .env("RUST_BACKTRACE", "1")
        .current_dir(fixtures.join("project"))
        .args(["skills", "show", "explain"])
        .output()
        .expect("runs");
    // `explain` is a user skill; this home has none.
    assert_fails_with_one_line(
        &output,
        "error: unknown command `explain`; see `agentctx skills list`",
    );
}
