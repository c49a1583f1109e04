//! One test per source of the priority chain, each showing that source beats every lower one,
//! plus capability constraints and budgets.

use pretty_assertions::assert_eq;

use super::*;
use crate::thinking::BudgetByLevel;

/// Every source set, each to a different opinion, so a test removes the higher ones.
struct Fixture {
    env: ThinkingEnvOverride,
    state: ThinkingState,
    per_turn: Option<ThinkingConfig>,
    settings: ThinkingSettings,
    model_info: ModelInfo,
}

impl Fixture {
    fn all_sources() -> Self {
        let mut state = ThinkingState::new();
        state.set_level(Some(ThinkingLevel::DeepThink));
        Self {
            env: ThinkingEnvOverride {
                level: Some(ThinkingLevel::UltraThink),
                max_tokens: Some(40_000),
                interleaved: None,
            },
            state,
            per_turn: Some(ThinkingConfig {
                level: ThinkingLevel::UltraThink,
                budget_tokens: Some(50_000),
                interleaved: false,
            }),
            settings: ThinkingSettings {
                default_level: Some(ThinkingLevel::DeepThink),
                ..ThinkingSettings::default()
            },
            model_info: ModelInfo {
                default_thinking_level: Some(ThinkingLevel::UltraThink),
                ..ModelInfo::default()
            },
        }
    }

    fn compute(&self, message: &str) -> ThinkingResult {
        compute_effective_thinking(&ThinkingInputs {
            message,
            env: &self.env,
            session_state: &self.state,
            per_turn_config: self.per_turn.as_ref(),
            settings: &self.settings,
            model_info: &self.model_info,
            provider_ext: None,
        })
    }
}

#[test]
fn step_1_env_override_beats_everything() {
    let fixture = Fixture::all_sources();
    assert_eq!(
        fixture.compute("deepthink please"),
        ThinkingResult {
            level: ThinkingLevel::UltraThink,
            budget_tokens: Some(40_000),
            keyword_detected: None,
            source: ThinkingSource::EnvOverride,
            explicit: true,
            interleaved: false,
        }
    );
}

#[test]
fn step_1_env_zero_tokens_disables_thinking() {
    let mut fixture = Fixture::all_sources();
    fixture.env = ThinkingEnvOverride::from_env(&|name| {
        (name == crate::thinking::ENV_MAX_THINKING_TOKENS).then(|| "0".to_string())
    });
    let result = fixture.compute("ultrathink");
    assert_eq!(
        (result.level, result.budget_tokens, result.source),
        (ThinkingLevel::None, None, ThinkingSource::EnvOverride)
    );
    assert!(result.explicit);
}

#[test]
fn step_2_keyword_beats_toggle_and_below() {
    let mut fixture = Fixture::all_sources();
    fixture.env = ThinkingEnvOverride::default();
    fixture.state.set_level(Some(ThinkingLevel::None));
    let result = fixture.compute("Ultrathink: why does this deadlock?");
    assert_eq!(
        result,
        ThinkingResult {
            level: ThinkingLevel::UltraThink,
            budget_tokens: Some(32_000),
            keyword_detected: Some("ultrathink".to_string()),
            source: ThinkingSource::Keyword,
            explicit: true,
            interleaved: false,
        }
    );
}

#[test]
fn step_3_session_toggle_beats_per_turn_and_below() {
    let mut fixture = Fixture::all_sources();
    fixture.env = ThinkingEnvOverride::default();
    let result = fixture.compute("no keyword here");
    assert_eq!(
        (result.level, result.source, result.budget_tokens),
        (
            ThinkingLevel::DeepThink,
            ThinkingSource::SessionToggle,
            Some(16_000)
        )
    );
    // Toggled to None is an explicit "off".
    fixture.state.set_level(Some(ThinkingLevel::None));
    let off = fixture.compute("no keyword here");
    assert_eq!(
        (off.level, off.source, off.explicit),
        (ThinkingLevel::None, ThinkingSource::SessionToggle, true)
    );
}

#[test]
fn step_4_per_turn_override_beats_global_and_below() {
    let mut fixture = Fixture::all_sources();
    fixture.env = ThinkingEnvOverride::default();
    fixture.state = ThinkingState::new();
    let result = fixture.compute("plain");
    assert_eq!(
        (result.level, result.source, result.budget_tokens),
        (
            ThinkingLevel::UltraThink,
            ThinkingSource::PerTurnOverride,
            Some(50_000)
        )
    );
}

#[test]
fn step_5_global_config_beats_model_default() {
    let mut fixture = Fixture::all_sources();
    fixture.env = ThinkingEnvOverride::default();
    fixture.state = ThinkingState::new();
    fixture.per_turn = None;
    let result = fixture.compute("plain");
    assert_eq!(
        (result.level, result.source, result.budget_tokens),
        (
            ThinkingLevel::DeepThink,
            ThinkingSource::GlobalConfig,
            Some(16_000)
        )
    );
}

#[test]
fn step_6_model_default() {
    let mut fixture = Fixture::all_sources();
    fixture.env = ThinkingEnvOverride::default();
    fixture.state = ThinkingState::new();
    fixture.per_turn = None;
    fixture.settings.default_level = None;
    let result = fixture.compute("plain");
    assert_eq!(
        (result.level, result.source, result.explicit),
        (
            ThinkingLevel::UltraThink,
            ThinkingSource::ModelDefault,
            true
        )
    );
    // The capability override's default wins over the model info's.
    fixture.model_info.thinking_override = Some(ThinkingCapabilityOverride {
        default_level: Some(ThinkingLevel::None),
        ..ThinkingCapabilityOverride::default()
    });
    let overridden = fixture.compute("plain");
    assert_eq!(
        (overridden.level, overridden.source, overridden.explicit),
        (ThinkingLevel::None, ThinkingSource::ModelDefault, false)
    );
}

