//! Thinking configuration: the `[thinking]` section, per-turn configs and environment overrides.

use agentctx_protocol::ThinkingLevel;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::thinking::BudgetByLevel;
use crate::thinking::KeywordConfig;

/// Forces the level (`none`, `deep_think`, `ultra_think`), priority step 1.
pub const ENV_THINKING_LEVEL: &str = "COCODE_THINKING_LEVEL";
/// Forces the budget in tokens (`0` disables thinking), priority step 1.
pub const ENV_MAX_THINKING_TOKENS: &str = "COCODE_MAX_THINKING_TOKENS";
/// Turns Anthropic interleaved thinking (beta) on or off.
pub const ENV_INTERLEAVED_THINKING: &str = "COCODE_INTERLEAVED_THINKING";

/// A thinking request for one turn (priority step 4) or a global default (step 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ThinkingConfig {
    /// The level.
    pub level: ThinkingLevel,
    /// An explicit budget that overrides the per-level budget.
    pub budget_tokens: Option<i32>,
    /// Anthropic interleaved thinking (beta).
    pub interleaved: bool,
}

/// The `[thinking]` section of `config.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ThinkingSettings {
    /// The global default level (priority step 5); unset leaves the decision to the model.
    pub default_level: Option<ThinkingLevel>,
    /// Turn DeepThink on for models known to reason that declare no default level.
    pub auto_enable: bool,
    /// Anthropic interleaved thinking (beta).
    pub interleaved: bool,
    /// Keywords per level.
    pub keywords: KeywordConfig,
    /// Budget per level (default 16000 / 32000).
    pub budgets: BudgetByLevel,
}

impl ThinkingSettings {
    /// The global config of priority step 5, `None` when `default_level` is unset.
    pub fn global_config(&self) -> Option<ThinkingConfig> {
        self.default_level.map(|level| ThinkingConfig {
            level,
            budget_tokens: None,
            interleaved: self.interleaved,
        })
    }
}

/// Environment overrides, read through a lookup function so tests never touch the process
/// environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThinkingEnvOverride {
    /// [`ENV_THINKING_LEVEL`].
    pub level: Option<ThinkingLevel>,
    /// [`ENV_MAX_THINKING_TOKENS`].
    pub max_tokens: Option<i32>,
    /// [`ENV_INTERLEAVED_THINKING`].
    pub interleaved: Option<bool>,
}

impl ThinkingEnvOverride {
    /// Reads the three variables through `env`. Values that do not parse are skipped with a
    /// warning.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let level = env(ENV_THINKING_LEVEL).and_then(|raw| {
            let parsed = parse_thinking_level(&raw);
            if parsed.is_none() {
                tracing::warn!(variable = ENV_THINKING_LEVEL, value = %raw, "ignoring unknown thinking level");
            }
            parsed
        });
        let max_tokens = env(ENV_MAX_THINKING_TOKENS).and_then(|raw| {
            let parsed = raw.trim().parse::<i32>().ok().filter(|tokens| *tokens >= 0);
            if parsed.is_none() {
                tracing::warn!(variable = ENV_MAX_THINKING_TOKENS, value = %raw, "ignoring invalid thinking budget");
            }
            parsed
        });
        let interleaved = env(ENV_INTERLEAVED_THINKING).and_then(|raw| {
            match raw.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Some(true),
                "0" | "false" | "no" | "off" => Some(false),
                _ => {
                    tracing::warn!(variable = ENV_INTERLEAVED_THINKING, value = %raw, "ignoring invalid boolean");
                    None
                }
            }
        });
        Self {
            level,
            max_tokens,
            interleaved,
        }
    }

    /// True when the level or the budget is forced.
    pub fn is_active(&self) -> bool {
        self.level.is_some() || self.max_tokens.is_some()
    }
}

/// Parses `none`, `deep_think`, `ultra_think` (also `deepthink`, `ultrathink`, `deep-think`,
/// `off`), ignoring case.
pub fn parse_thinking_level(raw: &str) -> Option<ThinkingLevel> {
    match raw.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "none" | "off" | "disabled" => Some(ThinkingLevel::None),
        "deep_think" | "deepthink" => Some(ThinkingLevel::DeepThink),
        "ultra_think" | "ultrathink" => Some(ThinkingLevel::UltraThink),
        _ => None,
    }
}
