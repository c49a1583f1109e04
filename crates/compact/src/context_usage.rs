//! [`ContextUsage`]: the one measure of how full the context window is. The auto-compact trigger,
//! the compaction events and the agent-visible token-usage reminder all read it, so they never
//! disagree (see docs/design/compaction.md, "Thresholds, context usage and switches").

use agentctx_context::ItemSize;
use agentctx_context::TokenEstimator;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;

use crate::thresholds::ContextWindow;

/// What the provider reported for the last request, and how much history that request held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastRequestUsage {
    /// The request's input tokens, cached ones included.
    pub input_tokens: u64,
    /// How many history items the request was built from; items from this index on were added
    /// after it (its own response among them).
    pub history_len: usize,
}

impl LastRequestUsage {
    /// From the provider's usage of the request built from the first `history_len` items.
    /// [`TokenUsage::input_tokens`] already counts cached tokens; a negative count (a broken
    /// report) counts as zero.
    pub fn from_token_usage(usage: &TokenUsage, history_len: usize) -> Self {
        Self {
            input_tokens: u64::try_from(usage.input_tokens).unwrap_or(0),
            history_len,
        }
    }
}

/// A reported input below our estimate of the request divided by this (a quarter) is not
/// believed. Our estimate and a provider's tokenizer disagree on the prompt's size, but by less
/// than a factor of two either way (prose and code run near 4 bytes a token; CJK text and
/// deep indentation move it by a third to a half); a quarter leaves another factor of two of
/// margin, so a report under it is not a tokenizer difference but a broken report: LiteLLM's
/// Responses translation reports `input_tokens: 0`, and a server that counts only the uncached
/// part of a prompt reports a sliver of it. The window holds the whole prompt either way.
pub const IMPLAUSIBLE_INPUT_DIVISOR: u64 = 4;

impl LastRequestUsage {
    /// From the provider's usage of the request built from the first `history_len` items, when
    /// we estimated that request at `estimated_input_tokens` (instructions, tools and items).
    /// A report of zero, or under a quarter of the estimate ([`IMPLAUSIBLE_INPUT_DIVISOR`]), is
    /// treated as missing and the estimate stands in for it, so usage cannot stay near zero
    /// while the history grows.
    pub fn from_reported(
        usage: &TokenUsage,
        history_len: usize,
        estimated_input_tokens: u64,
    ) -> Self {
        let reported = Self::from_token_usage(usage, history_len);
        let floor = estimated_input_tokens / IMPLAUSIBLE_INPUT_DIVISOR;
        if reported.input_tokens > 0 && reported.input_tokens >= floor {
            return reported;
        }
        tracing::debug!(
            reported = reported.input_tokens,
            estimated = estimated_input_tokens,
            "implausible input usage reported; using our estimate of the request"
        );
        Self {
            input_tokens: estimated_input_tokens,
            history_len,
        }
    }
}

/// How full the context window is: the last request's measured input plus the estimate of
/// everything added since, against the effective window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextUsage {
    /// The last request's input tokens as the provider counted them; `None` when no request
    /// matches the history (a new session, or right after compaction replaced the history).
    pub measured_tokens: Option<u64>,
    /// The estimate of the items not covered by the measure (all of them when nothing was
    /// measured).
    pub estimated_tokens: u64,
    /// The window measured against.
    pub window: ContextWindow,
}

impl ContextUsage {
    /// The usage of `history` when the last request was `last_request`.
    ///
    /// The measure is used only when it can belong to this history: when the history is now
    /// shorter than the request was (compaction or a rollback replaced it) the whole history is
    /// estimated instead, because the old measure describes items that are gone.
    pub fn measure(
        history: &[ResponseItem],
        last_request: Option<LastRequestUsage>,
        window: ContextWindow,
        estimator: &dyn TokenEstimator,
    ) -> Self {
        match last_request {
            Some(last) if last.history_len <= history.len() => {
                let added = history.get(last.history_len..).unwrap_or_default();
                Self {
                    measured_tokens: Some(last.input_tokens),
                    estimated_tokens: estimator.estimate_items(added),
                    window,
                }
            }
            Some(_) | None => Self::from_history(history, window, estimator),
        }
    }

    /// [`ContextUsage::measure`] from the sizes of the history's items (`sizes[i]` the size of
    /// item `i`, measured once when it entered, as `ContextManager::item_sizes` keeps them):
    /// the same usage without measuring an item again.
    pub fn measure_sizes(
        sizes: &[ItemSize],
        last_request: Option<LastRequestUsage>,
        window: ContextWindow,
    ) -> Self {
        let tokens = |sizes: &[ItemSize]| {
            sizes
                .iter()
                .map(|size| size.tokens)
                .fold(0, u64::saturating_add)
        };
        match last_request {
            Some(last) if last.history_len <= sizes.len() => Self {
                measured_tokens: Some(last.input_tokens),
                estimated_tokens: tokens(sizes.get(last.history_len..).unwrap_or_default()),
                window,
            },
            Some(_) | None => Self {
                measured_tokens: None,
                estimated_tokens: tokens(sizes),
                window,
            },
        }
    }

    /// The usage of a history no request has been measured on: the estimate of all of it. Used
    /// right after a compaction, so the next trigger check and the events see the new size.
    pub fn from_history(
        history: &[ResponseItem],
        window: ContextWindow,
        estimator: &dyn TokenEstimator,
    ) -> Self {
        Self {
            measured_tokens: None,
            estimated_tokens: estimator.estimate_items(history),
            window,
        }
    }

    /// Counts what every request carries besides the history (instructions, tool schemas) when
    /// no request measured this history: a measured input already holds it. Without it, right
    /// after a compaction the usage would leave out the system prompt and tools, which on a
    /// small window are a large share of it.
    pub fn with_unmeasured_overhead(mut self, overhead_tokens: u64) -> Self {
        if self.measured_tokens.is_none() {
            self.estimated_tokens = self.estimated_tokens.saturating_add(overhead_tokens);
        }
        self
    }

    /// Tokens the next request will occupy.
    pub fn used_tokens(&self) -> u64 {
        self.measured_tokens
            .unwrap_or(0)
            .saturating_add(self.estimated_tokens)
    }

    /// The effective window: the window minus the reserved output.
    pub fn effective_window(&self) -> u64 {
        self.window.effective_tokens()
    }

    /// Tokens left before the effective window is full (zero when over).
    pub fn tokens_left(&self) -> u64 {
        self.effective_window().saturating_sub(self.used_tokens())
    }

    /// Used tokens as a whole percentage of the effective window, rounded down; 100 when the
    /// window is zero or over-full.
    pub fn percent_used(&self) -> u8 {
        let effective = self.effective_window();
        if effective == 0 {
            return 100;
        }
        let percent = u128::from(self.used_tokens()) * 100 / u128::from(effective);
        u8::try_from(percent.min(100)).unwrap_or(100)
    }

    /// The percentage of the effective window left (`100 - percent_used`).
    pub fn percent_left(&self) -> u8 {
        100 - self.percent_used()
    }
}

#[cfg(test)]
#[path = "context_usage_tests.rs"]
mod tests;
