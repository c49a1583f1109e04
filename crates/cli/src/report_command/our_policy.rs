//! What a session would have sent under our policy: each recorded request's tokens with what the
//! engine's micro-compaction and auto-compaction would have taken out of its prompt, and its
//! cache reads as the provider would have billed them.
//!
//! The replay decides where our tiers trigger and how many tokens each removes
//! ([`RequestUsage::micro_compact`], [`RequestUsage::auto_compact`]); the recorded session went
//! on with its own history, so what follows is an estimate built on the recorded figures:
//!
//! - every token a tier removed stays removed from the requests after it, until a compaction
//!   the session recorded rewrote the history anyway (from then on both histories are the
//!   recorded one again);
//! - a request's cache reads are the prefix it shared with the request before; that prefix
//!   loses what our tiers removed, and a request on which a tier rewrote the history reads
//!   nothing from the cache (the rewritten part breaks the prefix) and writes its whole input
//!   to the cache where the session records cache writes (Anthropic);
//! - the output is the recorded one.

use agentctx_engine::replay::RecordedTokens;
use agentctx_engine::replay::RequestUsage;

/// A request's recorded tokens and ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PolicyRequest {
    /// As recorded.
    pub(crate) recorded: RecordedTokens,
    /// Under our policy.
    pub(crate) ours: RecordedTokens,
    /// One of our tiers rewrote the history before this request.
    pub(crate) rewritten: bool,
}

/// The requests that recorded usage, each with what it would have sent under our policy
/// (`None` for a request that recorded none).
pub(crate) fn our_requests(requests: &[RequestUsage]) -> Vec<Option<PolicyRequest>> {
    let writes_cache = requests
        .iter()
        .filter_map(|request| request.recorded_usage)
        .any(|usage| usage.cache_write > 0);
    let mut removed = 0u64;
    requests
        .iter()
        .map(|request| {
            if request.after_compaction {
                removed = 0;
            }
            let mut rewritten = false;
            for tier in [request.micro_compact, request.auto_compact]
                .into_iter()
                .flatten()
            {
                removed =
                    removed.saturating_add(tier.tokens_before.saturating_sub(tier.tokens_after));
                rewritten = true;
            }
            let recorded = request.recorded_usage?;
            let input = recorded.input.saturating_sub(removed);
            let (cached_input, cache_write) = if rewritten {
                (0, if writes_cache { input } else { 0 })
            } else {
                let cached = recorded.cached_input.saturating_sub(removed).min(input);
                (cached, recorded.cache_write.min(input - cached))
            };
            Some(PolicyRequest {
                recorded,
                ours: RecordedTokens {
                    input,
                    cached_input,
                    cache_write,
                    output: recorded.output,
                },
                rewritten,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "our_policy_tests.rs"]
mod tests;
