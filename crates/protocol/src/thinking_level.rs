//! The two-level thinking abstraction: whether the model thinks before answering and how much,
//! which each provider maps onto its own reasoning settings.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// How much the model should think before answering.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingLevel {
    /// No extended thinking.
    #[default]
    None,
    /// Standard extended thinking (keyword `deepthink`).
    DeepThink,
    /// Maximum reasoning (keyword `ultrathink`).
    UltraThink,
}

impl ThinkingLevel {
    /// The keyword that asks for this level, `None` for [`ThinkingLevel::None`].
    pub fn keyword(self) -> Option<&'static str> {
        match self {
            Self::None => None,
            Self::DeepThink => Some("deepthink"),
            Self::UltraThink => Some("ultrathink"),
        }
    }

    /// The next level in the session toggle cycle: none → deepthink → ultrathink → none.
    pub fn cycle(self) -> Self {
        match self {
            Self::None => Self::DeepThink,
            Self::DeepThink => Self::UltraThink,
            Self::UltraThink => Self::None,
        }
    }
}
