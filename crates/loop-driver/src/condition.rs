//! [`LoopCondition`]: how long a loop runs, a number of iterations or a stretch of time.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// How long a loop runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoopCondition {
    /// Exactly this many iterations (unless the loop stops early).
    Iters {
        /// The number of iterations.
        count: i32,
    },
    /// Iterations start while less than this much time has passed; the iteration running when
    /// it runs out finishes.
    Duration {
        /// Seconds.
        seconds: u64,
    },
}

impl LoopCondition {
    /// `count` iterations.
    pub fn iterations(count: i32) -> Self {
        Self::Iters { count }
    }

    /// Iterations for `duration` (whole seconds).
    pub fn duration(duration: Duration) -> Self {
        Self::Duration {
            seconds: duration.as_secs(),
        }
    }

    /// The `total_iterations` of a [`crate::LoopContext`]: the count, or -1 for a duration
    /// (the number is not known in advance; the prompt then says "ongoing").
    pub fn total_iterations(self) -> i32 {
        match self {
            Self::Iters { count } => count,
            Self::Duration { .. } => -1,
        }
    }
}

impl fmt::Display for LoopCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Iters { count: 1 } => write!(f, "1 iteration"),
            Self::Iters { count } => write!(f, "{count} iterations"),
            Self::Duration { seconds } => write!(f, "{}", format_seconds(*seconds)),
        }
    }
}

/// A loop condition that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid loop condition {input:?}: expected a number of iterations (`5`) or a duration (`90s`, `30m`, `2h`)"
)]
pub struct ParseConditionError {
    /// What was given.
    pub input: String,
}

impl FromStr for LoopCondition {
    type Err = ParseConditionError;

    /// `5` is five iterations; `90s`, `30m` and `2h` are durations. Zero is refused: a loop that
    /// never runs is a mistake, not a request.
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let error = || ParseConditionError {
            input: input.to_owned(),
        };
        let trimmed = input.trim();
        let (number, unit) = match trimmed.char_indices().last() {
            Some((at, unit @ ('s' | 'm' | 'h'))) => {
                (trimmed.get(..at).ok_or_else(error)?, Some(unit))
            }
            _ => (trimmed, None),
        };
        match unit {
            None => match number.parse::<i32>() {
                Ok(count) if count > 0 => Ok(Self::Iters { count }),
                _ => Err(error()),
            },
            Some(unit) => {
                let value = number.parse::<u64>().map_err(|_| error())?;
                let factor = match unit {
                    'h' => 3_600,
                    'm' => 60,
                    _ => 1,
                };
                match value.checked_mul(factor) {
                    Some(seconds) if seconds > 0 => Ok(Self::Duration { seconds }),
                    _ => Err(error()),
                }
            }
        }
    }
}

/// `1h 5m 3s`-style text for a number of seconds (`0s` for zero).
pub(crate) fn format_seconds(seconds: u64) -> String {
    let (hours, minutes, secs) = (seconds / 3_600, seconds / 60 % 60, seconds % 60);
    let mut parts = Vec::new();
    if hours > 0 {
        parts.push(format!("{hours}h"));
    }
    if minutes > 0 {
        parts.push(format!("{minutes}m"));
    }
    if secs > 0 || parts.is_empty() {
        parts.push(format!("{secs}s"));
    }
    parts.join(" ")
}

#[cfg(test)]
#[path = "condition_tests.rs"]
mod tests;
