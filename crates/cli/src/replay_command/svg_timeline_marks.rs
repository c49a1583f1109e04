//! Our decisions on one request, as the timeline marks them (each mark's `<title>`) and the
//! report's request table lists them ("Our tiers"): the stage, the reason, and the figures.
//!
//! - a micro-compaction that cleared old tool results, and one the cost gate held back: the
//!   gate's reason and its three prices (this request sent as is, this request cleared, what
//!   the requests expected after it save);
//! - a compaction of ours, from the decision that asked for it: its stage (the tier of its
//!   [`CompactionFigures`]: the mask stage, the session-memory summary, a partial summary, a
//!   full compaction), where and why it ran (pre-turn, mid-turn, the blocking limit, an
//!   overflow; at the window's trigger or the token budget), our tokens before and after, and
//!   its summary request as the cost guard priced it.

use std::fmt::Write as _;

use agentctx_engine::CompactReason;
use agentctx_engine::CompactTrigger;
use agentctx_engine::CompactionFigures;
use agentctx_engine::CompactionTier;
use agentctx_engine::Decision;
use agentctx_engine::DecisionPoint;
use agentctx_engine::MicroCostDecision;
use agentctx_engine::MicroCostReason;
use agentctx_engine::SummaryEstimate;
use agentctx_engine::cost_model::CacheState;
use agentctx_engine::replay::RequestUsage;

use super::grouped;

/// What a mark stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkKind {
    /// Micro-compaction cleared old tool results before the request.
    Micro,
    /// Micro-compaction found a clear worthwhile, and the cost gate kept the results.
    MicroHeld,
    /// A compaction of ours: a stage of a staged compaction or a full one.
    Compaction,
}

impl MarkKind {
    /// The mark's class in the SVG and the table (`tier micro`, …).
    pub(crate) fn class(self) -> &'static str {
        match self {
            Self::Micro => "micro",
            Self::MicroHeld => "micro-held",
            Self::Compaction => "auto",
        }
    }
}

/// One decision of ours on a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) kind: MarkKind,
    /// Our tokens before it (for a held clear: the prompt it was priced on).
    pub(crate) tokens_before: u64,
    /// Our tokens after it (for a held clear: what the clear would have left).
    pub(crate) tokens_after: u64,
    /// The stage in a few words, for the chart's label.
    pub(crate) stage: &'static str,
    /// The stage, the reason and the figures, in one line.
    pub(crate) text: String,
}

/// Our decisions on `request`, in the order they were taken: the compactions decided before
/// the request was prepared (before the turn, after tool outputs), its micro-compaction, then
/// a compaction for the blocking limit.
pub(crate) fn marks(request: &RequestUsage) -> Vec<Mark> {
    let compactions: Vec<(&Decision, CompactionFigures)> = request
        .decisions
        .iter()
        .filter_map(|decision| {
            decision
                .compaction
                .filter(|_| decision.compact_reason().is_some())
                .map(|figures| (decision, figures))
        })
        .collect();
    let mut marks: Vec<Mark> = compactions
        .iter()
        .filter(|(decision, _)| decision.point != DecisionPoint::BeforeRequest)
        .map(|(decision, figures)| compaction_mark(decision, figures, request.after_compaction))
        .collect();
    if compactions.is_empty()
        && let Some(auto) = request.auto_compact
    {
        // A compaction the replay reports without the decision that asked for it.
        marks.push(Mark {
            kind: MarkKind::Compaction,
            tokens_before: auto.tokens_before,
            tokens_after: auto.tokens_after,
            stage: "compaction",
            text: format!(
                "auto-compaction · {} → {} tokens",
                grouped(auto.tokens_before),
                grouped(auto.tokens_after)
            ),
        });
    }
    marks.extend(micro_mark(request));
    marks.extend(
        compactions
            .iter()
            .filter(|(decision, _)| decision.point == DecisionPoint::BeforeRequest)
            .map(|(decision, figures)| {
                compaction_mark(decision, figures, request.after_compaction)
            }),
    );
    marks
}

