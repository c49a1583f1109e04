use pretty_assertions::assert_eq;

use super::*;
use crate::ContextEngine;
use crate::EngineOptions;
use crate::HostState;
use crate::PreparedRequest;
use agentctx_protocol::ResponseItem;

/// An engine on a `window`-token window with no reminders, its history `words` words of user
/// text in `messages` messages.
fn engine_with(window: i64, messages: usize, words: usize) -> (tempfile::TempDir, ContextEngine) {
    let home = tempfile::tempdir().unwrap();
    let reminders = agentctx_reminders::SystemReminderConfig {
        enabled: false,
        ..Default::default()
    };
    let options = EngineOptions::new(
        home.path(),
        home.path(),
        "decisions",
        reminders,
        Default::default(),
    )
    .with_window(window, None);
    let mut engine = ContextEngine::new(options);
    let text = "word ".repeat(words);
    for _ in 0..messages {
        engine.record_items(&[ResponseItem::user_text(&text)]);
        engine.record_items(&[ResponseItem::assistant_text("ok")]);
    }
    (home, engine)
}

async fn prepare(engine: &mut ContextEngine) -> PreparedRequest {
    let host = HostState {
        requests: 1,
        ..HostState::default()
    };
    let context = engine.reminder_context(&host, false);
    engine.prepare_request(context).await
}

#[tokio::test]
async fn a_short_history_is_sent_and_needs_no_compaction() {
    let (_home, mut engine) = engine_with(200_000, 2, 10);
    let before_turn = engine.before_turn();
    assert_eq!(before_turn.point, DecisionPoint::BeforeTurn);
    assert_eq!(before_turn.action, Action::Continue);
    assert_eq!(before_turn.limit, engine.thresholds().auto_compact);
    let prepared = prepare(&mut engine).await;
    let decision = engine.decide_request(Some(&prepared), 100);
    assert_eq!(decision.action, Action::Send);
    assert_eq!(decision.limit, engine.thresholds().blocking);
    assert_eq!(decision.request, 1);
    assert!(decision.tokens >= engine.context_manager().estimate_token_count() + 100);
    assert_eq!(engine.after_tool_outputs().action, Action::Continue);
    let taken: Vec<DecisionPoint> = engine.take_decisions().iter().map(|d| d.point).collect();
    assert_eq!(
        taken,
        [
            DecisionPoint::BeforeTurn,
            DecisionPoint::BeforeRequest,
            DecisionPoint::AfterToolOutputs
        ]
    );
    assert!(engine.take_decisions().is_empty());
}

#[tokio::test]
async fn over_the_threshold_the_engine_asks_for_a_compaction_and_records_what_it_did() {
    // About 6,000 tokens of history on a 10,000-token window: over the auto-compact threshold.
    let (_home, mut engine) = engine_with(10_000, 6, 4_000);
    let decision = engine.before_turn();
    assert_eq!(
        decision.action,
        Action::Compact {
            reason: CompactReason::PreTurn
        }
    );
    assert!(decision.tokens >= decision.limit);
    let compaction = engine
        .compact(
            None,
            CompactReason::PreTurn,
            Vec::new(),
            "",
            &HostState::default(),
            1,
        )
        .await;
    let taken = engine.take_decisions();
    assert_eq!(taken.len(), 1);
    assert_eq!(
        taken[0].compaction,
        Some(CompactionFigures {
            tier: compaction.tier,
            tokens_before: compaction.tokens_before,
            tokens_after: compaction.tokens_after,
            summary: compaction.summary_estimate,
        })
    );
    assert!(compaction.tokens_after < compaction.tokens_before);
    // The compacted history is under the threshold.
    assert_eq!(engine.before_turn().action, Action::Continue);
}

