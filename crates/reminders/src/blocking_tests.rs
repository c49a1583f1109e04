use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn work_runs_on_the_blocking_pool_and_its_panic_is_an_error() {
    assert_eq!(run_blocking("test", || 2 + 2).await.unwrap(), 4);
    let error = run_blocking("test", || -> usize { panic!("boom") })
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("test: file system work failed"),
        "{error}"
    );
}

#[test]
fn outside_a_runtime_work_runs_inline() {
    let got = futures::executor::block_on(run_blocking("test", || "inline"));
    assert_eq!(got.unwrap(), "inline");
}

#[tokio::test]
async fn a_timeout_fires_while_the_blocking_work_is_stuck() {
    // The work cannot finish until the test releases it, so only a timeout that does not wait
    // for it can return: the outcome does not depend on how fast the machine is.
    let (release, stuck) = std::sync::mpsc::channel::<()>();
    let outcome = tokio::time::timeout(
        std::time::Duration::from_millis(10),
        run_blocking("test", move || stuck.recv().is_ok()),
    )
    .await;
    assert!(
        outcome.is_err(),
        "the timeout returned while the work was stuck"
    );
    release.send(()).unwrap();
}
