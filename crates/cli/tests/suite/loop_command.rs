//! `agentctx loop` against a wiremock OpenAI Responses server in a temporary git repository:
//! two iterations make two commits; bad conditions and a folder that is not a repository fail
//! with one error line.

use std::path::Path;

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::run_mock::MockProvider;
use super::run_mock::Out;
use super::run_mock::agentctx_child;
use super::run_mock::dirs;
use super::run_mock::git_env;
use super::run_mock::responses_sse;

fn git(home: &Path, repo: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new("git");
    cmd.current_dir(repo).args(args);
    git_env(&mut cmd, home);
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn write(call_id: &'static str, path: &str, content: &str) -> String {
    responses_sse(&[Out::Call {
        call_id,
        name: "write_file",
        arguments: json!({"path": path, "content": content}),
    }])
}

#[test]
fn two_iterations_make_two_commits() {
    let dirs = dirs();
    let (home, repo) = (dirs.home.path(), dirs.cwd.path());
    git(home, repo, &["init", "--quiet"]);
    std::fs::write(repo.join("README.md"), "# demo\n").unwrap();
    git(home, repo, &["add", "README.md"]);
    git(home, repo, &["commit", "--quiet", "-m", "initial"]);
    let provider = MockProvider::start(vec![
        write("call_1", "one.txt", "first\n"),
        responses_sse(&[Out::Text("Added one.txt.")]),
        write("call_2", "two.txt", "second\n"),
        responses_sse(&[Out::Text("Added two.txt.")]),
    ]);
    let output = provider
        .agentctx(
            home,
            repo,
            &["loop", "--iters", "2", "--yes", "add a file per iteration"],
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("iteration 1 started\n"), "{stdout}");
    assert!(stdout.contains("iteration 2 ok: commit "), "{stdout}");
    assert!(stdout.contains("loop completed\n"), "{stdout}");
    assert!(
        stdout.contains("iterations: 2 attempted, 2 succeeded, 0 failed"),
        "{stdout}"
    );

    assert_eq!(
        git(home, repo, &["rev-list", "--count", "HEAD"]).trim(),
        "3"
    );
    let log = git(home, repo, &["log", "--format=%s", "--name-only", "-2"]);
    assert!(log.contains("one.txt") && log.contains("two.txt"), "{log}");
    assert!(log.contains("[iter] agent changes"), "{log}");
    assert_eq!(git(home, repo, &["status", "--porcelain"]), "");
    // Each iteration's prompt carries the task and the loop context.
    let bodies = provider.agent_bodies();
    assert_eq!(bodies.len(), 4);
    assert!(
        bodies[2].to_string().contains("add a file per iteration"),
        "{}",
        bodies[2]
    );
}

#[test]
fn zero_iterations_is_refused() {
    let dirs = dirs();
    let output = agentctx_child(dirs.home.path(), dirs.cwd.path())
        .args(["loop", "--iters", "0", "task"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: --iters 0: "), "{stderr}");
}

#[test]
fn a_duration_without_a_unit_and_iters_with_one_are_refused() {
    let dirs = dirs();
    for (flag, value) in [("--duration", "90"), ("--iters", "5m")] {
        let output = agentctx_child(dirs.home.path(), dirs.cwd.path())
            .args(["loop", flag, value, "task"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{flag} {value}");
    }
}

#[test]
fn a_condition_is_required() {
    let dirs = dirs();
    let output = agentctx_child(dirs.home.path(), dirs.cwd.path())
        .args(["loop", "task"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_folder_that_is_not_a_repository_is_one_error_line() {
    let dirs = dirs();
    let provider = MockProvider::start(Vec::new());
    let output = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["loop", "--iters", "1", "--yes", "task"],
        )
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(provider.agent_bodies().is_empty());
}

#[test]
fn a_loop_stopped_by_its_budget_resumes_after_the_budget_is_raised() {
    let dirs = dirs();
    let (home, repo) = (dirs.home.path(), dirs.cwd.path());
    git(home, repo, &["init", "--quiet"]);
    std::fs::write(repo.join("README.md"), "# demo\n").unwrap();
    git(home, repo, &["add", "README.md"]);
    git(home, repo, &["commit", "--quiet", "-m", "initial"]);
    std::fs::write(
        home.join("config.toml"),
        "model = \"gpt-test\"\n\n[loop.budget]\nmax_iterations = 1\n",
    )
    .unwrap();
    let provider = MockProvider::start(vec![
        write("call_1", "one.txt", "first\n"),
        responses_sse(&[Out::Text("Added one.txt.")]),
        write("call_2", "two.txt", "second\n"),
        responses_sse(&[Out::Text("Added two.txt.")]),
    ]);
    let first = provider
        .agentctx(
            home,
            repo,
            &["loop", "--iters", "2", "--yes", "add a file per iteration"],
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8(first.stdout.clone()).unwrap();
    assert_eq!(first.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("budget"), "{stdout}");
    assert_eq!(
        git(home, repo, &["rev-list", "--count", "HEAD"]).trim(),
        "2"
    );

    // The budget is raised; the saved loop goes on with its own condition and prompt.
    std::fs::write(home.join("config.toml"), "model = \"gpt-test\"\n").unwrap();
    let resumed = provider
        .agentctx(home, repo, &["loop", "--resume", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(resumed.stdout.clone()).unwrap();
    assert!(
        resumed.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(stdout.contains("iteration 2 ok: commit "), "{stdout}");
    assert!(stdout.contains("loop completed\n"), "{stdout}");
    assert_eq!(
        git(home, repo, &["rev-list", "--count", "HEAD"]).trim(),
        "3"
    );
    let bodies = provider.agent_bodies();
    assert!(
        bodies[2].to_string().contains("add a file per iteration"),
        "the resumed iteration works on the saved task"
    );
}

#[test]
fn resume_without_a_saved_loop_is_one_error_line() {
    let dirs = dirs();
    let (home, repo) = (dirs.home.path(), dirs.cwd.path());
    git(home, repo, &["init", "--quiet"]);
    let output = agentctx_child(home, repo)
        .args(["loop", "--resume", "--yes"])
        .env("OPENAI_API_KEY", "sk-test")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
}
