//! The cost-aware gate of micro-compaction (see docs/design/cost-model.md): before each
//! request, a clear the tier finds worthwhile is priced by the cost model and applied only when
//! it pays: when nothing is cached, when the cache has expired, or when what it saves over the
//! expected remaining requests exceeds writing the prompt after the first cleared result to the
//! cache again and that rewrite is covered by what earlier clears have saved. The clock is the compactor's ([`Compactor::now`]): the recorded session's in a
//! replay, the wall clock live, so both decide the same on the same session.

use std::time::Duration;
use std::time::Instant;

use agentctx_compact::CompactionMode;
use agentctx_context::ContextManager;

use super::Compactor;
use crate::cost_model::CacheState;
use crate::cost_model::CostModel;
use crate::cost_model::MicroInputs;
use crate::cost_model::SessionProgress;
use crate::cost_model::expected_remaining_requests;
use crate::decision::MicroCostDecision;
use crate::decision::MicroCostReason;

/// What the gate keeps across requests.
#[derive(Debug, Clone, Default)]
pub(super) struct MicroCostState {
    /// When the last request was sent, and how many history items it carried; `None` when the
    /// history was rewritten since (nothing of it is cached).
    last_request: Option<(Instant, usize)>,
    /// Requests prepared in the session.
    requests: u64,
    /// Of them, those since the history was last rewritten.
    requests_since_rewrite: u64,
    /// The last plan priced, while the history has only grown since.
    memo: Option<PlanMemo>,
    /// What the clears so far have saved against never clearing, net of what their rewrites
    /// cost (cost-model units): a warm clear whose rewrite costs more than this is not taken
    /// yet, so a session that ends before a clear pays back never costs more than without it.
    banked: f64,
    /// Tokens the clears took out since the history was last rewritten: each request after
    /// them saves reading these (banked at the cache-read price, the least it saves).
    cleared_tokens: u64,
    /// The decision of the request being prepared, for the host to take.
    pub(super) decision: Option<MicroCostDecision>,
}

/// A plan priced under a warm cache and not taken, kept so that the next requests need no new
/// plan while even its most optimistic update would not pay, or not be covered, either.
#[derive(Debug, Clone, Copy)]
struct PlanMemo {
    /// The history's version then (an edit or a rewrite since voids it).
    version: u64,
    /// The prompt's tokens then.
    prompt_tokens: u64,
    /// The prompt before the first cleared result.
    prefix_tokens: u64,
    /// What the plan saved.
    tokens_saved: u64,
}

/// Token sums over the history's kept sizes, instructions and tools included.
struct PromptSums {
    /// The whole prompt.
    total: u64,
    /// The prompt the last request sent (its first `len` items).
    sent: u64,
    /// The prompt before item `first`.
    prefix: u64,
}

fn prompt_sums(
    history: &ContextManager,
    overhead: u64,
    sent_len: usize,
    first: usize,
) -> PromptSums {
    let mut sums = PromptSums {
        total: overhead,
        sent: overhead,
        prefix: overhead,
    };
    for (index, size) in history.item_sizes().iter().enumerate() {
        sums.total = sums.total.saturating_add(size.tokens);
        if index < sent_len {
            sums.sent = sums.sent.saturating_add(size.tokens);
        }
        if index < first {
            sums.prefix = sums.prefix.saturating_add(size.tokens);
        }
    }
    sums
}

/// USD (or reference units) in millionths, for the typed record.
pub(super) fn micro_units(cost: f64) -> u64 {
    let scaled = (cost * 1e6).round();
    if scaled.is_finite() && scaled > 0.0 {
        // Far below u64::MAX for any request.
        scaled.min(u64::MAX as f64) as u64
    } else {
        0
    }
}

impl Compactor {
    /// The cache's state at `now`, the gap since the last request with the history length it
    /// sent, and how much of the history that request sent is still cached (none when cold).
    fn cache_now(&self, now: Instant) -> (CacheState, Option<(Duration, usize)>, usize) {
        let gap = self
            .micro_cost
            .last_request
            .map(|(at, len)| (now.saturating_duration_since(at), len));
        let cache = self.cost_model.cache_state(gap.map(|(gap, _)| gap));
        let sent_len = match (cache, gap) {
            (CacheState::Warm, Some((_, len))) => len,
            _ => 0,
        };
        (cache, gap, sent_len)
    }

