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
//!   loses what our tiers removed. A request on which micro-compaction cleared results still
//!   reads the prompt before the first cleared result from the cache (the engine's cost record
//!   says how long it is, [`RequestUsage::micro_cost`]); one on which a full compaction
//!   rewrote the history reads nothing from it. What is not read is written to the cache where
//!   the session records cache writes (Anthropic);
//! - the output is the recorded one;
//! - a compaction of ours where the session recorded none costs its own request besides: what
//!   it summarises as input (the history, or for a partial summary of staged compaction the
//!   part it replaces), read from the cache as the request before left it, and a summary of
//!   [`SUMMARY_OUTPUT_TOKENS`] as output; the mask stage of staged compaction sends none.

use agentctx_engine::CompactionTier;
use agentctx_engine::cost_model::SUMMARY_OUTPUT_TOKENS;
use agentctx_engine::replay::RecordedTokens;
use agentctx_engine::replay::RequestUsage;

/// A request's recorded tokens and ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PolicyRequest {
    /// As recorded.
    pub(crate) recorded: RecordedTokens,
    /// Under our policy: the request, and the summary request of a compaction of ours before
    /// it.
    pub(crate) ours: RecordedTokens,
    /// The input of the request itself under our policy: the context it would send (without
    /// the summary request), the line the timeline draws beside the recorded input.
    pub(crate) context: u64,
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
            let removed_before = removed;
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
                // A clear keeps the prompt before its first cleared result; a full compaction
                // keeps nothing.
                let kept = match (request.auto_compact, request.micro_cost) {
                    (None, Some(cost)) if cost.clear => cost
                        .prefix_tokens
                        .min(recorded.cached_input.saturating_sub(removed_before))
                        .min(input),
                    _ => 0,
                };
                (kept, if writes_cache { input - kept } else { 0 })
            } else {
                let cached = recorded.cached_input.saturating_sub(removed).min(input);
                (cached, recorded.cache_write.min(input - cached))
            };
            let context = input;
            let mut ours = RecordedTokens {
                input,
                cached_input,
                cache_write,
                output: recorded.output,
            };
            // The stage of our compaction, from the decision that ran it: the mask stage sends
            // no summary request; a partial summary reads only the part it replaces.
            let ours_ran = request
                .decisions
                .iter()
                .rev()
                .find_map(|decision| decision.compaction);
            let summarised = match ours_ran {
                Some(figures) if figures.tier == CompactionTier::Mask => None,
                Some(figures) => request.auto_compact.map(|auto| {
                    figures.summary.map_or(auto.tokens_before, |summary| {
                        summary.input_tokens.min(auto.tokens_before)
                    })
                }),
                None => request.auto_compact.map(|auto| auto.tokens_before),
            };
            if let Some(summarised) = summarised
                && !request.after_compaction
            {
                // The summary request: what it reads, as the request before cached it.
                let cached = summarised.min(recorded.cached_input.saturating_sub(removed_before));
                ours.input = ours.input.saturating_add(summarised);
                ours.cached_input = ours.cached_input.saturating_add(cached);
                if writes_cache {
                    ours.cache_write = ours.cache_write.saturating_add(summarised - cached);
                }
                ours.output = ours.output.saturating_add(SUMMARY_OUTPUT_TOKENS);
            }
            Some(PolicyRequest {
                recorded,
                ours,
                context,
                rewritten,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "our_policy_tests.rs"]
mod tests;
