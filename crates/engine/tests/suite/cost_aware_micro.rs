//! The cost-aware policy on a 1M-token window, driven with recorded time: a micro clear that
//! would break a warm prompt cache for less than it saves is not applied, the same clear is
//! applied once the cache has expired, and the token budget compacts long before the window's
//! own trigger.

use agentctx_compact::AutoCompactTokens;
use agentctx_compact::BudgetKeyword;
use agentctx_compact::CompactConfig;
use agentctx_engine::Action;
use agentctx_engine::CompactReason;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::HostState;
use agentctx_engine::MicroCostReason;
use agentctx_engine::PreparedRequest;
use agentctx_engine::cost_model::CacheState;
use agentctx_engine::cost_model::CostModel;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

const WINDOW: i64 = 1_000_000;
const START: &str = "2025-11-24T09:00:00Z";

fn engine(config: CompactConfig) -> (tempfile::TempDir, ContextEngine) {
    let home = tempfile::tempdir().unwrap();
    let reminders = agentctx_reminders::SystemReminderConfig {
        enabled: false,
        ..Default::default()
    };
    let options = EngineOptions::new(home.path(), home.path(), "cost", reminders, config)
        .with_window(WINDOW, Some(64_000));
    let mut engine = ContextEngine::for_replay(options, false);
    engine.set_cost_model(CostModel::for_model("claude-sonnet-4-5", None));
    engine.record_items(&[ResponseItem::user_text("fix the tests")]);
    (home, engine)
}

/// The recorded time `secs` after the start.
fn at(engine: &mut ContextEngine, secs: i64) {
    let start = chrono::DateTime::parse_from_rfc3339(START).unwrap();
    let time = (start + chrono::Duration::seconds(secs)).to_rfc3339();
    engine.observe_recorded_time(&time);
}

