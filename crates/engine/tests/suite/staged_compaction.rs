//! Staged compaction at the token budget on a 1M-token window: old tool outputs are masked
//! first; when that does not bring the context down to 70% of the trigger, the oldest part is
//! summarised and the recent turns stay verbatim; the window's own trigger compacts in full.
//! Each decision records its trigger and the stage that sufficed.

use agentctx_compact::AutoCompactTokens;
use agentctx_compact::BudgetKeyword;
use agentctx_compact::CompactConfig;
use agentctx_engine::Action;
use agentctx_engine::CompactReason;
use agentctx_engine::CompactTrigger;
use agentctx_engine::CompactionTier;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::HostState;
use agentctx_engine::STAGE_TARGET_PERCENT;
use agentctx_engine::cost_model::CostModel;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

const WINDOW: i64 = 1_000_000;

fn engine(config: CompactConfig) -> (tempfile::TempDir, ContextEngine) {
    let home = tempfile::tempdir().unwrap();
    let reminders = agentctx_reminders::SystemReminderConfig {
        enabled: false,
        ..Default::default()
    };
    let options = EngineOptions::new(home.path(), home.path(), "staged", reminders, config)
        .with_window(WINDOW, Some(64_000));
    let mut engine = ContextEngine::for_replay(options, false);
    engine.set_cost_model(CostModel::for_model("claude-sonnet-4-5", None));
    (home, engine)
}

/// `turns` turns: a request, a shell call whose output is about `output_tokens` tokens, and
/// an answer of about `answer_tokens` tokens.
fn record_turns(
    engine: &mut ContextEngine,
    turns: usize,
    output_tokens: usize,
    answer_tokens: usize,
) {
    for n in 0..turns {
        let id = format!("call_{n}");
        // Four bytes a token, as our estimate counts.
        let output = "abc\n".repeat(output_tokens);
        engine.record_items(&[
            ResponseItem::user_text(format!("step {n}: fix file_{n}.rs")),
            ResponseItem::function_call(&id, "shell", format!(r#"{{"command":["cat","f{n}"]}}"#)),
            ResponseItem::function_call_output(&id, format!("Exit code: 0\nOutput:\n{output}")),
            ResponseItem::assistant_text(format!(
                "file_{n} fixed. {}",
                "plan".repeat(answer_tokens)
            )),
        ]);
    }
}

async fn compact_before_turn(engine: &mut ContextEngine) -> agentctx_engine::Decision {
    let decision = engine.before_turn();
    assert_eq!(
        decision.action,
        Action::Compact {
            reason: CompactReason::PreTurn
        }
    );
    engine
        .compact(
            None,
            CompactReason::PreTurn,
            Vec::new(),
            "You are a coding agent.",
            &HostState::default(),
            1,
        )
        .await;
    let decisions = engine.take_decisions();
    decisions
        .into_iter()
        .rev()
        .find(|decision| decision.compaction.is_some())
        .unwrap()
}

#[tokio::test]
async fn at_the_budget_old_outputs_are_masked_first_when_that_suffices() {
    let (_home, mut engine) = engine(CompactConfig::default());
    assert_eq!(engine.thresholds().auto_compact, 380_000);
    // Mostly tool outputs: 100 turns of 4,000 tokens of output and a short answer.
    record_turns(&mut engine, 100, 4_000, 20);
    let decision = compact_before_turn(&mut engine).await;
    assert_eq!(decision.trigger, Some(CompactTrigger::Budget));
    assert_eq!(decision.limit, 380_000);
    let figures = decision.compaction.unwrap();
    assert_eq!(figures.tier, CompactionTier::Mask);
    assert!(
        figures.tokens_after <= 380_000 * STAGE_TARGET_PERCENT / 100,
        "{figures:?}"
    );
    assert_eq!(figures.summary, None);
    // Every request and answer is still there; the old outputs are markers that name their
    // persisted file.
    let history = engine.history();
    assert_eq!(
        history
            .iter()
            .filter(|item| item.role() == Some("user"))
            .count(),
        100
    );
    let marked = history
        .iter()
        .filter(|item| item.is_tool_output())
        .filter(|item| {
            matches!(item, ResponseItem::FunctionCallOutput { output, .. }
                if output.text_content().contains("<persisted-output"))
        })
        .count();
    assert!(marked >= 90, "{marked}");
}

#[tokio::test]
async fn when_masking_does_not_suffice_the_oldest_part_is_summarised_and_the_rest_kept() {
    let (_home, mut engine) = engine(CompactConfig::default());
    // Mostly the model's own text, which no mask clears.
    record_turns(&mut engine, 100, 400, 4_000);
    let before: Vec<ResponseItem> = engine.history().to_vec();
    let decision = compact_before_turn(&mut engine).await;
    assert_eq!(decision.trigger, Some(CompactTrigger::Budget));
    let figures = decision.compaction.unwrap();
    assert_eq!(figures.tier, CompactionTier::PartialOffline);
    assert!(
        figures.tokens_after <= 380_000 * STAGE_TARGET_PERCENT / 100,
        "{figures:?}"
    );
    // The recent turns are verbatim after the summary: the last answer is the last item.
    let history = engine.history();
    assert_eq!(history.last(), before.last());
    let kept = history.iter().filter(|item| before.contains(item)).count();
    assert!(kept >= 4, "{kept}");
    // The summary request was priced before it would be sent.
    let summary = figures.summary.unwrap();
    assert!(summary.input_tokens > 300_000, "{summary:?}");
    assert_eq!(summary.cached_tokens, 0);
    assert_eq!(summary.output_tokens, 10_000);
    // Sonnet 4.5: over 300,000 tokens written at $3.75 a million is over $1.
    assert!(summary.cost_micro_usd > 1_000_000, "{summary:?}");
}

#[tokio::test]
async fn the_windows_own_trigger_compacts_in_full() {
    let config = CompactConfig {
        auto_compact_tokens: AutoCompactTokens::Keyword(BudgetKeyword::Off),
        ..CompactConfig::default()
    };
    let (_home, mut engine) = engine(config);
    record_turns(&mut engine, 120, 5_000, 4_500);
    let decision = compact_before_turn(&mut engine).await;
    assert_eq!(decision.trigger, Some(CompactTrigger::Window));
    assert_eq!(
        decision.compaction.unwrap().tier,
        CompactionTier::FullOffline
    );
}

#[tokio::test]
async fn with_stages_off_the_budget_compacts_in_full() {
    let mut config = CompactConfig::default();
    config.staged.enabled = false;
    let (_home, mut engine) = engine(config);
    record_turns(&mut engine, 100, 4_000, 20);
    let decision = compact_before_turn(&mut engine).await;
    assert_eq!(decision.trigger, Some(CompactTrigger::Budget));
    assert_eq!(
        decision.compaction.unwrap().tier,
        CompactionTier::FullOffline
    );
}
