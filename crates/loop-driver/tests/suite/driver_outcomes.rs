//! Every way a loop ends, each named by its `LoopOutcome`.

use std::time::Duration;

use agentctx_loop_driver::Budget;
use agentctx_loop_driver::CommitFailurePolicy;
use agentctx_loop_driver::LoopCondition;
use agentctx_loop_driver::LoopConfig;
use agentctx_loop_driver::LoopError;
use agentctx_loop_driver::LoopOutcome;
use agentctx_loop_driver::LoopProgressEvent;
use agentctx_loop_driver::LoopResult;
use agentctx_loop_driver::TokenPrices;
use agentctx_loop_driver::TurnStatus;
use agentctx_model::ScriptedModelClient;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::scripted_agent::Edit;
use super::scripted_agent::ScriptedAgent;
use super::scripted_agent::Turn;
use super::scripted_agent::driver;
use super::test_repo::TestRepo;

const TASK: &str = "Keep improving the parser";

async fn run(
    repo: &TestRepo,
    turns: Vec<Turn>,
    config: LoopConfig,
    condition: LoopCondition,
) -> LoopResult {
    let agent = ScriptedAgent::new(repo.path(), turns);
    let model = ScriptedModelClient::new("summariser");
    driver(repo, agent, &model, config)
        .run(condition, TASK, CancellationToken::new())
        .await
        .unwrap()
}

fn writes(count: usize) -> Vec<Turn> {
    const NAMES: [&str; 8] = ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"];
    NAMES
        .iter()
        .take(count)
        .map(|name| Turn::write(name, name))
        .collect()
}

#[tokio::test]
async fn completed_when_the_iterations_ran() {
    let repo = TestRepo::with_commit();
    let result = run(
        &repo,
        writes(2),
        LoopConfig::default(),
        LoopCondition::iterations(2),
    )
    .await;
    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert!(result.outcome.is_success());
}

#[tokio::test(start_paused = true)]
async fn completed_when_the_duration_passed() {
    let repo = TestRepo::with_commit();
    let turns = writes(8)
        .into_iter()
        .map(|turn| turn.taking(Duration::from_secs(600)))
        .collect();
    // Iterations start at 0, 10 and 20 minutes; at 30 the 25 minutes are over.
    let result = run(&repo, turns, LoopConfig::default(), "25m".parse().unwrap()).await;
    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert_eq!(result.iterations_attempted, 3);
    assert_eq!(result.context.total_iterations, -1);
}

#[tokio::test]
async fn budget_exhausted_by_the_iteration_cap_of_a_duration_loop() {
    let repo = TestRepo::with_commit();
    let mut config = LoopConfig::default();
    config.budget.max_iterations = Some(2);
    let result = run(&repo, writes(4), config, "1h".parse().unwrap()).await;
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExhausted {
            which: Budget::Iterations
        }
    );
    assert_eq!(result.iterations_attempted, 2);
}

#[tokio::test(start_paused = true)]
async fn budget_exhausted_by_wall_time() {
    let repo = TestRepo::with_commit();
    let mut config = LoopConfig::default();
    config.budget.max_wall_time_seconds = Some(900);
    let turns = writes(5)
        .into_iter()
        .map(|turn| turn.taking(Duration::from_secs(600)))
        .collect();
    let result = run(&repo, turns, config, LoopCondition::iterations(5)).await;
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExhausted {
            which: Budget::WallTime
        }
    );
    assert_eq!(result.iterations_attempted, 2);
}

#[tokio::test]
async fn budget_exhausted_by_tokens() {
    let repo = TestRepo::with_commit();
    let mut config = LoopConfig::default();
    config.budget.max_total_tokens = Some(2_500);
    let result = run(&repo, writes(5), config, LoopCondition::iterations(5)).await;
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExhausted {
            which: Budget::Tokens
        }
    );
    assert_eq!(result.iterations_attempted, 3);
    assert_eq!(result.context.usage.total_tokens, 3_000);
}

#[tokio::test]
async fn budget_exhausted_by_cost_when_prices_are_known() {
    let repo = TestRepo::with_commit();
    let mut config = LoopConfig::default();
    config.budget.max_cost_usd = Some(0.045);
    config.prices = Some(TokenPrices {
        input_per_million: 10.0,
        cached_input_per_million: None,
        output_per_million: 30.0,
    });
    // 1,000 input tokens at $10 per million: one cent per iteration.
    let result = run(&repo, writes(8), config, LoopCondition::iterations(8)).await;
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExhausted {
            which: Budget::CostUsd
        }
    );
    assert_eq!(result.iterations_attempted, 5);
}

#[tokio::test]
async fn a_cost_budget_without_prices_is_refused() {
    let repo = TestRepo::with_commit();
    let mut config = LoopConfig::default();
    config.budget.max_cost_usd = Some(1.0);
    let agent = ScriptedAgent::new(repo.path(), Vec::new());
    let model = ScriptedModelClient::new("summariser");
    let error = driver(&repo, agent, &model, config)
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, LoopError::CostBudgetWithoutPrices),
        "{error:?}"
    );
}

#[tokio::test]
async fn no_progress_after_three_iterations_without_changes() {
    let repo = TestRepo::with_commit();
    let turns = vec![
        Turn::write("a", "a"),
        Turn::nothing(),
        Turn::nothing(),
        Turn::nothing(),
        Turn::write("b", "b"),
    ];
    let result = run(
        &repo,
        turns,
        LoopConfig::default(),
        LoopCondition::iterations(10),
    )
    .await;
    assert_eq!(result.outcome, LoopOutcome::NoProgress { iterations: 3 });
    assert_eq!(result.iterations_attempted, 4);
}

