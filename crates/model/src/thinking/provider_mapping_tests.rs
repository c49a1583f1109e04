use pretty_assertions::assert_eq;

use super::*;
use crate::thinking::ThinkingSource;

fn result(level: ThinkingLevel, budget_tokens: Option<i32>) -> ThinkingResult {
    ThinkingResult {
        level,
        budget_tokens,
        keyword_detected: None,
        source: ThinkingSource::Keyword,
        explicit: true,
        interleaved: false,
    }
}

#[test]
fn the_spec_table() {
    // Anthropic budgets: the defaults lie in the table's ranges.
    let deep = anthropic_budget_tokens(&result(ThinkingLevel::DeepThink, None)).unwrap();
    let ultra = anthropic_budget_tokens(&result(ThinkingLevel::UltraThink, None)).unwrap();
    assert!(ANTHROPIC_DEEP_THINK_BUDGET_RANGE.contains(&deep), "{deep}");
    assert!(
        ANTHROPIC_ULTRA_THINK_BUDGET_RANGE.contains(&ultra),
        "{ultra}"
    );
    assert_eq!((deep, ultra), (16_000, 32_000));
    assert_eq!(
        anthropic_budget_tokens(&result(ThinkingLevel::None, Some(5))),
        None
    );
    // OpenAI effort.
    assert_eq!(
        openai_reasoning_effort(ThinkingLevel::DeepThink),
        Some(ReasoningEffort::High)
    );
    assert_eq!(
        openai_reasoning_effort(ThinkingLevel::UltraThink),
        Some(ReasoningEffort::XHigh)
    );
    assert_eq!(openai_reasoning_effort(ThinkingLevel::None), None);
    // Gemini thinking level.
    assert_eq!(
        gemini_thinking_level(ThinkingLevel::DeepThink, true),
        Some(GeminiThinkingLevel::Medium)
    );
    assert_eq!(
        gemini_thinking_level(ThinkingLevel::DeepThink, false),
        Some(GeminiThinkingLevel::High)
    );
    assert_eq!(
        gemini_thinking_level(ThinkingLevel::UltraThink, true),
        Some(GeminiThinkingLevel::High)
    );
    assert_eq!(gemini_thinking_level(ThinkingLevel::None, true), None);
    assert_eq!(GeminiThinkingLevel::Medium.as_str(), "medium");
}

#[test]
fn explicit_budgets_are_kept_above_the_api_minimum() {
    assert_eq!(
        anthropic_budget_tokens(&result(ThinkingLevel::DeepThink, Some(500))),
        Some(1_024)
    );
    assert_eq!(
        anthropic_budget_tokens(&result(ThinkingLevel::DeepThink, Some(5_000))),
        Some(5_000)
    );
}

#[test]
fn options_per_wire_api() {
    let ultra = ThinkingResult {
        interleaved: true,
        ..result(ThinkingLevel::UltraThink, Some(40_000))
    };
    assert_eq!(
        reasoning_options_for(&ultra, WireApi::Responses),
        Some(ReasoningOptions {
            effort: Some(ReasoningEffort::XHigh),
            summary: Some(ReasoningSummaryMode::Auto),
            budget_tokens: None,
            interleaved: false,
        })
    );
    assert_eq!(
        reasoning_options_for(&ultra, WireApi::Chat),
        Some(ReasoningOptions {
            effort: Some(ReasoningEffort::XHigh),
            ..ReasoningOptions::default()
        })
    );
    assert_eq!(
        reasoning_options_for(&ultra, WireApi::Anthropic),
        Some(ReasoningOptions {
            budget_tokens: Some(40_000),
            interleaved: true,
            ..ReasoningOptions::default()
        })
    );
    let not_explicit = ThinkingResult {
        explicit: false,
        ..result(ThinkingLevel::DeepThink, None)
    };
    assert_eq!(
        reasoning_options_for(&not_explicit, WireApi::Responses),
        None
    );
    assert_eq!(
        reasoning_options_for(&result(ThinkingLevel::None, None), WireApi::Anthropic),
        None
    );
}

#[test]
fn capability_constrain() {
    let only_ultra = crate::thinking::ThinkingCapabilityOverride {
        supported_levels: vec![ThinkingLevel::UltraThink],
        ..Default::default()
    };
    assert_eq!(
        only_ultra.constrain(ThinkingLevel::DeepThink),
        ThinkingLevel::UltraThink
    );
    assert_eq!(
        only_ultra.constrain(ThinkingLevel::None),
        ThinkingLevel::None
    );
    let none_only = crate::thinking::ThinkingCapabilityOverride {
        supported_levels: vec![ThinkingLevel::None],
        ..Default::default()
    };
    assert_eq!(
        none_only.constrain(ThinkingLevel::UltraThink),
        ThinkingLevel::None
    );
}
