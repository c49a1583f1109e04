use std::time::Duration;

use pretty_assertions::assert_eq;

use super::consecutive_failures;
use super::exhausted_budget;
use super::no_progress_streak;
use crate::condition::LoopCondition;
use crate::config::LoopConfig;
use crate::context::IterationRecord;
use crate::context::LoopContext;
use crate::outcome::Budget;

fn record(files: &[&str], diff: Option<&str>, success: bool) -> IterationRecord {
    IterationRecord {
        diff_id: diff.map(str::to_owned),
        ..IterationRecord::new(
            0,
            None,
            files.iter().map(|f| (*f).to_owned()).collect(),
            String::new(),
            success,
        )
    }
}

#[test]
fn no_progress_counts_empty_and_repeated_diffs_at_the_end() {
    let iterations = vec![
        record(&["a"], Some("d1"), true),
        record(&["a"], Some("d2"), true),
        record(&[], None, true),
        record(&["a"], Some("d1"), true),
    ];
    assert_eq!(no_progress_streak(&iterations), 2);
    let mut progressed = iterations;
    progressed.push(record(&["b"], Some("d3"), true));
    assert_eq!(no_progress_streak(&progressed), 0);
}

#[test]
fn failures_count_only_the_trailing_run() {
    let iterations = vec![
        record(&[], None, false),
        record(&[], None, true),
        record(&[], None, false),
        record(&[], None, false),
    ];
    assert_eq!(consecutive_failures(&iterations), 2);
}

#[test]
fn budgets_are_checked_in_order() {
    let mut config = LoopConfig::default();
    let mut context = LoopContext::new(
        String::new(),
        "task".to_owned(),
        None,
        LoopCondition::iterations(10),
    );
    assert_eq!(exhausted_budget(&config, &context, Duration::ZERO), None);

    config.budget.max_cost_usd = Some(1.0);
    context.usage.cost_usd = Some(1.5);
    assert_eq!(
        exhausted_budget(&config, &context, Duration::ZERO),
        Some(Budget::CostUsd)
    );
    config.budget.max_total_tokens = Some(100);
    context.usage.total_tokens = 100;
    assert_eq!(
        exhausted_budget(&config, &context, Duration::ZERO),
        Some(Budget::Tokens)
    );
    config.budget.max_wall_time_seconds = Some(60);
    assert_eq!(
        exhausted_budget(&config, &context, Duration::from_secs(60)),
        Some(Budget::WallTime)
    );
    config.budget.max_iterations = Some(0);
    assert_eq!(
        exhausted_budget(&config, &context, Duration::from_secs(60)),
        Some(Budget::Iterations)
    );
}
