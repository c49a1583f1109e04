//! What the harness knows about one model: its context window, output limit and reasoning
//! capabilities.

use agentctx_protocol::ThinkingLevel;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::prompt::ReasoningEffort;
use crate::provider_config::SystemMessageMode;
use crate::thinking::ThinkingCapabilityOverride;

/// The context window assumed for a model nobody configured.
pub(crate) const DEFAULT_CONTEXT_WINDOW: i64 = 128_000;

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
    /// Per-model thinking capability override (`thinking_override`; see docs/design/model-providers.md, 'Thinking levels and the capability table').
    pub thinking_override: Option<ThinkingCapabilityOverride>,
    /// The reasoning efforts the model accepts. Empty means unknown: the requested effort is
    /// sent as asked. A requested effort outside the list is clamped (see
    /// [`ModelInfo::clamp_effort`]), because a server answers an effort the model does not take
    /// with a 400 that no retry fixes.
    pub reasoning_efforts: Vec<ReasoningEffort>,
    /// Which Chat Completions field carries the output limit.
    pub max_tokens_field: MaxTokensField,
    /// How a Chat Completions request places developer and system messages found in the
    /// history; `None` takes the provider's setting.
    pub system_messages: Option<SystemMessageMode>,
}

/// The Chat Completions field that limits the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens`: what OpenAI-compatible local servers read.
    #[default]
    MaxTokens,
    /// `max_completion_tokens`: OpenAI reasoning models reject `max_tokens`.
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MaxTokens => "max_tokens",
            Self::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

impl Default for ModelInfo {
    fn default() -> Self {
        Self {
            context_window: DEFAULT_CONTEXT_WINDOW,
            max_output_tokens: None,
            supports_reasoning: None,
            default_thinking_level: None,
            thinking_override: None,
            reasoning_efforts: Vec::new(),
            max_tokens_field: MaxTokensField::MaxTokens,
            system_messages: None,
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

    /// The effort to send for `requested`: itself when the model accepts it (or nothing is
    /// known), else the highest accepted effort below it, else the lowest accepted one.
    pub fn clamp_effort(&self, slug: &str, requested: ReasoningEffort) -> ReasoningEffort {
        clamp_effort(&self.reasoning_efforts, slug, requested)
    }
}

/// The effort to send for `requested` to a model that accepts `accepted` (empty: anything):
/// itself when accepted, else the highest accepted effort below it, else the lowest accepted
/// effort. A change is logged as a warning naming `slug`, since the user asked for more (or
/// less) than the model can do.
pub(crate) fn clamp_effort(
    accepted: &[ReasoningEffort],
    slug: &str,
    requested: ReasoningEffort,
) -> ReasoningEffort {
    if accepted.is_empty() || accepted.contains(&requested) {
        return requested;
    }
    let below = accepted
        .iter()
        .copied()
        .filter(|effort| *effort < requested)
        .max();
    let Some(clamped) = below.or_else(|| accepted.iter().copied().min()) else {
        return requested;
    };
    tracing::warn!(
        model = slug,
        requested = requested.as_str(),
        sent = clamped.as_str(),
        "the model does not accept this reasoning effort; sending the nearest one it accepts"
    );
    clamped
}

#[cfg(test)]
#[path = "model_info_tests.rs"]
mod tests;
