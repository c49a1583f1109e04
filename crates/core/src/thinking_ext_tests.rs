use agentctx_engine::replay::RECORDED_REASONING_FIELD;
use agentctx_model::ReasoningEffort;
use agentctx_model::ReasoningOptions;
use agentctx_model::ReasoningSummaryMode;
use agentctx_model::ScriptedModelClient;
use agentctx_model::thinking::ThinkingEnvOverride;
use agentctx_model::thinking::ThinkingSource;
use agentctx_protocol::ThinkingLevel;
use agentctx_protocol::TurnContextItem;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::*;

#[test]
fn the_environment_wins_over_a_keyword_and_the_keyword_over_the_settings() {
    let model = ScriptedModelClient::new("gpt-5");
    let mut options = ThinkingOptions {
        per_turn: Some(ThinkingConfig {
            level: ThinkingLevel::DeepThink,
            ..ThinkingConfig::default()
        }),
        ..ThinkingOptions::default()
    };
    let toggle = ThinkingState::new();
    let keyword = turn_thinking(&options, toggle, "ultrathink it", &model);
    assert_eq!(keyword.result.source, ThinkingSource::Keyword);
    assert_eq!(keyword.result.level, ThinkingLevel::UltraThink);
    let plain = turn_thinking(&options, toggle, "just do it", &model);
    assert_eq!(plain.result.source, ThinkingSource::PerTurnOverride);
    assert_eq!(plain.result.level, ThinkingLevel::DeepThink);
    options.env = ThinkingEnvOverride {
        level: Some(ThinkingLevel::None),
        ..ThinkingEnvOverride::default()
    };
    let forced = turn_thinking(&options, toggle, "ultrathink it", &model);
    assert_eq!(forced.result.source, ThinkingSource::EnvOverride);
    assert_eq!(forced.reasoning, None);
}

#[test]
fn recording_writes_codex_fields_and_the_whole_parameters_and_nothing_without_reasoning() {
    let mut context = TurnContextItem::default();
    record_reasoning(&mut context, None);
    assert_eq!(context, TurnContextItem::default());
    let reasoning = ReasoningOptions {
        effort: Some(ReasoningEffort::High),
        summary: Some(ReasoningSummaryMode::Auto),
        ..ReasoningOptions::default()
    };
    record_reasoning(&mut context, Some(&reasoning));
    assert_eq!(context.effort, Some(Value::String("high".to_string())));
    assert_eq!(context.summary, Some(Value::String("auto".to_string())));
    let recorded = context
        .extra
        .get(RECORDED_REASONING_FIELD)
        .cloned()
        .unwrap();
    assert_eq!(
        serde_json::from_value::<ReasoningOptions>(recorded).unwrap(),
        reasoning
    );
    // The replay reads back what was recorded.
    assert_eq!(
        agentctx_engine::replay::recorded_reasoning(&context),
        Some(reasoning)
    );
}
