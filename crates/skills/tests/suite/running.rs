//! Concurrent execution prevention with tokio: a second invocation while the first runs
//! is refused, and the guard is released on every exit path.

use agentctx_skills::RunningSkills;
use agentctx_skills::SkillError;
use pretty_assertions::assert_eq;
use tokio::sync::oneshot;

#[tokio::test(start_paused = true)]
async fn second_invocation_while_running_is_refused_and_released_after_error() {
    let running = RunningSkills::new();
    let (started_tx, started_rx) = oneshot::channel();
    let (finish_tx, finish_rx) = oneshot::channel::<()>();
    let first = tokio::spawn({
        let running = running.clone();
        async move {
            running
                .run_exclusive("deploy", async move {
                    let _ = started_tx.send(());
                    let _ = finish_rx.await;
                    Err::<(), String>("deploy failed".to_string())
                })
                .await
        }
    });
    started_rx.await.expect("first started");
    assert!(running.is_running("deploy"));

    let second = running
        .run_exclusive("deploy", async { Ok::<(), String>(()) })
        .await;
    assert_eq!(
        second,
        Err(SkillError::AlreadyRunning {
            name: "deploy".to_string()
        })
    );
    // Other skills are not blocked.
    assert_eq!(running.run_exclusive("lint", async { 7 }).await, Ok(7));

    finish_tx.send(()).expect("finish");
    let first = first.await.expect("joined");
    assert_eq!(first, Ok(Err("deploy failed".to_string())));
    assert!(!running.is_running("deploy"));
    assert_eq!(running.run_exclusive("deploy", async { 1 }).await, Ok(1));
}

fn early_return(running: &RunningSkills, fail: bool) -> Result<u32, String> {
    let _guard = running.try_acquire("commit").map_err(|e| e.to_string())?;
    if fail {
        return Err("early".to_string());
    }
    Ok(1)
}

#[tokio::test(start_paused = true)]
async fn guard_is_released_after_early_return_and_error() {
    let running = RunningSkills::new();
    assert_eq!(early_return(&running, true), Err("early".to_string()));
    assert!(!running.is_running("commit"));
    assert_eq!(early_return(&running, false), Ok(1));
    assert!(!running.is_running("commit"));

    let guard = running.try_acquire("commit").expect("free");
    assert_eq!(guard.name(), "commit");
    assert_eq!(
        early_return(&running, false),
        Err("skill `commit` is already running".to_string())
    );
    drop(guard);
    assert_eq!(early_return(&running, false), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn guard_is_released_when_the_task_is_cancelled_or_panics() {
    let running = RunningSkills::new();
    let (started_tx, started_rx) = oneshot::channel();
    let task = tokio::spawn({
        let running = running.clone();
        async move {
            running
                .run_exclusive("review-pr", async move {
                    let _ = started_tx.send(());
                    std::future::pending::<()>().await;
                })
                .await
        }
    });
    started_rx.await.expect("started");
    assert!(running.is_running("review-pr"));
    task.abort();
    assert!(task.await.expect_err("aborted").is_cancelled());
    assert!(!running.is_running("review-pr"));

    let panicking = tokio::spawn({
        let running = running.clone();
        async move {
            running
                .run_exclusive("review-pr", async { panic!("skill crashed") })
                .await
        }
    });
    assert!(panicking.await.expect_err("panicked").is_panic());
    assert!(!running.is_running("review-pr"));
}

#[tokio::test(start_paused = true)]
async fn timed_out_invocation_releases_the_guard() {
    let running = RunningSkills::new();
    let slow = running.run_exclusive(
        "slow",
        tokio::time::sleep(std::time::Duration::from_secs(60)),
    );
    let timed_out = tokio::time::timeout(std::time::Duration::from_secs(1), slow).await;
    assert!(timed_out.is_err());
    assert!(!running.is_running("slow"));
}
