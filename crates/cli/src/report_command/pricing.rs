//! A request's cost from the price table the model crate vendors (LiteLLM's model prices, the
//! data `ccusage` prices sessions with), at the model that answered it: cache reads at the
//! cache-read price, cache writes at the cache-write price by their lifetime, the rest of the
//! input at the input price, fast mode and long-context tiers as the provider bills them
//! (`agentctx_model::PriceRules`; docs/design/usage-accounting.md).

use agentctx_engine::replay::RecordedBilling;
use agentctx_engine::replay::RecordedTokens;
use agentctx_model::BilledRequest;
use agentctx_model::PriceTable;
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

/// One request's price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RequestPrice {
    /// USD; `None` when the table does not know the model or cannot price a count.
    pub(crate) usd: Option<f64>,
    /// The figure is a lower bound: the output was estimated from what the transcript shows,
    /// or the request ran in fast mode and the entry states no multiplier.
    pub(crate) lower_bound: bool,
}

/// What `tokens` cost, billed as `billing` says (the model that answered, else `fallback_model`;
/// one-hour writes; fast mode; an output never finalised, at its estimate). `extra_output`
/// is output beyond the recorded response's (the summary our auto-compaction would have asked
/// for), added to the estimate too.
pub(crate) fn request_price(
    prices: Option<&PriceTable>,
    fallback_model: Option<&str>,
    tokens: &RecordedTokens,
    billing: Option<&RecordedBilling>,
    extra_output: u64,
) -> RequestPrice {
    let model = billing
        .and_then(|billing| billing.model.as_deref())
        .or(fallback_model);
    let found = model.and_then(|model| prices?.resolve(model));
    let response_output = tokens.output.saturating_sub(extra_output);
    let output = billing
        .map_or(response_output, |billing| {
            billing.billed_output(response_output)
        })
        .saturating_add(extra_output);
    let request = BilledRequest {
        tokens: TokenCounts {
            output,
            ..billed(tokens)
        },
        cache_write_1h: billing.map_or(0, |billing| billing.cache_write_1h),
        fast: billing.is_some_and(|billing| billing.fast),
    };
    let cost = found.and_then(|found| found.request_cost(&request));
    RequestPrice {
        usd: cost.map(|cost| cost.usd),
        lower_bound: billing.is_some_and(|billing| billing.output_estimated)
            || cost.is_some_and(|cost| cost.fast_unpriced),
    }
}

#[cfg(test)]
#[path = "pricing_tests.rs"]
mod tests;