/// A shell call and its output of about `tokens` tokens.
fn tool_call(engine: &mut ContextEngine, n: usize, tokens: usize) {
    let id = format!("call_{n}");
    let output: String = (0..tokens / 10)
        .map(|line| format!("src/file_{n}.rs:{line}: x\n"))
        .collect();
    engine.record_items(&[
        ResponseItem::function_call(&id, "shell", format!(r#"{{"command":["cat","f{n}"]}}"#)),
        ResponseItem::function_call_output(&id, format!("Exit code: 0\nOutput:\n{output}")),
    ]);
}

async fn prepare(engine: &mut ContextEngine) -> PreparedRequest {
    let host = HostState {
        requests: 1,
        ..HostState::default()
    };
    let context = engine.reminder_context(&host, false);
    engine.prepare_request(context).await
}

/// Requests 30 seconds apart, each after one tool call of 3,000 tokens and the model's 12,000
/// tokens of text (which no tier clears), until the tier finds a clear worthwhile: the
/// prepared request that priced it.
async fn until_priced(engine: &mut ContextEngine) -> (usize, PreparedRequest) {
    for n in 0..100 {
        at(engine, 30 * i64::try_from(n).unwrap());
        tool_call(engine, n, 3_000);
        engine.record_items(&[ResponseItem::assistant_text("plan ".repeat(12_000))]);
        let prepared = prepare(engine).await;
        if prepared.micro_cost.is_some() || prepared.micro.is_some() {
            return (n, prepared);
        }
    }
    panic!("the tier never found a clear worthwhile");
}

#[tokio::test]
async fn a_warm_cache_is_not_broken_by_a_clear_that_does_not_pay_and_a_cold_one_is_cleared() {
    let (_home, mut engine) = engine(CompactConfig::default());
    let (n, warm) = until_priced(&mut engine).await;
    let decision = warm.micro_cost.expect("the clear was priced");
    assert_eq!(warm.micro, None, "{decision:?}");
    assert!(!decision.clear);
    assert_eq!(decision.reason, MicroCostReason::DoesNotPay);
    assert_eq!(decision.cache, CacheState::Warm);
    assert_eq!(decision.gap_ms, Some(30_000));
    assert!(decision.tokens_saved >= 20_000);
    // The clear would have rewritten nearly the whole prompt for a few requests' saving.
    assert!(decision.prompt_tokens > 250_000, "{decision:?}");
    assert!(decision.prefix_tokens < 20_000, "{decision:?}");
    assert!(decision.clear_micro_usd > decision.send_as_is_micro_usd);
    assert!(
        decision.clear_micro_usd - decision.send_as_is_micro_usd
            > decision.remaining_saving_micro_usd
    );

    // The next request within the cache's lifetime keeps them too, on the kept plan.
    at(&mut engine, 30 * i64::try_from(n + 1).unwrap());
    tool_call(&mut engine, n + 1, 3_000);
    let next = prepare(&mut engine).await;
    assert_eq!(next.micro, None);
    assert_eq!(next.micro_cost.map(|cost| cost.clear), Some(false));

    // Six minutes later the 5-minute cache has expired: the same results are cleared.
    at(&mut engine, 30 * i64::try_from(n + 1).unwrap() + 360);
    let cold = prepare(&mut engine).await;
    let decision = cold.micro_cost.expect("the clear was priced");
    assert_eq!(decision.reason, MicroCostReason::CacheCold);
    assert_eq!(decision.cache, CacheState::Cold);
    assert!(decision.clear);
    let micro = cold.micro.expect("cleared under a cold cache");
    assert!(micro.tokens_before - micro.tokens_after >= 20_000);
}

#[tokio::test]
async fn without_the_cost_model_the_same_session_clears_under_a_warm_cache() {
    let mut config = CompactConfig::default();
    config.micro.cost_aware = false;
    let (_home, mut engine) = engine(config);
    let (_, warm) = until_priced(&mut engine).await;
    assert!(warm.micro.is_some());
    // The clear is still reported on the cost model's terms: it did not pay.
    let decision = warm.micro_cost.expect("an applied clear is priced");
    assert!(decision.clear);
    assert_eq!(decision.reason, MicroCostReason::DoesNotPay);
    assert_eq!(decision.cache, CacheState::Warm);
    assert!(decision.prefix_tokens < 20_000, "{decision:?}");
}

#[tokio::test]
async fn the_token_budget_compacts_a_1m_window_long_before_its_own_trigger() {
    let (_home, mut engine) = engine(CompactConfig::default());
    let thresholds = engine.thresholds();
    // Sonnet's prices: compaction pays back within 4 requests from 373,334 tokens on.
    assert_eq!(thresholds.auto_compact, 380_000);
    assert!(thresholds.blocking > 900_000);
    for n in 0..130 {
        engine.record_items(&[ResponseItem::user_text("word ".repeat(3_000))]);
        engine.record_items(&[ResponseItem::assistant_text(format!("step {n}"))]);
    }
    let used = engine.context_usage().used_tokens();
    assert!(used > 380_000 && used < 900_000, "{used}");
    let decision = engine.before_turn();
    assert_eq!(
        decision.action,
        Action::Compact {
            reason: CompactReason::PreTurn
        }
    );
    assert_eq!(decision.limit, 380_000);

    // With the budget off, only the window's trigger counts.
    let config = CompactConfig {
        auto_compact_tokens: AutoCompactTokens::Keyword(BudgetKeyword::Off),
        ..CompactConfig::default()
    };
    let (_home, mut engine) = self::engine(config);
    for n in 0..130 {
        engine.record_items(&[ResponseItem::user_text("word ".repeat(3_000))]);
        engine.record_items(&[ResponseItem::assistant_text(format!("step {n}"))]);
    }
    assert!(engine.thresholds().auto_compact > 900_000);
    assert_eq!(engine.before_turn().action, Action::Continue);

    // A budget set in tokens wins over the cost model's.
    let config = CompactConfig {
        auto_compact_tokens: AutoCompactTokens::Tokens(250_000),
        ..CompactConfig::default()
    };
    let (_home, engine) = self::engine(config);
    assert_eq!(engine.thresholds().auto_compact, 250_000);
}

#[tokio::test]
async fn a_clear_that_pays_waits_until_earlier_clears_have_banked_its_rewrite() {
    // OpenAI's rules (the prefix before the first cleared result stays cached) on a context
    // made of tool results: clears pay over the expected requests.
    let (_home, mut engine) = engine(CompactConfig::default());
    engine.set_cost_model(CostModel::for_model("gpt-5.1-codex", None));
    let mut secs = 0;
    let mut reasons = Vec::new();
    for n in 0..90 {
        // A pause of 15 minutes before the 45th call: the cache expires.
        secs += if n == 45 { 900 } else { 30 };
        at(&mut engine, secs);
        tool_call(&mut engine, n, 3_000);
        let prepared = prepare(&mut engine).await;
        if let Some(decision) = prepared.micro_cost {
            assert_eq!(decision.clear, prepared.micro.is_some(), "{decision:?}");
            reasons.push((n, decision.reason));
        }
    }
    let first_cold = reasons
        .iter()
        .position(|(_, reason)| *reason == MicroCostReason::CacheCold)
        .unwrap_or_else(|| panic!("the pause lets a clear through: {reasons:?}"));
    // Before the pause, clears that would pay were not covered yet.
    assert!(
        reasons[..first_cold]
            .iter()
            .any(|(_, reason)| *reason == MicroCostReason::NotYetCovered),
        "{reasons:?}"
    );
    assert!(
        reasons[..first_cold]
            .iter()
            .all(|(_, reason)| *reason != MicroCostReason::PaysBack),
        "{reasons:?}"
    );
    // After it, what the cold clear saved covers warm clears.
    assert!(
        reasons[first_cold..]
            .iter()
            .any(|(_, reason)| *reason == MicroCostReason::PaysBack),
        "{reasons:?}"
    );
}

/// A model the price table does not know (a local server) bills nothing: the gate lets the
/// tier's clear through under a warm cache, so a small window is not filled by results kept to
/// save money nobody spends.
#[tokio::test]
async fn a_model_the_table_does_not_know_is_cleared_as_the_tier_says() {
    let (_home, mut engine) = engine(CompactConfig::default());
    engine.set_cost_model(CostModel::for_model("SmolLM2-135M-Instruct-local", None));
    assert!(!engine.cost_model().is_priced());
    let (_, prepared) = until_priced(&mut engine).await;
    let decision = prepared.micro_cost.expect("the clear was recorded");
    assert!(decision.clear, "{decision:?}");
    assert_eq!(decision.reason, MicroCostReason::Unpriced);
    assert_eq!(decision.cache, CacheState::Warm);
    assert!(prepared.micro.is_some());
}