#[tokio::test]
async fn no_progress_when_iterations_repeat_earlier_diffs() {
    let repo = TestRepo::with_commit();
    // Add a line, remove it, add it again...: every change after the first two repeats one.
    let add = || Turn::write("README.md", "# demo\nflaky line\n");
    let remove = || Turn::write("README.md", "# demo\n");
    let turns = vec![add(), remove(), add(), remove(), add(), remove()];
    let config = LoopConfig {
        no_progress_iterations: 3,
        ..LoopConfig::default()
    };
    let result = run(&repo, turns, config, LoopCondition::iterations(6)).await;
    assert_eq!(result.outcome, LoopOutcome::NoProgress { iterations: 3 });
    assert_eq!(result.iterations_attempted, 5);
    let ids: Vec<_> = result
        .context
        .iterations
        .iter()
        .map(|r| r.diff_id.clone().unwrap())
        .collect();
    assert_eq!(ids[0], ids[2]);
    assert_eq!(ids[1], ids[3]);
    assert_ne!(ids[0], ids[1]);
}

#[tokio::test]
async fn too_many_failures_in_a_row() {
    let repo = TestRepo::with_commit();
    let turns = vec![
        Turn::failing("e1"),
        Turn::write("a", "a"),
        Turn::failing("e2"),
        Turn::failing("e3"),
        Turn::failing("e4"),
        Turn::write("b", "b"),
    ];
    let result = run(
        &repo,
        turns,
        LoopConfig::default(),
        LoopCondition::iterations(6),
    )
    .await;
    assert_eq!(
        result.outcome,
        LoopOutcome::TooManyFailures { consecutive: 3 }
    );
    assert_eq!(result.iterations_attempted, 5);
}

#[tokio::test]
async fn cancelled_before_the_first_iteration() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(repo.path(), writes(1));
    let model = ScriptedModelClient::new("summariser");
    let cancel = CancellationToken::new();
    cancel.cancel();
    let result = driver(&repo, agent.clone(), &model, LoopConfig::default())
        .run(LoopCondition::iterations(3), TASK, cancel)
        .await
        .unwrap();
    assert_eq!(result.outcome, LoopOutcome::Cancelled);
    assert_eq!(result.iterations_attempted, 0);
    assert!(agent.prompts().is_empty());
}

#[tokio::test]
async fn cancelled_mid_turn_interrupts_the_agent_and_records_the_iteration() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(repo.path(), vec![Turn::write("a", "a"), Turn::hanging()]);
    let model = ScriptedModelClient::new("summariser");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let driver =
        driver(&repo, agent.clone(), &model, LoopConfig::default()).on_progress(move |event| {
            if let LoopProgressEvent::IterationStarted { iteration: 1 } = event {
                trigger.cancel();
            }
        });
    let result = driver
        .run(LoopCondition::iterations(3), TASK, cancel)
        .await
        .unwrap();
    assert_eq!(result.outcome, LoopOutcome::Cancelled);
    assert_eq!(result.iterations_attempted, 2);
    assert!(agent.was_interrupted());
    let second = &result.context.iterations[1];
    assert!(!second.success);
    assert_eq!(
        second.failure.as_deref(),
        Some("the turn was interrupted: cancelled")
    );
}

#[tokio::test]
async fn interrupted_by_the_agent() {
    let repo = TestRepo::with_commit();
    let turns = vec![Turn::nothing().with_status(TurnStatus::Interrupted {
        reason: "aborted by the user".to_owned(),
    })];
    let result = run(
        &repo,
        turns,
        LoopConfig::default(),
        LoopCondition::iterations(3),
    )
    .await;
    assert_eq!(
        result.outcome,
        LoopOutcome::Interrupted {
            reason: "aborted by the user".to_owned()
        }
    );
    assert_eq!(result.context.outcome, Some(result.outcome.clone()));
}

#[tokio::test]
async fn a_rejecting_hook_fails_the_iteration_and_the_loop_goes_on_by_default() {
    let repo = TestRepo::with_commit();
    repo.hook("echo 'lint failed: trailing whitespace' >&2\nexit 1");
    let before = repo.commits();
    let result = run(
        &repo,
        writes(2),
        LoopConfig::default(),
        LoopCondition::iterations(2),
    )
    .await;
    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert_eq!(result.iterations_failed, 2);
    assert_eq!(repo.commits(), before, "nothing was committed");
    let failure = result.context.iterations[0].failure.clone().unwrap();
    assert!(failure.contains("the commit failed"), "{failure}");
    assert!(
        failure.contains("lint failed: trailing whitespace"),
        "{failure}"
    );
    // The second iteration tried again with the first one's files still staged.
    assert_eq!(result.context.iterations[1].changed_files, vec!["f0", "f1"]);
}

#[tokio::test]
async fn a_rejecting_hook_stops_the_loop_when_configured() {
    let repo = TestRepo::with_commit();
    repo.hook("echo 'no commits today' >&2\nexit 1");
    let config = LoopConfig {
        on_commit_failure: CommitFailurePolicy::Stop,
        ..LoopConfig::default()
    };
    let result = run(&repo, writes(3), config, LoopCondition::iterations(3)).await;
    match &result.outcome {
        LoopOutcome::CommitFailed { error } => {
            assert!(error.contains("no commits today"), "{error}");
        }
        other => panic!("expected CommitFailed, got {other:?}"),
    }
    assert_eq!(result.iterations_attempted, 1);
}

#[tokio::test]
async fn a_hook_that_passes_sees_the_generated_message() {
    let repo = TestRepo::with_commit();
    repo.hook("exit 0");
    let result = run(
        &repo,
        vec![Turn::edits(vec![Edit::Write("x", "x".to_owned())])],
        LoopConfig::default(),
        LoopCondition::iterations(1),
    )
    .await;
    assert!(result.context.iterations[0].commit_id.is_some());
}
