//! The context window a model offers and the token levels where compaction warns, triggers and
//! blocks (see docs/design/compaction.md, "Thresholds, context usage and switches").

use crate::config::CompactConfig;
use crate::config::RESERVED_OUTPUT_WINDOW_DIVISOR;

/// A model's context window and the part of it kept free for the model's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindow {
    /// The whole window in tokens, input and output together.
    pub window_tokens: u64,
    /// Tokens kept free for the output (of a normal turn, and of the summary request).
    pub reserved_output_tokens: u64,
}

impl ContextWindow {
    /// The window of a model with `window_tokens` whose output is limited to
    /// `model_max_output_tokens` (when known): the reserve is that limit, capped at
    /// [`CompactConfig::max_reserved_output_tokens`] and at a quarter of the window, so a small
    /// window keeps three quarters for the input (a 4,096-token window reserves 1,024, not the
    /// whole window).
    pub fn new(
        window_tokens: u64,
        model_max_output_tokens: Option<u64>,
        config: &CompactConfig,
    ) -> Self {
        let cap = config
            .max_reserved_output_tokens
            .min(window_tokens / RESERVED_OUTPUT_WINDOW_DIVISOR);
        Self {
            window_tokens,
            reserved_output_tokens: model_max_output_tokens.map_or(cap, |max| max.min(cap)),
        }
    }

    /// The tokens the input may occupy: the window minus the reserved output.
    pub fn effective_tokens(&self) -> u64 {
        self.window_tokens
            .saturating_sub(self.reserved_output_tokens)
    }
}

/// The token levels of one effective window, lowest first:
/// `warning <= error <= auto_compact < blocking <= effective_window` (each saturating at 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionThresholds {
    /// The effective window they were computed for.
    pub effective_window: u64,
    /// From here the host shows a warning.
    pub warning: u64,
    /// From here the host shows an error.
    pub error: u64,
    /// From here auto-compaction runs.
    pub auto_compact: u64,
    /// The window's own trigger, before a token budget moved `auto_compact` down to it (equal
    /// to `auto_compact` when no budget applies).
    pub window_auto_compact: u64,
    /// From here requests are refused until the history shrinks.
    pub blocking: u64,
}

/// Where a token count stands against [`CompactionThresholds`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ThresholdLevel {
    /// Below the warning level.
    Normal,
    /// At or above the warning level.
    Warning,
    /// At or above the error level.
    Error,
    /// At or above the auto-compact trigger.
    AutoCompact,
    /// At or above the blocking limit.
    Blocking,
}

impl CompactionThresholds {
    /// The levels for `window` under `config`.
    ///
    /// `summary_request_tokens` is what the summary request adds to the history (the
    /// summarisation prompt). The trigger is kept at least that far below the blocking limit, so
    /// the summary request of a history that just crossed the trigger still fits; without this a
    /// small buffer or a high blocking override would let a session reach the blocking limit
    /// with a history too big to summarise.
    ///
    /// The buffers are those of `config` scaled to the window ([`CompactConfig::scaled_to`]):
    /// a small window gets proportionally smaller offsets, never a trigger at 0.
    ///
    /// A token budget set in tokens ([`CompactConfig::auto_compact_tokens`]) moves the trigger
    /// down to it ([`CompactionThresholds::with_budget`]); `"auto"` is the engine's to resolve
    /// (its cost model knows the prices) and leaves the levels as the window gives them.
    pub fn new(window: ContextWindow, config: &CompactConfig, summary_request_tokens: u64) -> Self {
        let effective = window.effective_tokens();
        let config = &config.scaled_to(effective);
        let blocking = config.blocking_limit_override.map_or_else(
            || effective.saturating_sub(config.blocking_buffer_tokens),
            |limit| limit.min(effective),
        );
        let by_buffer = effective.saturating_sub(config.auto_compact_buffer_tokens);
        // The percentage only ever moves the trigger earlier: a late trigger is what dead-ends.
        let by_percent = config
            .auto_compact_percent_override
            .map_or(by_buffer, |percent| {
                effective.saturating_mul(u64::from(percent.min(100))) / 100
            });
        let with_headroom = blocking
            .saturating_sub(summary_request_tokens)
            .saturating_sub(1);
        let auto_compact = by_buffer.min(by_percent).min(with_headroom);
        let error = effective
            .saturating_sub(config.error_buffer_tokens)
            .min(auto_compact);
        let warning = effective
            .saturating_sub(config.warning_buffer_tokens)
            .min(error);
        let thresholds = Self {
            effective_window: effective,
            warning,
            error,
            auto_compact,
            window_auto_compact: auto_compact,
            blocking,
        };
        match config.auto_compact_tokens.tokens() {
            Some(budget) => thresholds.with_budget(budget),
            None => thresholds,
        }
    }

    /// These levels with auto-compaction triggered once the context holds `budget` tokens, when
    /// that is earlier than the window's own trigger (a budget never moves it later). The warning
    /// and error levels stay at or below the trigger. A budget of 0 is none.
    pub fn with_budget(self, budget: u64) -> Self {
        if budget == 0 || budget >= self.auto_compact {
            return self;
        }
        Self {
            auto_compact: budget,
            error: self.error.min(budget),
            warning: self.warning.min(budget),
            ..self
        }
    }

    /// Whether a token budget moved the trigger below the window's own.
    pub fn budget_applies(&self) -> bool {
        self.auto_compact < self.window_auto_compact
    }

    /// The highest level `used_tokens` has reached.
    pub fn level(&self, used_tokens: u64) -> ThresholdLevel {
        if used_tokens >= self.blocking {
            ThresholdLevel::Blocking
        } else if used_tokens >= self.auto_compact {
            ThresholdLevel::AutoCompact
        } else if used_tokens >= self.error {
            ThresholdLevel::Error
        } else if used_tokens >= self.warning {
            ThresholdLevel::Warning
        } else {
            ThresholdLevel::Normal
        }
    }

    /// Whether auto-compaction should run at `used_tokens` under `config` (its switches and the
    /// least history length).
    pub fn should_auto_compact(
        &self,
        used_tokens: u64,
        history_len: usize,
        config: &CompactConfig,
    ) -> bool {
        config.auto_compact_enabled()
            && history_len >= config.min_messages_before_compact
            && used_tokens >= self.auto_compact
    }
}

#[cfg(test)]
#[path = "thresholds_tests.rs"]
mod tests;
