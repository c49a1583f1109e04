//! How a loop ended ([`LoopOutcome`]) and what it did ([`LoopResult`]), both printable as the
//! CLI shows them.

use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::condition::LoopCondition;
use crate::condition::format_seconds;
use crate::context::LoopContext;
use crate::context::short_commit;

/// A budget the loop can run out of; checked before every iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// `max_iterations`.
    Iterations,
    /// `max_wall_time_seconds`.
    WallTime,
    /// `max_total_tokens`.
    Tokens,
    /// `max_cost_usd`.
    CostUsd,
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Iterations => "iteration",
            Self::WallTime => "wall-time",
            Self::Tokens => "token",
            Self::CostUsd => "cost",
        })
    }
}

/// Why a loop ended. Every loop ends with exactly one, recorded in its [`LoopContext`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoopOutcome {
    /// The loop condition was met: every iteration ran, or the duration passed.
    Completed,
    /// A budget ran out before the next iteration could start.
    BudgetExhausted {
        /// Which one.
        which: Budget,
    },
    /// Several iterations in a row changed nothing, or repeated a diff an earlier iteration
    /// already made.
    NoProgress {
        /// How many iterations in a row made no progress.
        iterations: u32,
    },
    /// Several iterations in a row failed.
    TooManyFailures {
        /// How many in a row.
        consecutive: u32,
    },
    /// A commit failed and the configuration says to stop (`on_commit_failure = "stop"`).
    CommitFailed {
        /// What git said.
        error: String,
    },
    /// The host cancelled the loop (its cancellation token fired).
    Cancelled,
    /// The agent's turn was interrupted from outside the loop (the session shut down or was
    /// aborted); the loop stops and can be resumed.
    Interrupted {
        /// What the agent reported.
        reason: String,
    },
}

impl LoopOutcome {
    /// True when the loop did what it was asked (the CLI's exit status).
    pub fn is_success(&self) -> bool {
        matches!(self, Self::Completed)
    }
}

impl fmt::Display for LoopOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Completed => write!(f, "completed"),
            Self::BudgetExhausted { which } => {
                write!(f, "stopped: the {which} budget is exhausted")
            }
            Self::NoProgress { iterations } => write!(
                f,
                "stopped: no progress in {} in a row (no changes, or a diff an earlier iteration already made)",
                plural(*iterations, "iteration")
            ),
            Self::TooManyFailures { consecutive } => {
                write!(
                    f,
                    "stopped: {} in a row failed",
                    plural(*consecutive, "iteration")
                )
            }
            Self::CommitFailed { error } => write!(f, "stopped: {error}"),
            Self::Cancelled => write!(f, "cancelled"),
            Self::Interrupted { reason } => write!(f, "interrupted: {reason} (resumable)"),
        }
    }
}

fn plural(count: u32, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// A progress report, sent after every iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopProgress {
    /// Iterations attempted so far.
    pub iteration: i32,
    /// How many of them succeeded.
    pub succeeded: i32,
    /// How many failed.
    pub failed: i32,
    /// Seconds since the loop started (over every run of a resumed loop).
    pub elapsed_seconds: i64,
    /// Tokens the agent used so far.
    pub total_tokens: i64,
}

/// What a loop did, returned by [`crate::LoopDriver::run`] and [`crate::LoopDriver::resume`].
#[derive(Debug, Clone, PartialEq)]
pub struct LoopResult {
    /// Iterations attempted, over every run of the loop.
    pub iterations_attempted: i32,
    /// Of them, those that succeeded.
    pub iterations_succeeded: i32,
    /// Of them, those that failed.
    pub iterations_failed: i32,
    /// Why it ended.
    pub outcome: LoopOutcome,
    /// Seconds it ran, over every run.
    pub elapsed_seconds: i64,
    /// The whole context as saved, iterations included.
    pub context: LoopContext,
}

impl fmt::Display for LoopResult {
    /// The report the CLI prints: the outcome, the counts, then one line per iteration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "loop {}", self.outcome)?;
        let condition: LoopCondition = self.context.condition;
        writeln!(
            f,
            "iterations: {} attempted, {} succeeded, {} failed (asked for {condition}), in {}",
            self.iterations_attempted,
            self.iterations_succeeded,
            self.iterations_failed,
            format_seconds(u64::try_from(self.elapsed_seconds).unwrap_or(0)),
        )?;
        let usage = &self.context.usage;
        match usage.cost_usd {
            // Iterations ran and no token was counted: the server reported no usage (a local
            // server, a proxy that drops it). "0" would claim the work was free.
            _ if usage.total_tokens <= 0 && self.iterations_attempted > 0 => {
                writeln!(f, "tokens: not reported (the server sent no usage)")?;
            }
            Some(cost) => writeln!(f, "tokens: {} (${cost:.4})", usage.total_tokens)?,
            None => writeln!(f, "tokens: {}", usage.total_tokens)?,
        }
        let base = if self.context.base_commit_id.is_empty() {
            "none (the repository had no commits)".to_owned()
        } else {
            short_commit(&self.context.base_commit_id)
        };
        writeln!(f, "base commit: {base}")?;
        for record in &self.context.iterations {
            let status = if record.success { "ok" } else { "failed" };
            writeln!(
                f,
                "  #{} {status:<6} {} | {}",
                record.iteration,
                record.commit_status(),
                record.files_display()
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "outcome_tests.rs"]
mod tests;
