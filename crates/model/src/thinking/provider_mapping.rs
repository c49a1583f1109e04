//! From a thinking level to provider parameters, as the level table of docs/design/model-providers.md says:
//!
//! | level      | Anthropic      | OpenAI       | Gemini      |
//! |------------|----------------|--------------|-------------|
//! | DeepThink  | 10K-20K budget | high effort  | medium/high |
//! | UltraThink | 32K-64K budget | xhigh effort | high        |
//!
//! The OpenAI effort is what the level asks for; not every model takes it (`xhigh` exists only
//! from gpt-5.1-codex-max on). The transport clamps it to the model's accepted efforts (the
//! model table, or `reasoning_efforts` of the model's configuration) with a warning, so a
//! level never turns into a 400. See docs/design/model-providers.md, "Thinking levels and the capability table".

use std::ops::RangeInclusive;

use agentctx_protocol::ThinkingLevel;

use crate::prompt::ReasoningEffort;
use crate::prompt::ReasoningOptions;
use crate::prompt::ReasoningSummaryMode;
use crate::provider_config::WireApi;
use crate::thinking::ThinkingResult;

/// The Anthropic budget range for DeepThink (docs/design/model-providers.md).
pub const ANTHROPIC_DEEP_THINK_BUDGET_RANGE: RangeInclusive<i32> = 10_000..=20_000;
/// The Anthropic budget range for UltraThink (docs/design/model-providers.md).
pub const ANTHROPIC_ULTRA_THINK_BUDGET_RANGE: RangeInclusive<i32> = 32_000..=64_000;
/// The smallest `budget_tokens` the Anthropic API accepts.
pub const ANTHROPIC_MIN_BUDGET_TOKENS: i32 = 1_024;

/// Keeps a configured (not explicitly requested) budget inside the level's range.
pub(crate) fn clamp_to_spec_range(level: ThinkingLevel, budget: i32) -> i32 {
    let range = match level {
        ThinkingLevel::None => return budget,
        ThinkingLevel::DeepThink => ANTHROPIC_DEEP_THINK_BUDGET_RANGE,
        ThinkingLevel::UltraThink => ANTHROPIC_ULTRA_THINK_BUDGET_RANGE,
    };
    budget.clamp(*range.start(), *range.end())
}

/// Anthropic `thinking.budget_tokens`: the result's budget (the default of the level's range
/// when none was resolved), never below the API minimum; `None` when thinking is off.
pub fn anthropic_budget_tokens(result: &ThinkingResult) -> Option<i32> {
    let default = match result.level {
        ThinkingLevel::None => return None,
        ThinkingLevel::DeepThink => crate::thinking::BudgetByLevel::default().deep_think,
        ThinkingLevel::UltraThink => crate::thinking::BudgetByLevel::default().ultra_think,
    };
    Some(
        result
            .budget_tokens
            .unwrap_or(default)
            .max(ANTHROPIC_MIN_BUDGET_TOKENS),
    )
}

/// OpenAI reasoning effort: DeepThink → `high`, UltraThink → `xhigh`, None → none (before the
/// transport clamps it to what the model accepts).
pub fn openai_reasoning_effort(level: ThinkingLevel) -> Option<ReasoningEffort> {
    match level {
        ThinkingLevel::None => None,
        ThinkingLevel::DeepThink => Some(ReasoningEffort::High),
        ThinkingLevel::UltraThink => Some(ReasoningEffort::XHigh),
    }
}

/// Gemini `thinking_level` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeminiThinkingLevel {
    /// `medium`.
    Medium,
    /// `high`.
    High,
}

impl GeminiThinkingLevel {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

/// Gemini thinking level: DeepThink → `medium` where the model offers it, else `high` (the
/// table's "Medium/High"); UltraThink → `high`; None → none.
pub fn gemini_thinking_level(
    level: ThinkingLevel,
    model_supports_medium: bool,
) -> Option<GeminiThinkingLevel> {
    match level {
        ThinkingLevel::None => None,
        ThinkingLevel::DeepThink if model_supports_medium => Some(GeminiThinkingLevel::Medium),
        ThinkingLevel::DeepThink | ThinkingLevel::UltraThink => Some(GeminiThinkingLevel::High),
    }
}

/// The request parameters for a wire API, or `None` when the request should carry no thinking
/// parameters (not explicit, or the level is `None`, leaving the provider's default).
pub fn reasoning_options_for(
    result: &ThinkingResult,
    wire_api: WireApi,
) -> Option<ReasoningOptions> {
    if !result.explicit || result.level == ThinkingLevel::None {
        return None;
    }
    Some(match wire_api {
        WireApi::Responses => ReasoningOptions {
            effort: openai_reasoning_effort(result.level),
            summary: Some(ReasoningSummaryMode::Auto),
            ..ReasoningOptions::default()
        },
        WireApi::Chat => ReasoningOptions {
            effort: openai_reasoning_effort(result.level),
            ..ReasoningOptions::default()
        },
        WireApi::Anthropic => ReasoningOptions {
            budget_tokens: anthropic_budget_tokens(result),
            interleaved: result.interleaved,
            ..ReasoningOptions::default()
        },
    })
}

#[cfg(test)]
#[path = "provider_mapping_tests.rs"]
mod tests;
