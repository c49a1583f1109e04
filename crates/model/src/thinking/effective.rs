//! The 7-step priority chain that decides the effective thinking level of a turn.

use agentctx_protocol::ThinkingLevel;

use crate::model_info::ModelInfo;
use crate::thinking::ThinkingCapabilityOverride;
use crate::thinking::ThinkingConfig;
use crate::thinking::ThinkingEnvOverride;
use crate::thinking::ThinkingSettings;
use crate::thinking::ThinkingState;
use crate::thinking::detect_thinking_keyword;
use crate::thinking::provider_mapping::clamp_to_spec_range;

/// Which step of the priority chain decided the level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThinkingSource {
    /// 1. `COCODE_THINKING_LEVEL` / `COCODE_MAX_THINKING_TOKENS`.
    EnvOverride,
    /// 2. A keyword in the message ("ultrathink" > "deepthink").
    Keyword,
    /// 3. The session hotkey toggle.
    SessionToggle,
    /// 4. A per-turn override.
    PerTurnOverride,
    /// 5. The global config (`[thinking] default_level`).
    GlobalConfig,
    /// 6. The model's default (capability override, model info, or `auto_enable`).
    ModelDefault,
    /// 7. Nothing chose: no thinking.
    Fallback,
}

/// The effective thinking of one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkingResult {
    /// The level after capability constraints.
    pub level: ThinkingLevel,
    /// The budget in tokens; `None` when the level is `None`.
    pub budget_tokens: Option<i32>,
    /// The keyword that chose the level, when step 2 decided.
    pub keyword_detected: Option<String>,
    /// Which step decided.
    pub source: ThinkingSource,
    /// Whether the request should carry thinking parameters: true when a level is on, or when a
    /// user-facing source (steps 1-5) chose `None` explicitly.
    pub explicit: bool,
    /// Anthropic interleaved thinking (beta).
    pub interleaved: bool,
}

/// Everything the priority chain reads.
#[derive(Debug, Clone, Copy)]
pub struct ThinkingInputs<'a> {
    /// The user's message of this turn (keyword detection).
    pub message: &'a str,
    /// Environment overrides (step 1).
    pub env: &'a ThinkingEnvOverride,
    /// The session toggle (step 3).
    pub session_state: &'a ThinkingState,
    /// The per-turn override (step 4).
    pub per_turn_config: Option<&'a ThinkingConfig>,
    /// The `[thinking]` settings: global default (step 5), keywords, budgets, `auto_enable`.
    pub settings: &'a ThinkingSettings,
    /// The model (step 6 and `supports_reasoning`).
    pub model_info: &'a ModelInfo,
    /// A provider-level capability override; when `None`, `model_info.thinking_override` is used.
    pub provider_ext: Option<&'a ThinkingCapabilityOverride>,
}

/// Computes the effective thinking of a turn.
///
/// The first source that has an opinion wins: env, keyword, session toggle, per-turn override,
/// global config, model default, fallback. The level is then constrained by the model: a model
/// with `supports_reasoning = false` gets `None`, and `supported_levels` downgrades the level (see
/// [`ThinkingCapabilityOverride::constrain`]). The environment override is a forcing knob and is
/// not constrained. Budgets come from an explicit budget of the deciding source, else the model's
/// `budget_by_level`, else `[thinking.budgets]` (kept inside the Anthropic range of docs/design/model-providers.md
/// for the level), and are capped by `max_budget`.
pub fn compute_effective_thinking(inputs: &ThinkingInputs<'_>) -> ThinkingResult {
    let caps = inputs
        .provider_ext
        .or(inputs.model_info.thinking_override.as_ref());
    let settings = inputs.settings;
    let base_interleaved = inputs.env.interleaved.unwrap_or(settings.interleaved);

    if inputs.env.is_active() {
        return env_result(inputs.env, settings, base_interleaved);
    }

    let mut keyword_detected = None;
    let mut explicit_budget = None;
    let mut interleaved = base_interleaved;
    let (requested, source) = if let Some((level, keyword)) =
        detect_thinking_keyword(inputs.message, &settings.keywords)
    {
        keyword_detected = Some(keyword);
        (level, ThinkingSource::Keyword)
    } else if let Some(level) = inputs.session_state.current_level() {
        (level, ThinkingSource::SessionToggle)
    } else if let Some(config) = inputs.per_turn_config {
        explicit_budget = config.budget_tokens;
        interleaved = interleaved || config.interleaved;
        (config.level, ThinkingSource::PerTurnOverride)
    } else if let Some(config) = settings.global_config() {
        (config.level, ThinkingSource::GlobalConfig)
    } else if let Some(level) = model_default(inputs.model_info, caps, settings) {
        (level, ThinkingSource::ModelDefault)
    } else {
        (ThinkingLevel::None, ThinkingSource::Fallback)
    };

    let level = if inputs.model_info.may_reason() {
        caps.map_or(requested, |caps| caps.constrain(requested))
    } else {
        ThinkingLevel::None
    };
    let budget_tokens = budget_for(level, explicit_budget, caps, settings);
    let explicit = level != ThinkingLevel::None
        || !matches!(
            source,
            ThinkingSource::ModelDefault | ThinkingSource::Fallback
        );
    ThinkingResult {
        level,
        budget_tokens,
        keyword_detected,
        source,
        explicit,
        interleaved: interleaved && level != ThinkingLevel::None,
    }
}

fn env_result(
    env: &ThinkingEnvOverride,
    settings: &ThinkingSettings,
    interleaved: bool,
) -> ThinkingResult {
    let level = match (env.max_tokens, env.level) {
        (Some(0), _) => ThinkingLevel::None,
        (_, Some(level)) => level,
        (Some(tokens), None) if tokens >= settings.budgets.ultra_think => ThinkingLevel::UltraThink,
        (Some(_), None) => ThinkingLevel::DeepThink,
        (None, None) => ThinkingLevel::None,
    };
    let budget_tokens = if level == ThinkingLevel::None {
        None
    } else {
        env.max_tokens
            .filter(|tokens| *tokens > 0)
            .or_else(|| settings.budgets.for_level(level))
    };
    ThinkingResult {
        level,
        budget_tokens,
        keyword_detected: None,
        source: ThinkingSource::EnvOverride,
        explicit: true,
        interleaved: interleaved && level != ThinkingLevel::None,
    }
}

fn model_default(
    model_info: &ModelInfo,
    caps: Option<&ThinkingCapabilityOverride>,
    settings: &ThinkingSettings,
) -> Option<ThinkingLevel> {
    caps.and_then(|caps| caps.default_level)
        .or(model_info.default_thinking_level)
        .or_else(|| {
            (settings.auto_enable && model_info.supports_reasoning == Some(true))
                .then_some(ThinkingLevel::DeepThink)
        })
}

fn budget_for(
    level: ThinkingLevel,
    explicit_budget: Option<i32>,
    caps: Option<&ThinkingCapabilityOverride>,
    settings: &ThinkingSettings,
) -> Option<i32> {
    let configured = || match caps.and_then(|caps| caps.budget_by_level) {
        Some(by_level) => by_level.for_level(level),
        None => settings
            .budgets
            .for_level(level)
            .map(|budget| clamp_to_spec_range(level, budget)),
    };
    let budget = explicit_budget.or_else(configured)?;
    if level == ThinkingLevel::None {
        return None;
    }
    Some(match caps.and_then(|caps| caps.max_budget) {
        Some(max) => budget.min(max),
        None => budget,
    })
}

#[cfg(test)]
#[path = "effective_tests.rs"]
mod tests;
