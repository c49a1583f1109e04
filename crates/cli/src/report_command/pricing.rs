//! A request's cost from the price table the model crate vendors (LiteLLM's model prices, the
//! data `ccusage` prices sessions with): cache reads at the cache-read price, cache writes at
//! the cache-write price, the rest of the input at the input price.

use agentctx_engine::replay::RecordedTokens;
use agentctx_model::ModelPrice;
use agentctx_model::TokenCounts;

/// The tokens of a request, split as [`TokenCounts`] bills them: its input without the cache
/// reads and writes, which are billed apart.
pub(crate) fn billed(tokens: &RecordedTokens) -> TokenCounts {
    TokenCounts {
        input: tokens
            .input
            .saturating_sub(tokens.cached_input)
            .saturating_sub(tokens.cache_write),
        cached_input: tokens.cached_input,
        cache_write: tokens.cache_write,
        output: tokens.output,
    }
}

/// What `tokens` cost at `price`, in USD (`None` when the entry lacks a price they need).
pub(crate) fn cost(price: &ModelPrice, tokens: &RecordedTokens) -> Option<f64> {
    price.cost(&billed(tokens))
}

#[cfg(test)]
#[path = "pricing_tests.rs"]
mod tests;