    /// The figures of a clear applied without the gate (`micro.cost_aware` off): what it cost
    /// under the cost model, priced after the fact from the cleared results (no plan is built),
    /// so that a replay reports every clear on the same terms. `history` is the history after
    /// the clear; the record says `clear` whatever the price's verdict.
    pub(super) fn price_applied(
        &self,
        history: &ContextManager,
        outcome: &agentctx_compact::MicroCompactOutcome,
        now: Instant,
    ) -> Option<MicroCostDecision> {
        let first_id = outcome.cleared_call_ids.first()?;
        let first = history
            .raw_items()
            .iter()
            .position(|item| item.is_tool_output() && item.call_id() == Some(first_id.as_str()))?;
        let overhead = self
            .prompt_overhead
            .load(std::sync::atomic::Ordering::Relaxed);
        let (cache, gap, sent_len) = self.cache_now(now);
        let sums = prompt_sums(history, overhead, sent_len, first);
        // The prompt before the clear; what the last request sent is as it was then.
        let prompt_tokens = sums.total.saturating_add(outcome.tokens_saved);
        let cached = if cache == CacheState::Warm {
            sums.sent.saturating_add(outcome.tokens_saved)
        } else {
            0
        };
        let progress = SessionProgress {
            requests: self.micro_cost.requests.saturating_add(1),
            requests_since_rewrite: self.micro_cost.requests_since_rewrite.saturating_add(1),
            tokens: prompt_tokens,
            trigger: self.thresholds.auto_compact,
        };
        let inputs = MicroInputs {
            prompt_tokens,
            cached_tokens: cached,
            prefix_tokens: self.cost_model.rules().kept_prefix(
                sums.prefix,
                overhead,
                first,
                sent_len,
            ),
            tokens_saved: outcome.tokens_saved,
            remaining_requests: expected_remaining_requests(&progress),
        };
        let pays = self.cost_model.price_micro(&inputs).pays();
        let reason = match cache {
            CacheState::Empty => MicroCostReason::CacheEmpty,
            CacheState::Cold => MicroCostReason::CacheCold,
            CacheState::Warm if pays => MicroCostReason::PaysBack,
            CacheState::Warm => MicroCostReason::DoesNotPay,
        };
        Some(self.cost_record(inputs, reason, cache, gap.map(|(gap, _)| gap), true))
    }

    /// The typed record of a priced decision.
    fn cost_record(
        &self,
        inputs: MicroInputs,
        reason: MicroCostReason,
        cache: CacheState,
        gap: Option<std::time::Duration>,
        clear: bool,
    ) -> MicroCostDecision {
        let pricing = self.cost_model.price_micro(&inputs);
        MicroCostDecision {
            clear,
            reason,
            cache,
            gap_ms: gap.map(|gap| u64::try_from(gap.as_millis()).unwrap_or(u64::MAX)),
            prompt_tokens: inputs.prompt_tokens,
            cached_tokens: inputs.cached_tokens,
            prefix_tokens: inputs.prefix_tokens,
            tokens_saved: inputs.tokens_saved,
            remaining_requests: inputs.remaining_requests,
            send_as_is_micro_usd: micro_units(pricing.send_as_is),
            clear_micro_usd: micro_units(pricing.clear),
            remaining_saving_micro_usd: micro_units(pricing.remaining_saving),
        }
    }

    /// The cost model in use.
    pub(crate) fn cost_model(&self) -> &CostModel {
        &self.cost_model
    }

    /// Prices the next requests with `model` (the session's model, from the price table): the
    /// micro-compaction gate reads it, and the default token budget follows it.
    pub(crate) fn set_cost_model(&mut self, model: CostModel) {
        if self.cost_model != model {
            self.cost_model = model;
            self.thresholds = self.thresholds_for(self.window);
        }
    }

    /// The cost-aware decision of the request being prepared, once.
    pub(crate) fn take_micro_cost(&mut self) -> Option<MicroCostDecision> {
        self.micro_cost.decision.take()
    }

    /// The history was rewritten (a compaction, a rollback): nothing of it is cached.
    pub(super) fn micro_cost_history_rewritten(&mut self) {
        self.micro_cost.last_request = None;
        self.micro_cost.requests_since_rewrite = 0;
        self.micro_cost.memo = None;
        self.micro_cost.cleared_tokens = 0;
    }

    /// Banks what the earlier clears save on the request being prepared (taken before it is
    /// priced).
    pub(super) fn micro_cost_bank_request(&mut self) {
        let state = &mut self.micro_cost;
        state.banked += state.cleared_tokens as f64 * self.cost_model.prices().cache_read;
    }

    /// Banks a clear applied on the request being prepared, as `decision` priced it, that took
    /// `tokens_saved` out.
    pub(super) fn micro_cost_bank_clear(
        &mut self,
        decision: &MicroCostDecision,
        tokens_saved: u64,
    ) {
        let state = &mut self.micro_cost;
        // The clear's difference on this request (negative: its rewrite cost more).
        state.banked +=
            (decision.send_as_is_micro_usd as f64 - decision.clear_micro_usd as f64) / 1e6;
        state.cleared_tokens = state.cleared_tokens.saturating_add(tokens_saved);
    }

