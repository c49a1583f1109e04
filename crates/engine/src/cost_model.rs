//! The cost model: what the next model request costs under each thing the engine could do
//! before it (send the history as it is, clear old tool results, compact in full), from the
//! model's prices, the provider's cache rules and the time since the last request. See
//! docs/design/cost-model.md.
//!
//! Every figure is the input side of requests (output is the same whatever the engine does,
//! except a compaction's own summary), in USD when the price table knows the model, else in
//! the reference units of [`Prices::reference`]. Decisions read only ratios of prices, so they
//! are the same in either.

use std::time::Duration;

use serde::Serialize;

mod prices;

pub use prices::ANTHROPIC_LOOKBACK_BLOCKS;
pub use prices::ANTHROPIC_READ;
pub use prices::ANTHROPIC_WRITE_1H;
pub use prices::ANTHROPIC_WRITE_5M;
pub use prices::CacheProvider;
pub use prices::CacheRules;
pub use prices::CacheTtl;
pub use prices::OPENAI_READ;
pub use prices::Prices;
pub use prices::REFERENCE_INPUT_PER_TOKEN;
pub use prices::REFERENCE_OUTPUT_RATIO;

/// The context a full compaction leaves, assumed where the session has not compacted yet: the
/// summary, the recent user messages (20,000 at most) and the restored files (50,000 at
/// most) rarely fill their budgets together.
pub const COMPACTED_CONTEXT_TOKENS: u64 = 40_000;
/// The summary a compaction request generates (the offline summariser's budget).
pub const SUMMARY_OUTPUT_TOKENS: u64 = 10_000;
/// The requests within which a compaction must pay for itself for the default budget
/// ([`CostModel::default_budget`]): a handful, so it pays even if the session ends soon after.
pub const BUDGET_PAYBACK_REQUESTS: u64 = 4;
/// The least window the cost model sets a budget for by default.
pub const BUDGET_MIN_WINDOW_TOKENS: u64 = 500_000;
/// The least default budget: the context a 200,000-token window compacts near, which the
/// compaction budgets (summary, restoration, kept messages) are tuned for.
pub const BUDGET_FLOOR_TOKENS: u64 = 200_000;
/// Budgets are rounded up to this many tokens.
const BUDGET_ROUNDING_TOKENS: u64 = 10_000;

/// Whether the provider still holds the prompt the last request sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheState {
    /// Nothing of the history is cached: no request was measured since it was last rewritten
    /// (a new session, a compaction, a rollback).
    Empty,
    /// The last request was sent within the cache's lifetime: its prompt is read from the cache.
    Warm,
    /// The last request is older than the cache's lifetime: the whole prompt is written again.
    Cold,
}

/// What the micro-compaction decision is priced on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MicroInputs {
    /// The prompt as it would be sent without clearing (instructions and tools included).
    pub prompt_tokens: u64,
    /// Of it, the prefix the provider holds (0 unless the cache is warm).
    pub cached_tokens: u64,
    /// The prompt before the first result the clear would replace.
    pub prefix_tokens: u64,
    /// What the clear takes out of the prompt.
    pub tokens_saved: u64,
    /// The requests expected after this one ([`expected_remaining_requests`]).
    pub remaining_requests: u64,
}

/// The micro-compaction decision priced: this request sent as is and cleared, and what the
/// clear saves over the remaining requests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MicroPricing {
    /// This request's input, sent as is.
    pub send_as_is: f64,
    /// This request's input after the clear: the prefix before the first cleared result read
    /// from the cache (when warm), everything after it written again.
    pub clear: f64,
    /// What the remaining requests save by not reading the cleared tokens.
    pub remaining_saving: f64,
}

impl MicroPricing {
    /// What clearing saves in all: this request's difference plus the remaining requests'
    /// saving (negative: it costs more).
    pub fn net_saving(&self) -> f64 {
        self.send_as_is - self.clear + self.remaining_saving
    }

    /// Whether clearing pays.
    pub fn pays(&self) -> bool {
        self.net_saving() > 0.0
    }
}

/// What a full compaction is priced on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionInputs {
    /// The context now (instructions and tools included).
    pub context_tokens: u64,
    /// Of it, the prefix the provider holds (0 unless the cache is warm).
    pub cached_tokens: u64,
    /// The context the compaction leaves.
    pub compacted_tokens: u64,
    /// The summary the compaction request generates.
    pub summary_tokens: u64,
    /// The requests expected after the compaction.
    pub remaining_requests: u64,
}

