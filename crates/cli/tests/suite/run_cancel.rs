//! Ctrl-C during `agentctx run` cancels the turn: the running command is stopped, the process
//! exits with one line saying how to continue, and the rollout stays readable.

use std::io::BufRead as _;
use std::io::BufReader;
use std::process::Stdio;

use agentctx_protocol::EventMsg;
use agentctx_protocol::RolloutItem;
use assert_cmd::cargo::CommandCargoExt as _;
use serde_json::json;

use super::run_mock::MockProvider;
use super::run_mock::Out;
use super::run_mock::dirs;
use super::run_mock::responses_sse;

#[test]
fn ctrl_c_cancels_the_turn_and_leaves_a_readable_rollout() {
    let dirs = dirs();
    let provider = MockProvider::start(vec![responses_sse(&[Out::Call {
        call_id: "call_1",
        name: "shell",
        arguments: json!({"command": "sleep 600"}),
    }])]);
    let mut child = std::process::Command::cargo_bin("agentctx")
        .unwrap()
        .current_dir(dirs.cwd.path())
        .env("AGENTCTX_HOME", dirs.home.path())
        .env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", format!("{}/v1", provider.server.uri()))
        .env_remove("RUST_LOG")
        .args(["run", "--yes", "wait for a long time"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert_ne!(stderr.read_line(&mut line).unwrap(), 0, "{seen}");
        seen.push_str(&line);
        if line.starts_with("> shell ") {
            break;
        }
    }
    // The command is running: send the terminal's interrupt.
    assert_cmd::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .assert()
        .success();
    let mut rest = String::new();
    for line in stderr.lines() {
        rest.push_str(&line.unwrap());
        rest.push('\n');
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{seen}{rest}");
    assert!(rest.contains("turn cancelled\n"), "{rest}");
    assert!(
        rest.lines()
            .last()
            .is_some_and(|line| line
                .starts_with("error: the turn was cancelled; continue it with --resume ")),
        "{rest}"
    );

    let sessions = agentctx_rollout::discover_sessions(&dirs.home.path().join("sessions")).unwrap();
    let rollout = agentctx_rollout::read_rollout(&sessions[0].path).unwrap();
    assert!(
        rollout.records.iter().any(|record| matches!(
            record.line.item,
            RolloutItem::EventMsg(EventMsg::TurnAborted(_))
        )),
        "no turn_aborted in the rollout"
    );
    assert!(
        rollout
            .items()
            .any(|item| item.message_text().as_deref() == Some("wait for a long time"))
    );
}
