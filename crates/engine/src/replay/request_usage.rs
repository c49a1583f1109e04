//! The figures a replay gives per model request: our usage prediction against what the
//! request recorded, and where each of the engine's tiers triggered (see
//! `docs/design/compaction.md`, "Replay: predicted usage and the timeline").

use agentctx_compact::ThresholdLevel;
use serde::Serialize;

/// What our usage prediction was based on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PredictionBasis {
    /// The previous request's recorded input plus the estimate of the items added since: the
    /// pairs `usage_prediction_error` is measured on.
    PreviousRequest,
    /// No usable previous request (the first request, or the history was rewritten by a
    /// compaction or a rollback since): the estimate of the whole history, as our pipeline does
    /// right after a compaction. Left out of `usage_prediction_error`.
    WholeHistory,
}

/// Our tiers' thresholds for the session's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct UsageThresholds {
    /// The window.
    pub window: u64,
    /// The window minus the reserved output.
    pub effective_window: u64,
    /// The warning level.
    pub warning: u64,
    /// The auto-compact trigger.
    pub auto_compact: u64,
    /// The blocking limit.
    pub blocking: u64,
}

/// A tier that would have changed the history: tokens before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TierTrigger {
    /// Our usage before the tier.
    pub tokens_before: u64,
    /// Our usage after it (micro: the plan's savings taken off; full: the estimate of the
    /// compacted history with an offline summary).
    pub tokens_after: u64,
}

/// The tokens one request recorded, split as providers bill them: cache reads and writes are
/// priced apart from the rest of the input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RecordedTokens {
    /// Input tokens, cache reads and cache writes included.
    pub input: u64,
    /// Of `input`, the tokens read from the provider's prompt cache.
    pub cached_input: u64,
    /// Of `input`, the tokens written to the provider's prompt cache (Anthropic's
    /// `cache_creation_input_tokens`; providers that cache without a charge record none).
    pub cache_write: u64,
    /// Generated tokens, reasoning included.
    pub output: u64,
}

/// One model request of the main thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestUsage {
    /// 1-based request number in the session.
    pub request: usize,
    /// Line of the request's first model-generated item.
    pub line: usize,
    /// Our usage for the request: what our trigger would have read.
    pub predicted_tokens: u64,
    /// What `predicted_tokens` is based on.
    pub basis: PredictionBasis,
    /// The input tokens the request recorded (cached included), when it recorded usage.
    pub recorded_tokens: Option<u64>,
    /// The request's recorded usage split as providers bill it, when it recorded usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_usage: Option<RecordedTokens>,
    /// What the request's recorded usage says beyond its counts: the model that answered, when,
    /// one-hour cache writes, fast mode, an output count never finalised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_billing: Option<crate::replay::RecordedBilling>,
    /// A recorded compaction rewrote the history since the previous request.
    pub after_compaction: bool,
    /// Micro-compaction would have cleared results before the request.
    pub micro_compact: Option<TierTrigger>,
    /// The cost-aware micro-compaction decision of the request, when the tier found a clear
    /// worthwhile and priced it: cleared or kept, why, and the figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub micro_cost: Option<crate::decision::MicroCostDecision>,
    /// The level our usage (after micro-compaction) reached: `normal`, `warning`, `error`,
    /// `auto_compact` or `blocking`.
    #[serde(serialize_with = "serialize_level")]
    pub level: ThresholdLevel,
    /// Our auto-compaction ran before this request (before the turn, after tool outputs, or
    /// for the blocking limit): our usage before and after it. Where the session recorded a
    /// compaction at that point, it is the recorded one (a session agentctx recorded under the
    /// same configuration compacted exactly where the engine decides to); else the engine ran
    /// its own there, offline, and the replay went on from it as a live session would.
    pub auto_compact: Option<TierTrigger>,
    /// Tokens our tiers took out of the history that the recorded session kept: its recorded
    /// measures are of a history this much larger than ours (0 when both are the same).
    #[serde(skip_serializing_if = "is_zero")]
    pub recorded_offset: u64,
    /// The engine's decisions since the previous request, in order: the pre-turn or mid-turn
    /// check, a compaction it asked for with what it did, and this request's own check against
    /// the blocking limit.
    pub decisions: Vec<crate::decision::Decision>,
}

/// Whether `value` is zero (a field left out of the JSON).
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `skip_serializing_if` passes a reference"
)]
fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A [`ThresholdLevel`] by its name in snake case.
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `serialize_with` passes a reference"
)]
fn serialize_level<S: serde::Serializer>(
    level: &ThresholdLevel,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(match level {
        ThresholdLevel::Normal => "normal",
        ThresholdLevel::Warning => "warning",
        ThresholdLevel::Error => "error",
        ThresholdLevel::AutoCompact => "auto_compact",
        ThresholdLevel::Blocking => "blocking",
    })
}

impl RequestUsage {
    /// |predicted − recorded| / recorded, for a pair that counts.
    pub fn relative_error(&self) -> Option<f64> {
        let recorded = self.recorded_tokens.filter(|&tokens| tokens > 0)?;
        if self.basis != PredictionBasis::PreviousRequest {
            return None;
        }
        // Our prediction of the recorded request: ours plus what the recorded history kept that
        // our tiers took out.
        let diff = self
            .predicted_tokens
            .saturating_add(self.recorded_offset)
            .abs_diff(recorded);
        Some(diff as f64 / recorded as f64)
    }
}

/// `usage_prediction_error`: the nearest-rank median and 95th percentile of the relative errors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PredictionError {
    /// The median (`null` without pairs).
    pub median: Option<f64>,
    /// The 95th percentile (`null` without pairs).
    pub p95: Option<f64>,
    /// Pairs measured.
    pub n: usize,
}

impl PredictionError {
    /// Over `requests`, the pairs with a previous-request basis and a recorded input.
    pub fn over<'a>(requests: impl IntoIterator<Item = &'a RequestUsage>) -> Self {
        let mut errors: Vec<f64> = requests
            .into_iter()
            .filter_map(RequestUsage::relative_error)
            .collect();
        errors.sort_by(f64::total_cmp);
        Self {
            median: nearest_rank(&errors, 50),
            p95: nearest_rank(&errors, 95),
            n: errors.len(),
        }
    }
}

/// The `percent`-th percentile of sorted `values` by nearest rank: the value at rank
/// ⌈percent/100 × n⌉ (1-based).
fn nearest_rank(sorted: &[f64], percent: usize) -> Option<f64> {
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

#[cfg(test)]
#[path = "request_usage_tests.rs"]
mod tests;
