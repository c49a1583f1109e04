//! The thrash guard: notices compactions that do not free enough, or come too often, and makes
//! the next one more aggressive (see docs/design/compaction.md, "Thresholds, context usage and
//! switches").
//!
//! Time is passed in (`now`) rather than read, so hosts use their own clock and tests use fixed
//! instants.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;
use std::time::Instant;

use crate::config::ThrashGuardConfig;
use crate::context_usage::ContextUsage;

/// The span over which compactions are counted.
const RATE_WINDOW: Duration = Duration::from_secs(60 * 60);

/// How hard the next compaction should try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompactionMode {
    /// The configured behaviour.
    #[default]
    Normal,
    /// Recent compactions thrashed: free as much as possible (micro-compaction clears every
    /// eligible result whatever it saves; the summarising tiers keep less verbatim).
    Aggressive,
}

/// Why the guard warns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThrashWarning {
    /// This many compactions in a row left usage above the limit.
    ConsecutiveIneffective {
        /// Ineffective compactions in a row.
        count: u32,
        /// The usage limit, in percent of the effective window.
        limit_percent: u8,
    },
    /// More compactions within the last hour than allowed.
    TooFrequent {
        /// Compactions within the last hour, this one included.
        count: u32,
        /// The configured most per hour.
        per_hour_limit: u32,
    },
}

impl fmt::Display for ThrashWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ConsecutiveIneffective {
                count,
                limit_percent,
            } => write!(
                f,
                "{count} compactions in a row left the context more than {limit_percent}% full; \
                 the next compaction will be more aggressive. Consider starting a new session."
            ),
            Self::TooFrequent {
                count,
                per_hour_limit,
            } => write!(
                f,
                "{count} compactions within the last hour (more than {per_hour_limit}); the next \
                 compaction will be more aggressive. Consider starting a new session."
            ),
        }
    }
}

/// What the guard concluded about one compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrashOutcome {
    /// Whether the compaction brought usage to at most the configured percentage.
    pub effective: bool,
    /// Usage after the compaction, in percent of the effective window.
    pub usage_percent_after: u8,
    /// How the next compaction should run.
    pub next_mode: CompactionMode,
    /// Set when the host should warn the user (and emit its warning event).
    pub warning: Option<ThrashWarning>,
}

/// Remembers recent compactions of one session.
#[derive(Debug, Clone)]
pub struct ThrashGuard {
    config: ThrashGuardConfig,
    consecutive_ineffective: u32,
    recent: VecDeque<Instant>,
}

impl ThrashGuard {
    /// A guard that has seen no compaction.
    pub fn new(config: ThrashGuardConfig) -> Self {
        Self {
            config,
            consecutive_ineffective: 0,
            recent: VecDeque::new(),
        }
    }

    /// Records a compaction that finished at `now` and left `usage_after` (computed from the
    /// new history), and says how the next one should run.
    pub fn record_compaction(&mut self, now: Instant, usage_after: &ContextUsage) -> ThrashOutcome {
        let usage_percent_after = usage_after.percent_used();
        let effective = usage_percent_after <= self.config.ineffective_usage_percent;
        if effective {
            self.consecutive_ineffective = 0;
        } else {
            self.consecutive_ineffective = self.consecutive_ineffective.saturating_add(1);
        }
        self.forget_before(now);
        self.recent.push_back(now);

        let in_last_hour = u32::try_from(self.recent.len()).unwrap_or(u32::MAX);
        let warning = if self.too_many_ineffective() {
            Some(ThrashWarning::ConsecutiveIneffective {
                count: self.consecutive_ineffective,
                limit_percent: self.config.ineffective_usage_percent,
            })
        } else if in_last_hour > self.config.max_compactions_per_hour {
            Some(ThrashWarning::TooFrequent {
                count: in_last_hour,
                per_hour_limit: self.config.max_compactions_per_hour,
            })
        } else {
            None
        };
        ThrashOutcome {
            effective,
            usage_percent_after,
            next_mode: self.next_mode(now),
            warning,
        }
    }

    /// How a compaction starting at `now` should run.
    pub fn next_mode(&self, now: Instant) -> CompactionMode {
        let in_last_hour = self
            .recent
            .iter()
            .filter(|at| now.saturating_duration_since(**at) < RATE_WINDOW)
            .count();
        let too_frequent =
            u32::try_from(in_last_hour).unwrap_or(u32::MAX) > self.config.max_compactions_per_hour;
        if self.too_many_ineffective() || too_frequent {
            CompactionMode::Aggressive
        } else {
            CompactionMode::Normal
        }
    }

    fn too_many_ineffective(&self) -> bool {
        self.config.max_consecutive_ineffective > 0
            && self.consecutive_ineffective >= self.config.max_consecutive_ineffective
    }

    fn forget_before(&mut self, now: Instant) {
        while let Some(oldest) = self.recent.front() {
            if now.saturating_duration_since(*oldest) >= RATE_WINDOW {
                self.recent.pop_front();
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
#[path = "thrash_guard_tests.rs"]
mod tests;