/// The micro-compaction of the request: cleared, or held back by the cost gate.
fn micro_mark(request: &RequestUsage) -> Option<Mark> {
    let cost = request.micro_cost;
    match (request.micro_compact, cost) {
        (Some(micro), _) => {
            let mut text = format!(
                "micro-compaction: old tool results cleared · {} → {} tokens",
                grouped(micro.tokens_before),
                grouped(micro.tokens_after)
            );
            if let Some(cost) = cost {
                let _ = write!(text, " · cost gate: {}", gate_text(&cost));
            }
            Some(Mark {
                kind: MarkKind::Micro,
                tokens_before: micro.tokens_before,
                tokens_after: micro.tokens_after,
                stage: "micro-compaction",
                text,
            })
        }
        (None, Some(cost)) if !cost.clear => Some(Mark {
            kind: MarkKind::MicroHeld,
            tokens_before: cost.prompt_tokens,
            tokens_after: cost.prompt_tokens.saturating_sub(cost.tokens_saved),
            stage: "micro-compaction held back",
            text: format!(
                "micro-compaction held back by the cost gate · would clear {} of {} tokens · {}",
                grouped(cost.tokens_saved),
                grouped(cost.prompt_tokens),
                gate_text(&cost)
            ),
        }),
        (None, _) => None,
    }
}

/// The gate's verdict and its three prices.
fn gate_text(cost: &MicroCostDecision) -> String {
    let priced = cost.reason != MicroCostReason::Unpriced;
    format!(
        "{} · this request {} as is, {} cleared; the {} expected after it save {}",
        micro_reason(cost),
        money(cost.send_as_is_micro_usd, priced),
        money(cost.clear_micro_usd, priced),
        counted(cost.remaining_requests, "request"),
        money(cost.remaining_saving_micro_usd, priced)
    )
}

/// Why the gate cleared or kept the results, with the state of the cache.
fn micro_reason(cost: &MicroCostDecision) -> String {
    let cache = match (cost.cache, cost.gap_ms) {
        (CacheState::Empty, _) => "cache empty".to_string(),
        (CacheState::Warm, Some(gap)) => {
            format!("cache warm, {} since the last request", gap_text(gap))
        }
        (CacheState::Warm, None) => "cache warm".to_string(),
        (CacheState::Cold, Some(gap)) => {
            format!("cache cold, {} since the last request", gap_text(gap))
        }
        (CacheState::Cold, None) => "cache cold".to_string(),
    };
    let verdict = match cost.reason {
        MicroCostReason::CacheEmpty => "nothing cached to break",
        MicroCostReason::CacheCold => "the prompt is written again anyway",
        MicroCostReason::Unpriced => "unpriced model, the tier's own rule",
        MicroCostReason::PaysBack => "pays back",
        MicroCostReason::DoesNotPay => "does not pay",
        MicroCostReason::NotYetCovered => "pays back, not yet covered by earlier clears",
    };
    format!("{verdict} ({cache})")
}

/// A compaction of ours and the decision that asked for it.
fn compaction_mark(decision: &Decision, figures: &CompactionFigures, recorded_too: bool) -> Mark {
    let mut text = format!(
        "{} · {} · {} → {} tokens",
        stage_text(figures.tier),
        decision_reason(decision),
        grouped(figures.tokens_before),
        grouped(figures.tokens_after)
    );
    if let Some(summary) = &figures.summary {
        let _ = write!(text, " · {}", summary_text(summary));
    }
    if recorded_too {
        text.push_str(" · the session compacted here too");
    }
    Mark {
        kind: MarkKind::Compaction,
        tokens_before: figures.tokens_before,
        tokens_after: figures.tokens_after,
        stage: stage_label(figures.tier),
        text,
    }
}

