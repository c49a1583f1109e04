use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

use super::Budget;
use super::LoopOutcome;
use super::LoopResult;
use crate::condition::LoopCondition;
use crate::context::IterationRecord;
use crate::context::LoopContext;

fn record(iteration: i32, commit: Option<&str>, files: &[&str], success: bool) -> IterationRecord {
    IterationRecord {
        timestamp: Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
        ..IterationRecord::new(
            iteration,
            commit.map(str::to_owned),
            files.iter().map(|f| (*f).to_owned()).collect(),
            format!("summary {iteration}"),
            success,
        )
    }
}

#[test]
fn the_report_the_cli_prints() {
    let mut context = LoopContext::new(
        "0123456789abcdef".to_owned(),
        "task".to_owned(),
        None,
        LoopCondition::iterations(3),
    );
    context.add_iteration(record(
        0,
        Some("aaaaaaa1111"),
        &["src/a.rs", "src/b.rs"],
        true,
    ));
    context.add_iteration(record(1, None, &[], false));
    context.usage.total_tokens = 12_345;
    let outcome = LoopOutcome::TooManyFailures { consecutive: 1 };
    context.outcome = Some(outcome.clone());
    let result = LoopResult {
        iterations_attempted: 2,
        iterations_succeeded: 1,
        iterations_failed: 1,
        outcome,
        elapsed_seconds: 125,
        context,
    };
    insta::assert_snapshot!(result.to_string());
}

#[test]
fn every_outcome_says_why_the_loop_ended() {
    let outcomes = [
        LoopOutcome::Completed,
        LoopOutcome::BudgetExhausted {
            which: Budget::Iterations,
        },
        LoopOutcome::BudgetExhausted {
            which: Budget::WallTime,
        },
        LoopOutcome::BudgetExhausted {
            which: Budget::Tokens,
        },
        LoopOutcome::BudgetExhausted {
            which: Budget::CostUsd,
        },
        LoopOutcome::NoProgress { iterations: 3 },
        LoopOutcome::TooManyFailures { consecutive: 3 },
        LoopOutcome::CommitFailed {
            error: "git commit failed: hook refused".to_owned(),
        },
        LoopOutcome::Cancelled,
        LoopOutcome::Interrupted {
            reason: "the session was shut down".to_owned(),
        },
    ];
    let lines: Vec<String> = outcomes.iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(lines.join("\n"));
    let successes: Vec<bool> = outcomes.iter().map(LoopOutcome::is_success).collect();
    assert_eq!(successes.iter().filter(|ok| **ok).count(), 1);
}

#[test]
fn a_loop_whose_server_reported_no_usage_says_so_instead_of_zero_tokens() {
    let mut context = LoopContext::new(
        "0123456789abcdef".to_owned(),
        "task".to_owned(),
        None,
        LoopCondition::iterations(1),
    );
    context.add_iteration(record(0, Some("aaaaaaa1111"), &["src/a.rs"], true));
    context.outcome = Some(LoopOutcome::Completed);
    let result = LoopResult {
        iterations_attempted: 1,
        iterations_succeeded: 1,
        iterations_failed: 0,
        outcome: LoopOutcome::Completed,
        elapsed_seconds: 5,
        context,
    };
    let text = result.to_string();
    assert!(
        text.contains("\ntokens: not reported (the server sent no usage)\n"),
        "{text}"
    );
    assert!(!text.contains("tokens: 0"), "{text}");
    // Before any iteration, nothing was used: 0 is the truth.
    let none = LoopResult {
        iterations_attempted: 0,
        iterations_succeeded: 0,
        iterations_failed: 0,
        outcome: LoopOutcome::Cancelled,
        elapsed_seconds: 0,
        context: LoopContext::new(
            "0123456789abcdef".to_owned(),
            "task".to_owned(),
            None,
            LoopCondition::iterations(1),
        ),
    };
    assert!(none.to_string().contains("\ntokens: 0\n"));
}
