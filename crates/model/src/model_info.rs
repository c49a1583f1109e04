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
    pub fn clamp_effort(&self, requested: ReasoningEffort) -> ReasoningEffort {
        clamp_effort(&self.reasoning_efforts, requested)
    }
}

/// What the configuration says about one model (`[model_providers.<id>.models."<slug>"]`):
/// only the keys written. An entry is laid over what is already known of the model (the
/// preset's row, the built-in table, the defaults), so `context_window = 8192` alone changes
/// the window and keeps everything else. See docs/design/model-providers.md, "Providers".
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ModelEntry {
    /// Tokens the model can see at once (input plus output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<i64>,
    /// The most tokens the model may generate in one response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<i64>,
    /// `false` strips reasoning parameters from requests, `true` declares support.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_reasoning: Option<bool>,
    /// The thinking level used when nothing else chose one (priority step 6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_thinking_level: Option<ThinkingLevel>,
    /// Per-model thinking capability override (see docs/design/model-providers.md, 'Thinking
    /// levels and the capability table').
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_override: Option<ThinkingCapabilityOverride>,
    /// The reasoning efforts the model accepts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_efforts: Option<Vec<ReasoningEffort>>,
    /// Which Chat Completions field carries the output limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<MaxTokensField>,
    /// How a Chat Completions request places developer and system messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_messages: Option<SystemMessageMode>,
}

impl ModelEntry {
    /// `base` with every key this entry sets replaced.
    pub fn apply_to(&self, mut base: ModelInfo) -> ModelInfo {
        if let Some(window) = self.context_window {
            base.context_window = window;
        }
        if let Some(max_output) = self.max_output_tokens {
            base.max_output_tokens = Some(max_output);
        }
        if let Some(reasons) = self.supports_reasoning {
            base.supports_reasoning = Some(reasons);
        }
        if let Some(level) = self.default_thinking_level {
            base.default_thinking_level = Some(level);
        }
        if let Some(thinking) = &self.thinking_override {
            base.thinking_override = Some(thinking.clone());
        }
        if let Some(efforts) = &self.reasoning_efforts {
            base.reasoning_efforts = efforts.clone();
        }
        if let Some(field) = self.max_tokens_field {
            base.max_tokens_field = field;
        }
        if let Some(mode) = self.system_messages {
            base.system_messages = Some(mode);
        }
        base
    }

    /// This entry with the keys `over` sets replaced (a user's entry over a preset's row).
    pub fn merged_with(self, over: &ModelEntry) -> ModelEntry {
        ModelEntry {
            context_window: over.context_window.or(self.context_window),
            max_output_tokens: over.max_output_tokens.or(self.max_output_tokens),
            supports_reasoning: over.supports_reasoning.or(self.supports_reasoning),
            default_thinking_level: over.default_thinking_level.or(self.default_thinking_level),
            thinking_override: over.thinking_override.clone().or(self.thinking_override),
            reasoning_efforts: over.reasoning_efforts.clone().or(self.reasoning_efforts),
            max_tokens_field: over.max_tokens_field.or(self.max_tokens_field),
            system_messages: over.system_messages.or(self.system_messages),
        }
    }
}

impl From<ModelInfo> for ModelEntry {
    fn from(info: ModelInfo) -> Self {
        Self {
            context_window: Some(info.context_window),
            max_output_tokens: info.max_output_tokens,
            supports_reasoning: info.supports_reasoning,
            default_thinking_level: info.default_thinking_level,
            thinking_override: info.thinking_override,
            reasoning_efforts: Some(info.reasoning_efforts),
            max_tokens_field: Some(info.max_tokens_field),
            system_messages: info.system_messages,
        }
    }
}

/// Where a model's context window or output limit came from, strongest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LimitSource {
    /// A command-line flag (`--context-window`).
    Flag,
    /// `model_context_window` / `model_max_output_tokens` at the top of `config.toml`.
    ConfigTopLevel,
    /// The provider's entry for the model, `[model_providers.<id>.models."<slug>"]`.
    ProviderModel,
    /// Asked of the server (llama.cpp `/props`, Ollama `/api/show`, LM Studio
    /// `/api/v0/models`).
    ServerProbe {
        /// The URL that answered.
        url: String,
    },
    /// The built-in model table (or the preset's row from it).
    ModelTable,
    /// Nothing knew: the default.
    Default,
}

impl std::fmt::Display for LimitSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Flag => f.write_str("flag"),
            Self::ConfigTopLevel => f.write_str("config top level"),
            Self::ProviderModel => f.write_str("provider model entry"),
            Self::ServerProbe { url } => write!(f, "server probe {url}"),
            Self::ModelTable => f.write_str("model table"),
            Self::Default => f.write_str("default"),
        }
    }
}

/// The effort to send for `requested` to a model that accepts `accepted` (empty: anything):
/// itself when accepted, else the highest accepted effort below it, else the lowest accepted
/// effort. Nothing is logged here: a body is also rendered for requests that are never sent
/// (`agentctx replay`, `report` and `compact` show the bodies of recorded requests), and a
/// warning about those would only be noise. The client warns when it sends a request whose
/// effort changed ([`warn_clamped_effort`]).
pub(crate) fn clamp_effort(
    accepted: &[ReasoningEffort],
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
    below
        .or_else(|| accepted.iter().copied().min())
        .unwrap_or(requested)
}

/// Logs a warning naming `slug` when the effort `sent` is not the one `requested`: the user
/// asked for more (or less) than the model can do. Called for requests that are sent, once per
/// request.
pub(crate) fn warn_clamped_effort(slug: &str, requested: ReasoningEffort, sent: ReasoningEffort) {
    if requested != sent {
        tracing::warn!(
            model = slug,
            requested = requested.as_str(),
            sent = sent.as_str(),
            "the model does not accept this reasoning effort; sending the nearest one it accepts"
        );
    }
}

#[cfg(test)]
#[path = "model_info_tests.rs"]
mod tests;
