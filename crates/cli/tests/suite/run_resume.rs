//! `agentctx run --resume <ID|last>` continues the session a previous run recorded, and that
//! rollout replays with `agentctx replay`.

use pretty_assertions::assert_eq;

use super::run_mock::MockProvider;
use super::run_mock::Out;
use super::run_mock::agentctx_child;
use super::run_mock::dirs;
use super::run_mock::input_texts;
use super::run_mock::responses_sse;

#[test]
fn resume_last_continues_the_recorded_session_and_the_rollout_replays() {
    let dirs = dirs();
    let provider = MockProvider::start(vec![
        responses_sse(&[Out::Text("The secret word is noted.")]),
        responses_sse(&[Out::Text("It was pelican.")]),
    ]);
    let first = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--yes", "remember the word pelican"],
        )
        .output()
        .unwrap();
    assert!(first.status.success(), "{first:?}");
    let second = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--yes", "--resume", "last", "which word?"],
        )
        .output()
        .unwrap();
    assert!(second.status.success(), "{second:?}");
    assert_eq!(
        String::from_utf8(second.stdout).unwrap(),
        "It was pelican.\n"
    );

    // The resumed request carries the first turn: its prompt and its answer.
    let bodies = provider.agent_bodies();
    assert_eq!(bodies.len(), 2);
    let texts = input_texts(&bodies[1]);
    for expected in [
        "remember the word pelican",
        "The secret word is noted.",
        "which word?",
    ] {
        assert!(
            texts.contains(&expected.to_string()),
            "{expected}: {texts:#?}"
        );
    }

    // One session file, appended to by the resumed run.
    let sessions = agentctx_rollout::discover_sessions(&dirs.home.path().join("sessions")).unwrap();
    assert_eq!(sessions.len(), 1);
    let rollout = &sessions[0].path;
    let replay = agentctx_child(dirs.home.path(), dirs.cwd.path())
        .args(["replay", "--json"])
        .arg(rollout)
        .output()
        .unwrap();
    assert!(replay.status.success(), "{replay:?}");
    let report: serde_json::Value =
        serde_json::from_str(String::from_utf8(replay.stdout).unwrap().trim()).unwrap();
    assert_eq!(report["format"], "codex", "{report:#}");
    assert_eq!(report["turns"], 2, "{report:#}");
    assert_eq!(report["skipped_lines"], 0, "{report:#}");
    assert!(
        report["session_id"]
            .as_str()
            .is_some_and(|id| rollout.to_string_lossy().ends_with(&format!("-{id}.jsonl"))),
        "{report:#}"
    );
}

#[test]
fn resume_by_id_uses_that_session() {
    let dirs = dirs();
    let provider = MockProvider::start(vec![
        responses_sse(&[Out::Text("First.")]),
        responses_sse(&[Out::Text("Second.")]),
    ]);
    let first = provider
        .agentctx(dirs.home.path(), dirs.cwd.path(), &["run", "--yes", "one"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(first.stderr).unwrap();
    let id = stderr
        .lines()
        .find_map(|line| line.strip_prefix("session "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    let second = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--yes", "--resume", &id, "two"],
        )
        .output()
        .unwrap();
    assert!(second.status.success(), "{second:?}");
    assert!(input_texts(&provider.agent_bodies()[1]).contains(&"one".to_string()));
}

#[test]
fn resuming_an_unknown_session_is_one_error_line() {
    let dirs = dirs();
    let provider = MockProvider::start(Vec::new());
    let output = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--yes", "--resume", "last", "hello"],
        )
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: no recorded sessions under "),
        "{stderr}"
    );
    assert!(provider.agent_bodies().is_empty());
}