/// A full compaction priced against going on without it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactionPricing {
    /// The compaction request: the context as input (its cached prefix read), the summary as
    /// output.
    pub compaction_request: f64,
    /// The remaining requests after it: the compacted context written once, then read.
    pub after: f64,
    /// The remaining requests without it: the context read from the cache each time.
    pub without: f64,
}

impl CompactionPricing {
    /// What compacting saves over the remaining requests (negative: it costs more).
    pub fn net_saving(&self) -> f64 {
        self.without - self.compaction_request - self.after
    }
}

/// Prices and cache rules together: the engine's cost model of one model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CostModel {
    prices: Prices,
    rules: CacheRules,
    /// The prices are the model's own (the caller's, or the table's); `false` for a model the
    /// table does not know, whose reference prices only shape the figures: the micro gate
    /// then lets every clear through, as a local server bills nothing.
    priced: bool,
}

impl Default for CostModel {
    /// Anthropic's rules at reference prices: the provider whose cache writes cost the most, so
    /// a model nothing is known of is never cleared under a warm cache for less than it costs.
    fn default() -> Self {
        Self::reference(CacheRules::anthropic(CacheTtl::FiveMinutes))
    }
}

impl CostModel {
    /// The model of `prices` under `rules`.
    pub fn new(prices: Prices, rules: CacheRules) -> Self {
        Self {
            prices,
            rules,
            priced: true,
        }
    }

    /// Whether the prices are the model's own rather than stand-ins for an unknown model.
    pub fn is_priced(&self) -> bool {
        self.priced
    }

    /// Reference prices under `rules` ([`Prices::reference`]).
    pub fn reference(rules: CacheRules) -> Self {
        Self::new(Prices::reference(&rules), rules)
    }

    /// The model `slug` as the bundled price table prices it, under its provider's rules; a
    /// model the table does not know gets reference prices under the rules of `wire_api` (when
    /// known) or [`CostModel::default`].
    pub fn for_model(slug: &str, wire_api: Option<agentctx_model::WireApi>) -> Self {
        Self::for_model_with_ttl(slug, wire_api, CacheTtl::FiveMinutes)
    }

    /// [`CostModel::for_model`] with Anthropic's cache lifetime `ttl` (the provider's
    /// `prompt_cache_ttl`): under Anthropic's rules the cache stays warm that long after a
    /// request and is written at that lifetime's price. Other providers' rules ignore it.
    pub fn for_model_with_ttl(
        slug: &str,
        wire_api: Option<agentctx_model::WireApi>,
        ttl: CacheTtl,
    ) -> Self {
        let found = agentctx_model::PriceTable::bundled()
            .ok()
            .and_then(|table| table.lookup(slug));
        let rules = match (found, wire_api) {
            (Some(price), _) => CacheRules::for_provider(&price.provider, slug),
            (None, Some(wire_api)) => CacheRules::for_wire_api(wire_api),
            (None, None) => CacheRules::anthropic(CacheTtl::FiveMinutes),
        };
        let rules = match rules.provider {
            CacheProvider::Anthropic => CacheRules::anthropic(ttl),
            CacheProvider::OpenAi => rules,
        };
        found
            .and_then(|price| Prices::from_model_price(price, &rules))
            .map_or_else(
                || Self {
                    priced: false,
                    ..Self::reference(rules)
                },
                |prices| Self::new(prices, rules),
            )
    }

    /// The prices.
    pub fn prices(&self) -> &Prices {
        &self.prices
    }

    /// The cache rules.
    pub fn rules(&self) -> &CacheRules {
        &self.rules
    }

    /// The cache's state `gap` after the last request (`None`: no request since the history
    /// was last rewritten).
    pub fn cache_state(&self, gap: Option<Duration>) -> CacheState {
        match gap {
            None => CacheState::Empty,
            Some(gap) if gap < self.rules.ttl => CacheState::Warm,
            Some(_) => CacheState::Cold,
        }
    }

    /// The input cost of a prompt of `prompt_tokens` whose first `cached_tokens` are read from
    /// the cache: the rest is written to it (or billed as input, as the provider does).
    pub fn input_cost(&self, prompt_tokens: u64, cached_tokens: u64) -> f64 {
        let cached = cached_tokens.min(prompt_tokens);
        let rest = prompt_tokens - cached;
        // Token counts are far below 2^53, where the conversion is exact.
        cached as f64 * self.prices.cache_read + rest as f64 * self.prices.uncached(&self.rules)
    }