/// The stage, as the chart labels it.
fn stage_label(tier: CompactionTier) -> &'static str {
    match tier {
        CompactionTier::Mask => "mask stage",
        CompactionTier::SessionMemory => "session memory",
        CompactionTier::PartialModel | CompactionTier::PartialOffline => "partial summary",
        CompactionTier::FullModel | CompactionTier::FullOffline | CompactionTier::Remote => {
            "full compaction"
        }
    }
}

/// The stage, in words.
fn stage_text(tier: CompactionTier) -> &'static str {
    match tier {
        CompactionTier::Mask => "mask stage: old tool outputs masked, no summary",
        CompactionTier::SessionMemory => "session-memory summary, no model call",
        CompactionTier::PartialModel => {
            "partial summary: the oldest part summarised by the model, recent turns kept"
        }
        CompactionTier::PartialOffline => {
            "partial summary: the oldest part summarised offline, recent turns kept"
        }
        CompactionTier::FullModel => "full compaction, summary by the model",
        CompactionTier::FullOffline => "full compaction, summary written offline",
        CompactionTier::Remote => "full compaction at the provider",
    }
}

/// Where and why the decision asked for a compaction, and the limit it compared with.
fn decision_reason(decision: &Decision) -> String {
    let reason = match decision.compact_reason() {
        Some(CompactReason::PreTurn) => "pre-turn",
        Some(CompactReason::MidTurn) => "mid-turn, after tool outputs",
        Some(CompactReason::Blocking) => "blocking limit",
        Some(CompactReason::Overflow) => "overflow",
        Some(CompactReason::ModelSwitch) => "model switch",
        Some(CompactReason::ModelSwitchMidTurn) => "model switch, mid-turn",
        Some(CompactReason::Requested) => "requested",
        None => "no compaction asked",
    };
    let limit = match (decision.trigger, decision.compact_reason()) {
        (Some(CompactTrigger::Budget), _) => "the token budget",
        (Some(CompactTrigger::Window), _) => "the window's trigger",
        (None, Some(CompactReason::Blocking)) => "the blocking limit",
        (None, Some(CompactReason::Overflow)) => "the effective window",
        (None, _) => "the limit",
    };
    format!(
        "{reason}: {} tokens against {limit} of {}",
        grouped(decision.tokens),
        grouped(decision.limit)
    )
}

/// A compaction's summary request, as priced before it was sent.
fn summary_text(summary: &SummaryEstimate) -> String {
    let mut text = format!(
        "summary request ≈ {} tokens in ({} cached), {} out, {}",
        grouped(summary.input_tokens),
        grouped(summary.cached_tokens),
        grouped(summary.output_tokens),
        money(summary.cost_micro_usd, true)
    );
    if let Some(guard) = summary.guard {
        let _ = write!(
            text,
            "; staged by the cost guard: {} → {} tokens (limit {}, {} cleared, {} condensed)",
            grouped(guard.tokens_before),
            grouped(guard.tokens_after),
            grouped(guard.limit_tokens),
            counted(guard.outputs_cleared as u64, "tool output"),
            counted(guard.items_condensed as u64, "item")
        );
    }
    text
}

/// Micro-USD as dollars: four decimals below a dollar, two above; micro reference units for
/// a model the price table does not know.
fn money(micro: u64, priced: bool) -> String {
    let amount = micro as f64 / 1e6;
    let figure = if amount >= 1.0 {
        format!("{amount:.2}")
    } else {
        format!("{amount:.4}")
    };
    if priced {
        format!("${figure}")
    } else {
        format!("{figure} (reference prices)")
    }
}

/// Milliseconds as `41 s`, `6 min 12 s`, `2 h 5 min`.
fn gap_text(ms: u64) -> String {
    let seconds = ms / 1_000;
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3_600 => format!("{} min {} s", seconds / 60, seconds % 60),
        _ => format!("{} h {} min", seconds / 3_600, seconds % 3_600 / 60),
    }
}

/// `1 request`, `38 requests`.
fn counted(count: u64, noun: &str) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} {noun}{plural}")
}

#[cfg(test)]
#[path = "svg_timeline_marks_tests.rs"]
mod tests;
