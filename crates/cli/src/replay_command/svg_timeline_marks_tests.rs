use agentctx_compact::ThresholdLevel;
use agentctx_engine::Action;
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
use agentctx_engine::replay::PredictionBasis;
use agentctx_engine::replay::RequestUsage;
use agentctx_engine::replay::TierTrigger;
use pretty_assertions::assert_eq;

use super::MarkKind;
use super::marks;

fn request() -> RequestUsage {
    RequestUsage {
        request: 7,
        line: 70,
        predicted_tokens: 182_113,
        basis: PredictionBasis::PreviousRequest,
        recorded_tokens: Some(184_000),
        recorded_usage: None,
        recorded_billing: None,
        after_compaction: false,
        micro_compact: None,
        micro_cost: None,
        level: ThresholdLevel::Normal,
        auto_compact: None,
        recorded_offset: 0,
        decisions: Vec::new(),
    }
}

fn micro_cost(clear: bool, reason: MicroCostReason, cache: CacheState) -> MicroCostDecision {
    MicroCostDecision {
        clear,
        reason,
        cache,
        gap_ms: Some(41_500),
        prompt_tokens: 182_113,
        cached_tokens: 180_000,
        prefix_tokens: 20_000,
        tokens_saved: 41_093,
        remaining_requests: 38,
        send_as_is_micro_usd: 91_230,
        clear_micro_usd: 1_034_100,
        remaining_saving_micro_usd: 23_100,
    }
}

fn compaction(point: DecisionPoint, reason: CompactReason, tier: CompactionTier) -> Decision {
    Decision {
        point,
        request: 6,
        tokens: 395_120,
        limit: 380_000,
        action: Action::Compact { reason },
        trigger: Some(CompactTrigger::Budget),
        compaction: Some(CompactionFigures {
            tier,
            tokens_before: 395_120,
            tokens_after: 61_400,
            summary: None,
        }),
    }
}

#[test]
fn a_clear_held_back_by_the_cost_gate_says_why_and_what_it_would_have_cost() {
    let mut held = request();
    held.micro_cost = Some(micro_cost(
        false,
        MicroCostReason::DoesNotPay,
        CacheState::Warm,
    ));
    let marks = marks(&held);
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].kind, MarkKind::MicroHeld);
    assert_eq!(
        (marks[0].tokens_before, marks[0].tokens_after),
        (182_113, 141_020)
    );
    insta::assert_snapshot!(marks[0].text, @"micro-compaction held back by the cost gate · would clear 41,093 of 182,113 tokens · does not pay (cache warm, 41 s since the last request) · this request $0.0912 as is, $1.03 cleared; the 38 requests expected after it save $0.0231");
}

#[test]
fn a_clear_gives_its_tokens_and_the_gates_verdict() {
    let mut cleared = request();
    cleared.micro_compact = Some(TierTrigger {
        tokens_before: 182_113,
        tokens_after: 141_020,
    });
    let mut cost = micro_cost(true, MicroCostReason::CacheCold, CacheState::Cold);
    cost.gap_ms = Some(372_000);
    cleared.micro_cost = Some(cost);
    let marks = marks(&cleared);
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].kind, MarkKind::Micro);
    insta::assert_snapshot!(marks[0].text, @"micro-compaction: old tool results cleared · 182,113 → 141,020 tokens · cost gate: the prompt is written again anyway (cache cold, 6 min 12 s since the last request) · this request $0.0912 as is, $1.03 cleared; the 38 requests expected after it save $0.0231");
    // Unpriced: the figures are in reference units.
    let mut unpriced = request();
    unpriced.micro_compact = cleared.micro_compact;
    unpriced.micro_cost = Some(micro_cost(
        true,
        MicroCostReason::Unpriced,
        CacheState::Empty,
    ));
    assert!(
        marks_text(&unpriced).contains(
            "unpriced model, the tier's own rule (cache empty) · this request 0.0912 (reference prices) as is"
        ),
        "{}",
        marks_text(&unpriced)
    );
}

fn marks_text(request: &RequestUsage) -> String {
    marks(request)
        .into_iter()
        .map(|mark| mark.text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_compaction_gives_its_stage_reason_limit_and_summary_request() {
    let mut staged = request();
    let mut decision = compaction(
        DecisionPoint::AfterToolOutputs,
        CompactReason::MidTurn,
        CompactionTier::PartialOffline,
    );
    if let Some(figures) = &mut decision.compaction {
        figures.summary = Some(SummaryEstimate {
            input_tokens: 300_000,
            cached_tokens: 290_000,
            output_tokens: 10_000,
            cost_micro_usd: 512_500,
            guard: Some(agentctx_compact::SummaryGuard {
                limit_tokens: 200_000,
                tokens_before: 300_000,
                tokens_after: 198_000,
                outputs_cleared: 12,
                items_condensed: 1,
            }),
        });
    }
    staged.decisions = vec![decision];
    staged.auto_compact = Some(TierTrigger {
        tokens_before: 395_120,
        tokens_after: 61_400,
    });
    let marks = marks(&staged);
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].kind, MarkKind::Compaction);
    assert_eq!(marks[0].stage, "partial summary");
    insta::assert_snapshot!(marks[0].text, @"partial summary: the oldest part summarised offline, recent turns kept · mid-turn, after tool outputs: 395,120 tokens against the token budget of 380,000 · 395,120 → 61,400 tokens · summary request ≈ 300,000 tokens in (290,000 cached), 10,000 out, $0.5125; staged by the cost guard: 300,000 → 198,000 tokens (limit 200,000, 12 tool outputs cleared, 1 item condensed)");
}

#[test]
fn decisions_come_in_the_order_they_were_taken() {
    // A pre-turn mask stage, the request's clear, then a full compaction at the blocking
    // limit, which the session recorded too.
    let mut busy = request();
    busy.after_compaction = true;
    busy.micro_compact = Some(TierTrigger {
        tokens_before: 100_000,
        tokens_after: 90_000,
    });
    let mut blocking = compaction(
        DecisionPoint::BeforeRequest,
        CompactReason::Blocking,
        CompactionTier::FullModel,
    );
    blocking.trigger = None;
    busy.decisions = vec![
        compaction(
            DecisionPoint::BeforeTurn,
            CompactReason::PreTurn,
            CompactionTier::Mask,
        ),
        Decision {
            action: Action::Send,
            compaction: None,
            ..blocking
        },
        blocking,
    ];
    let kinds: Vec<(MarkKind, &str)> = marks(&busy)
        .iter()
        .map(|mark| (mark.kind, mark.stage))
        .collect();
    assert_eq!(
        kinds,
        [
            (MarkKind::Compaction, "mask stage"),
            (MarkKind::Micro, "micro-compaction"),
            (MarkKind::Compaction, "full compaction"),
        ]
    );
    let text = marks_text(&busy);
    assert!(
        text.ends_with(
            "full compaction, summary by the model · blocking limit: 395,120 tokens against the blocking limit of 380,000 · 395,120 → 61,400 tokens · the session compacted here too"
        ),
        "{text}"
    );
    // Nothing decided: no mark.
    assert_eq!(marks(&request()), []);
}