#[test]
fn step_6_auto_enable_for_reasoning_models() {
    let fixture = Fixture {
        env: ThinkingEnvOverride::default(),
        state: ThinkingState::new(),
        per_turn: None,
        settings: ThinkingSettings {
            auto_enable: true,
            ..ThinkingSettings::default()
        },
        model_info: ModelInfo {
            supports_reasoning: Some(true),
            ..ModelInfo::default()
        },
    };
    let result = fixture.compute("plain");
    assert_eq!(
        (result.level, result.source),
        (ThinkingLevel::DeepThink, ThinkingSource::ModelDefault)
    );
}

#[test]
fn step_7_fallback_is_none_and_not_explicit() {
    let fixture = Fixture {
        env: ThinkingEnvOverride::default(),
        state: ThinkingState::new(),
        per_turn: None,
        settings: ThinkingSettings::default(),
        model_info: ModelInfo::default(),
    };
    assert_eq!(
        fixture.compute("plain"),
        ThinkingResult {
            level: ThinkingLevel::None,
            budget_tokens: None,
            keyword_detected: None,
            source: ThinkingSource::Fallback,
            explicit: false,
            interleaved: false,
        }
    );
}

#[test]
fn capability_override_downgrades_and_caps_the_budget() {
    let fixture = Fixture {
        env: ThinkingEnvOverride::default(),
        state: ThinkingState::new(),
        per_turn: None,
        settings: ThinkingSettings::default(),
        model_info: ModelInfo {
            thinking_override: Some(ThinkingCapabilityOverride {
                supported_levels: vec![ThinkingLevel::DeepThink],
                default_level: None,
                max_budget: Some(12_000),
                budget_by_level: Some(BudgetByLevel {
                    deep_think: 16_000,
                    ultra_think: 64_000,
                }),
            }),
            ..ModelInfo::default()
        },
    };
    let result = fixture.compute("ultrathink");
    assert_eq!(
        (result.level, result.budget_tokens, result.source),
        (
            ThinkingLevel::DeepThink,
            Some(12_000),
            ThinkingSource::Keyword
        )
    );
}

#[test]
fn spec_per_model_override_budgets() {
    let provider = crate::ProviderConfig::anthropic();
    let fixture = Fixture {
        env: ThinkingEnvOverride::default(),
        state: ThinkingState::new(),
        per_turn: None,
        settings: ThinkingSettings::default(),
        model_info: provider.model_info("claude-sonnet-4"),
    };
    assert_eq!(fixture.compute("ultrathink").budget_tokens, Some(64_000));
    assert_eq!(fixture.compute("deepthink").budget_tokens, Some(16_000));
    let none = fixture.compute("hello");
    assert_eq!(
        (none.level, none.source),
        (ThinkingLevel::None, ThinkingSource::ModelDefault)
    );
}

#[test]
fn model_without_reasoning_gets_none_but_env_still_forces() {
    let mut fixture = Fixture::all_sources();
    fixture.model_info.supports_reasoning = Some(false);
    assert_eq!(fixture.compute("x").level, ThinkingLevel::UltraThink);
    fixture.env = ThinkingEnvOverride::default();
    let result = fixture.compute("ultrathink");
    assert_eq!(
        (result.level, result.budget_tokens, result.source),
        (ThinkingLevel::None, None, ThinkingSource::Keyword)
    );
}

#[test]
fn configured_budgets_stay_in_the_spec_ranges() {
    let fixture = Fixture {
        env: ThinkingEnvOverride::default(),
        state: ThinkingState::new(),
        per_turn: None,
        settings: ThinkingSettings {
            budgets: BudgetByLevel {
                deep_think: 2_000,
                ultra_think: 100_000,
            },
            ..ThinkingSettings::default()
        },
        model_info: ModelInfo::default(),
    };
    assert_eq!(fixture.compute("deepthink").budget_tokens, Some(10_000));
    assert_eq!(fixture.compute("ultrathink").budget_tokens, Some(64_000));
}

#[test]
fn env_parsing_and_interleaved() {
    let env = ThinkingEnvOverride::from_env(&|name| match name {
        "COCODE_THINKING_LEVEL" => Some("ultra_think".to_string()),
        "COCODE_INTERLEAVED_THINKING" => Some("true".to_string()),
        "COCODE_MAX_THINKING_TOKENS" => Some("lots".to_string()),
        _ => None,
    });
    assert_eq!(
        env,
        ThinkingEnvOverride {
            level: Some(ThinkingLevel::UltraThink),
            max_tokens: None,
            interleaved: Some(true),
        }
    );
    let mut fixture = Fixture::all_sources();
    fixture.env = env;
    let result = fixture.compute("");
    assert_eq!(
        (result.budget_tokens, result.interleaved),
        (Some(32_000), true)
    );
    // Only a budget: the level follows from it.
    fixture.env = ThinkingEnvOverride {
        level: None,
        max_tokens: Some(12_000),
        interleaved: None,
    };
    assert_eq!(fixture.compute("").level, ThinkingLevel::DeepThink);
}