    /// A request carrying the first `history_len` items is sent at `now`.
    pub(super) fn micro_cost_request_sent(&mut self, history_len: usize, now: Instant) {
        let state = &mut self.micro_cost;
        state.last_request = Some((now, history_len));
        state.requests = state.requests.saturating_add(1);
        state.requests_since_rewrite = state.requests_since_rewrite.saturating_add(1);
    }

    /// The gate's decision on `history` at `now` in `mode`: `None` when the gate is off or the
    /// tier would not clear anyway (nothing to clear, or too little).
    pub(super) fn price_micro(
        &mut self,
        history: &ContextManager,
        mode: CompactionMode,
        now: Instant,
    ) -> Option<MicroCostDecision> {
        if !self.config.micro.cost_aware || !self.config.micro_compact_enabled() {
            return None;
        }
        let decision = self
            .micro_index
            .decide(history, &self.config.micro, mode, &self.home);
        if decision.planned_clears == 0 || !decision.worthwhile {
            return None;
        }
        let overhead = self
            .prompt_overhead
            .load(std::sync::atomic::Ordering::Relaxed);
        let (cache, gap, sent_len) = self.cache_now(now);
        let version = history.history_version();
        let memo = self.micro_cost.memo.filter(|memo| memo.version == version);
        let sums = prompt_sums(history, overhead, sent_len, 0);
        let cached = if cache == CacheState::Warm {
            sums.sent
        } else {
            0
        };
        let progress = SessionProgress {
            requests: self.micro_cost.requests.saturating_add(1),
            requests_since_rewrite: self.micro_cost.requests_since_rewrite.saturating_add(1),
            tokens: sums.total,
            trigger: self.thresholds.auto_compact,
        };
        let remaining = expected_remaining_requests(&progress);
        let priced = |prefix_tokens: u64, tokens_saved: u64| MicroInputs {
            prompt_tokens: sums.total,
            cached_tokens: cached,
            prefix_tokens,
            tokens_saved,
            remaining_requests: remaining,
        };
        let gap_time = gap.map(|(gap, _)| gap);
        if cache != CacheState::Warm || !self.cost_model.is_priced() {
            // Nothing the clear could break is cached, or nothing is billed: any clear the tier
            // finds worthwhile pays.
            let reason = match cache {
                _ if !self.cost_model.is_priced() => MicroCostReason::Unpriced,
                CacheState::Empty => MicroCostReason::CacheEmpty,
                _ => MicroCostReason::CacheCold,
            };
            return Some(self.cost_record(
                priced(0, decision.tokens_saved),
                reason,
                cache,
                gap_time,
                true,
            ));
        }
        let banked = self.micro_cost.banked;
        if let Some(memo) = memo {
            // The history only grew since the plan: the clear saves at most what it saved then
            // plus everything added since, and its first cleared result is no earlier (the
            // prefix kept then is the most kept now). When even that does not pay, or its
            // rewrite is not covered yet, nothing new is planned.
            let grown = sums.total.saturating_sub(memo.prompt_tokens);
            let optimistic = priced(memo.prefix_tokens, memo.tokens_saved.saturating_add(grown));
            let pricing = self.cost_model.price_micro(&optimistic);
            let reason = if !pricing.pays() {
                Some(MicroCostReason::DoesNotPay)
            } else if pricing.clear - pricing.send_as_is > banked {
                Some(MicroCostReason::NotYetCovered)
            } else {
                None
            };
            if let Some(reason) = reason {
                return Some(self.cost_record(optimistic, reason, cache, gap_time, false));
            }
        }
        let plan = self
            .micro_index
            .plan(history, &self.config.micro, mode, &self.home);
        let first = plan
            .clears
            .iter()
            .map(|clear| clear.index)
            .min()
            .unwrap_or(usize::MAX);
        let prefix = self.cost_model.rules().kept_prefix(
            prompt_sums(history, overhead, 0, first).prefix,
            overhead,
            first,
            sent_len,
        );
        let inputs = priced(prefix, plan.tokens_saved);
        let pricing = self.cost_model.price_micro(&inputs);
        let reason = if !pricing.pays() {
            MicroCostReason::DoesNotPay
        } else if pricing.clear - pricing.send_as_is > banked {
            MicroCostReason::NotYetCovered
        } else {
            MicroCostReason::PaysBack
        };
        let clear = reason == MicroCostReason::PaysBack;
        self.micro_cost.memo = (!clear).then_some(PlanMemo {
            version,
            prompt_tokens: sums.total,
            prefix_tokens: prefix,
            tokens_saved: plan.tokens_saved,
        });
        Some(self.cost_record(inputs, reason, cache, gap_time, clear))
    }
}
