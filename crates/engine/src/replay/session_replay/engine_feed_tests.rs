use std::time::Duration;

use pretty_assertions::assert_eq;

use super::run_on;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn a_future_that_answers_at_once_is_run_in_place() {
    assert_eq!(run_on(&runtime(), async { 7 }), 7);
}

#[test]
fn a_future_that_waits_is_run_to_its_end_by_the_runtime() {
    let runtime = runtime();
    // Pending on its first poll (the blocking pool, then the timer), which needs the runtime's
    // context: both are there when it is first polled in place, and `block_on` finishes it.
    let waiting = async {
        let answer = tokio::task::spawn_blocking(|| 40).await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        answer + 2
    };
    assert_eq!(run_on(&runtime, waiting), 42);
    let timed_out = async {
        tokio::time::timeout(Duration::from_millis(5), std::future::pending::<()>()).await
    };
    assert!(run_on(&runtime, timed_out).is_err());
}
