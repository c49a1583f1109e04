use std::time::Duration;

use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::*;

#[tokio::test]
async fn foreground_command_reports_output_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_shell(
        "echo hi; echo err >&2; exit 3",
        dir.path(),
        Duration::from_secs(30),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(out.stdout, "hi\n");
    assert_eq!(out.stderr, "err\n");
    assert!(!out.timed_out);
}

#[tokio::test(start_paused = true)]
async fn foreground_command_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_shell(
        "sleep 600",
        dir.path(),
        Duration::from_millis(100),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
}

#[tokio::test]
async fn background_process_collects_output_and_can_be_killed() {
    let dir = tempfile::tempdir().unwrap();
    let mut done = BackgroundProcess::spawn("echo one; echo two", dir.path()).unwrap();
    let mut collected = String::new();
    for _ in 0..200 {
        let (new, status) = done.read_new_output();
        collected.push_str(&new);
        if status != BackgroundStatus::Running {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(collected, "one\ntwo\n");
    assert_eq!(done.status(), BackgroundStatus::Exited(Some(0)));
    assert!(!done.kill());

    let mut running = BackgroundProcess::spawn("sleep 600", dir.path()).unwrap();
    assert!(running.kill());
    for _ in 0..200 {
        if running.status() != BackgroundStatus::Running {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(running.status(), BackgroundStatus::Killed);
}

#[tokio::test]
async fn run_with_input_feeds_stdin_sets_env_and_caps_output() {
    let cwd = tempfile::tempdir().unwrap();
    let out = run_with_input(
        "cat; echo \" $HOOK_TEST_VAR\"; head -c 100000 /dev/zero >&2",
        cwd.path(),
        &[("HOOK_TEST_VAR".to_string(), "set".to_string())],
        b"from stdin",
        Duration::from_secs(30),
        1_000,
    )
    .await
    .unwrap();
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout, "from stdin set\n");
    assert_eq!(out.stderr.len(), 1_000);
    assert!(out.truncated);
    assert!(!out.timed_out);
}

#[tokio::test(start_paused = true)]
async fn run_with_input_kills_a_command_at_its_timeout() {
    let cwd = tempfile::tempdir().unwrap();
    let out = run_with_input(
        "sleep 600",
        cwd.path(),
        &[],
        b"",
        Duration::from_secs(2),
        1_000,
    )
    .await
    .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
}
