//! The rules that end a loop early: budgets checked before every iteration, and the streaks of
//! failures and of iterations without progress checked after each. See
//! docs/design/loop-driver.md, "Governance".

use std::time::Duration;

use crate::config::LoopConfig;
use crate::context::IterationRecord;
use crate::context::LoopContext;
use crate::outcome::Budget;

/// The budget that is exhausted before the next iteration, if any: the iteration cap, the wall
/// time, the tokens, then the cost.
pub(crate) fn exhausted_budget(
    config: &LoopConfig,
    context: &LoopContext,
    elapsed: Duration,
) -> Option<Budget> {
    let budget = &config.budget;
    let attempted = u32::try_from(context.iterations.len()).unwrap_or(u32::MAX);
    if budget.max_iterations.is_some_and(|max| attempted >= max) {
        return Some(Budget::Iterations);
    }
    if budget
        .max_wall_time_seconds
        .is_some_and(|max| elapsed >= Duration::from_secs(max))
    {
        return Some(Budget::WallTime);
    }
    if budget
        .max_total_tokens
        .is_some_and(|max| context.usage.total_tokens >= max)
    {
        return Some(Budget::Tokens);
    }
    let spent = context.usage.cost_usd.unwrap_or(0.0);
    if budget.max_cost_usd.is_some_and(|max| spent >= max) {
        return Some(Budget::CostUsd);
    }
    None
}

/// How many of the last iterations failed in a row.
pub(crate) fn consecutive_failures(iterations: &[IterationRecord]) -> u32 {
    trailing(iterations, |_, record| !record.success)
}

/// How many of the last iterations in a row made no progress: they changed nothing, or their
/// diff is one an earlier iteration already made.
pub(crate) fn no_progress_streak(iterations: &[IterationRecord]) -> u32 {
    trailing(iterations, |earlier, record| {
        record.changed_files.is_empty()
            || record.diff_id.as_ref().is_some_and(|id| {
                earlier
                    .iter()
                    .any(|other| other.diff_id.as_ref() == Some(id))
            })
    })
}

/// The length of the run of iterations at the end for which `matches(earlier, record)` holds,
/// `earlier` being the iterations before `record`.
fn trailing(
    iterations: &[IterationRecord],
    matches: impl Fn(&[IterationRecord], &IterationRecord) -> bool,
) -> u32 {
    let mut streak = 0;
    for at in (0..iterations.len()).rev() {
        let (Some(earlier), Some(record)) = (iterations.get(..at), iterations.get(at)) else {
            break;
        };
        if !matches(earlier, record) {
            break;
        }
        streak += 1;
    }
    streak
}

#[cfg(test)]
#[path = "governance_tests.rs"]
mod tests;