#[tokio::test]
async fn a_blocked_request_compacts_once_then_fails_the_turn() {
    let (_home, mut engine) = engine_with(10_000, 1, 100);
    let prepared = prepare(&mut engine).await;
    // Instructions and tools of 9,000 tokens: no compaction of the history can make room.
    let decision = engine.decide_request(Some(&prepared), 9_000);
    assert_eq!(
        decision.action,
        Action::Compact {
            reason: CompactReason::Blocking
        }
    );
    engine
        .compact(
            None,
            CompactReason::Blocking,
            Vec::new(),
            "",
            &HostState::default(),
            1,
        )
        .await;
    let prepared = prepare(&mut engine).await;
    let again = engine.decide_request(Some(&prepared), 9_000);
    let Action::Fail(full) = again.action else {
        panic!("expected the turn to fail, got {again:?}");
    };
    assert_eq!(full.limit, engine.thresholds().blocking);
    assert_eq!(full.window_tokens, 10_000);
    assert!(full.prompt_tokens >= full.limit);
}

#[tokio::test]
async fn an_overflow_is_compacted_once_a_turn() {
    let (_home, mut engine) = engine_with(10_000, 1, 100);
    engine.before_turn();
    let refused = RequestFailure {
        context_window_exceeded: true,
        died_before_output: false,
        prompt_tokens: 100,
    };
    assert_eq!(
        engine.after_failure(refused).action,
        Action::Compact {
            reason: CompactReason::Overflow
        }
    );
    assert_eq!(engine.after_failure(refused).action, Action::Continue);
    // A new turn may compact an overflow again.
    engine.before_turn();
    assert_eq!(
        engine.after_failure(refused).compact_reason(),
        Some(CompactReason::Overflow)
    );
}

#[tokio::test]
async fn a_stream_that_died_early_is_an_overflow_only_on_a_large_prompt() {
    let (_home, mut engine) = engine_with(10_000, 1, 100);
    let effective = engine.window().effective_tokens();
    let small = RequestFailure {
        context_window_exceeded: false,
        died_before_output: true,
        prompt_tokens: effective * OVERFLOW_SUSPECT_PERCENT / 100 - 1,
    };
    assert_eq!(engine.after_failure(small).action, Action::Continue);
    let large = RequestFailure {
        prompt_tokens: effective * OVERFLOW_SUSPECT_PERCENT / 100,
        ..small
    };
    assert_eq!(
        engine.after_failure(large).compact_reason(),
        Some(CompactReason::Overflow)
    );
}

#[test]
fn a_decision_serializes_with_its_action_and_figures() {
    let decision = Decision {
        point: DecisionPoint::AfterToolOutputs,
        request: 4,
        tokens: 9_100,
        limit: 8_350,
        action: Action::Compact {
            reason: CompactReason::MidTurn,
        },
        trigger: Some(CompactTrigger::Budget),
        compaction: Some(CompactionFigures {
            tier: crate::CompactionTier::FullOffline,
            tokens_before: 9_100,
            tokens_after: 2_300,
            summary: Some(SummaryEstimate {
                input_tokens: 9_300,
                cached_tokens: 0,
                output_tokens: 10_000,
                cost_micro_usd: 177_900,
                guard: None,
            }),
        }),
    };
    assert_eq!(
        serde_json::to_value(decision).unwrap(),
        serde_json::json!({
            "point": "after_tool_outputs",
            "request": 4,
            "tokens": 9100,
            "limit": 8350,
            "action": "compact",
            "reason": "mid_turn",
            "trigger": "budget",
            "compaction": {
                "tier": "full_offline",
                "tokens_before": 9100,
                "tokens_after": 2300,
                "summary": {
                    "input_tokens": 9300,
                    "cached_tokens": 0,
                    "output_tokens": 10000,
                    "cost_micro_usd": 177900
                }
            }
        })
    );
    assert_eq!(CompactReason::MidTurn.point(), CompactPoint::MidTurn);
    assert_eq!(CompactReason::ModelSwitch.point(), CompactPoint::PreTurn);
}
