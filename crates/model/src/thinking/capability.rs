//! Per-model thinking capability overrides (`thinking_override` of a model entry).

use agentctx_protocol::ThinkingLevel;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// Default DeepThink budget (`[thinking.budgets] deep_think`).
pub const DEFAULT_DEEP_THINK_BUDGET: i32 = 16_000;
/// Default UltraThink budget (`[thinking.budgets] ultra_think`).
pub const DEFAULT_ULTRA_THINK_BUDGET: i32 = 32_000;

/// What thinking a model supports, overriding what the harness would assume.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ThinkingCapabilityOverride {
    /// Levels the model supports; empty means every level.
    pub supported_levels: Vec<ThinkingLevel>,
    /// The model's default level (priority step 6).
    pub default_level: Option<ThinkingLevel>,
    /// The largest thinking budget the model accepts.
    pub max_budget: Option<i32>,
    /// Budget per level for this model.
    pub budget_by_level: Option<BudgetByLevel>,
}

impl ThinkingCapabilityOverride {
    /// The level the model can do for `requested`: itself when supported, else the highest
    /// supported level below it, else the lowest supported level. `None` stays `None`.
    pub fn constrain(&self, requested: ThinkingLevel) -> ThinkingLevel {
        if requested == ThinkingLevel::None
            || self.supported_levels.is_empty()
            || self.supported_levels.contains(&requested)
        {
            return requested;
        }
        let thinking = self
            .supported_levels
            .iter()
            .copied()
            .filter(|level| *level != ThinkingLevel::None);
        thinking
            .clone()
            .filter(|level| *level < requested)
            .max()
            .or_else(|| thinking.min())
            .unwrap_or(ThinkingLevel::None)
    }
}

/// A thinking budget (tokens) per level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct BudgetByLevel {
    /// Budget for [`ThinkingLevel::DeepThink`].
    pub deep_think: i32,
    /// Budget for [`ThinkingLevel::UltraThink`].
    pub ultra_think: i32,
}

impl Default for BudgetByLevel {
    fn default() -> Self {
        Self {
            deep_think: DEFAULT_DEEP_THINK_BUDGET,
            ultra_think: DEFAULT_ULTRA_THINK_BUDGET,
        }
    }
}

impl BudgetByLevel {
    /// The budget of `level`; `None` for [`ThinkingLevel::None`].
    pub fn for_level(&self, level: ThinkingLevel) -> Option<i32> {
        match level {
            ThinkingLevel::None => None,
            ThinkingLevel::DeepThink => Some(self.deep_think),
            ThinkingLevel::UltraThink => Some(self.ultra_think),
        }
    }
}
