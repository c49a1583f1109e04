//! What the harness knows about one model: its context window, output limit and reasoning
//! capabilities.

use agentctx_protocol::ThinkingLevel;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::thinking::ThinkingCapabilityOverride;

/// The context window assumed for a model nobody configured.
pub const DEFAULT_CONTEXT_WINDOW: i64 = 128_000;

/// Facts about one model, configured per provider under `models.<slug>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ModelInfo {
    /// Tokens the model can see at once (input plus output).
    pub context_window: i64,
    /// The most tokens the model may generate in one response, when limited.
    pub max_output_tokens: Option<i64>,
    /// Capability override for reasoning/thinking: `Some(false)` strips reasoning parameters
    /// from requests, `Some(true)` declares support, `None` sends what the prompt asks.
    pub supports_reasoning: Option<bool>,
    /// The thinking level used when nothing else chose one (priority step 6).
    pub default_thinking_level: Option<ThinkingLevel>,
    /// Per-model thinking capability override (`thinking_override` in the specification).
    pub thinking_override: Option<ThinkingCapabilityOverride>,
}

impl Default for ModelInfo {
    fn default() -> Self {
        Self {
            context_window: DEFAULT_CONTEXT_WINDOW,
            max_output_tokens: None,
            supports_reasoning: None,
            default_thinking_level: None,
            thinking_override: None,
        }
    }
}

impl ModelInfo {
    /// A model with this context window and nothing else known.
    pub fn with_context_window(context_window: i64) -> Self {
        Self {
            context_window,
            ..Self::default()
        }
    }

    /// False only when the model is known not to reason.
    pub fn may_reason(&self) -> bool {
        self.supports_reasoning != Some(false)
    }
}