    /// Prices clearing against sending as is. The remaining requests are taken to find the
    /// cache warm (each reads what the clear took out at the cache-read price): the lowest
    /// saving a clear can have, so a clear priced to pay does.
    pub fn price_micro(&self, inputs: &MicroInputs) -> MicroPricing {
        let cached = inputs.cached_tokens.min(inputs.prompt_tokens);
        let after = inputs.prompt_tokens.saturating_sub(inputs.tokens_saved);
        let kept_cached = inputs.prefix_tokens.min(cached).min(after);
        MicroPricing {
            send_as_is: self.input_cost(inputs.prompt_tokens, cached),
            clear: self.input_cost(after, kept_cached),
            remaining_saving: inputs.remaining_requests as f64
                * inputs.tokens_saved as f64
                * self.prices.cache_read,
        }
    }

    /// Prices a full compaction now against going on without it over the remaining requests
    /// (the context's growth is the same either way and left out).
    pub fn price_compaction(&self, inputs: &CompactionInputs) -> CompactionPricing {
        let requests = inputs.remaining_requests as f64;
        let compacted = inputs.compacted_tokens as f64;
        CompactionPricing {
            compaction_request: self.input_cost(inputs.context_tokens, inputs.cached_tokens)
                + inputs.summary_tokens as f64 * self.prices.output,
            after: if inputs.remaining_requests == 0 {
                0.0
            } else {
                compacted * self.prices.uncached(&self.rules)
                    + (requests - 1.0) * compacted * self.prices.cache_read
            },
            without: requests * inputs.context_tokens as f64 * self.prices.cache_read,
        }
    }

    /// The default token budget of a window of `window_tokens` (`[compact]
    /// auto_compact_tokens = "auto"`): none below [`BUDGET_MIN_WINDOW_TOKENS`]; else the least
    /// context at which a compaction (its request reading the context from a warm cache and
    /// writing a [`SUMMARY_OUTPUT_TOKENS`] summary, then [`COMPACTED_CONTEXT_TOKENS`] written
    /// once and read) costs less than reading the context over [`BUDGET_PAYBACK_REQUESTS`]
    /// requests, rounded up to 10,000 and at least [`BUDGET_FLOOR_TOKENS`]. With `H` the
    /// requests, `A` the compacted context and `O` the summary:
    /// `P = A + (O × output + A × write) / ((H − 1) × read)`.
    pub fn default_budget(&self, window_tokens: u64) -> Option<u64> {
        if window_tokens < BUDGET_MIN_WINDOW_TOKENS {
            return None;
        }
        let requests = BUDGET_PAYBACK_REQUESTS.saturating_sub(1) as f64;
        let read = self.prices.cache_read;
        if read.is_nan() || read <= 0.0 || requests <= 0.0 {
            return None;
        }
        let compacted = COMPACTED_CONTEXT_TOKENS as f64;
        let once = SUMMARY_OUTPUT_TOKENS as f64 * self.prices.output
            + compacted * self.prices.uncached(&self.rules);
        let tokens = compacted + once / (requests * read);
        if !tokens.is_finite() {
            return None;
        }
        // A finite positive figure far below u64::MAX, to the nearest token (a price's float
        // error must not round a whole figure up to the next step).
        let tokens = tokens.round().min(u64::MAX as f64) as u64;
        let rounded = tokens.div_ceil(BUDGET_ROUNDING_TOKENS) * BUDGET_ROUNDING_TOKENS;
        Some(rounded.max(BUDGET_FLOOR_TOKENS))
    }
}

/// Where a session stands, for [`expected_remaining_requests`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionProgress {
    /// Model requests the session has made (this one included).
    pub requests: u64,
    /// Of them, those since the history was last rewritten (a compaction).
    pub requests_since_rewrite: u64,
    /// The context now.
    pub tokens: u64,
    /// The auto-compact trigger.
    pub trigger: u64,
}

/// The requests a session is expected to make after this one: as many as it has made so far
/// (its turns so far times its requests per turn: a session is expected to go on about as
/// long again as it has run, the usual estimate for a process of unknown length), but no more
/// than fit before the auto-compact trigger at the average growth per request since the
/// history was last rewritten (a full compaction rewrites it there, and what a clear saves ends
/// with it). At least 1.
pub fn expected_remaining_requests(progress: &SessionProgress) -> u64 {
    let since = progress.requests_since_rewrite.max(1);
    let growth = (progress.tokens / since).max(1);
    let until_trigger = progress.trigger.saturating_sub(progress.tokens) / growth;
    progress.requests.max(1).min(until_trigger).max(1)
}

#[cfg(test)]
#[path = "cost_model_tests.rs"]
mod tests;
