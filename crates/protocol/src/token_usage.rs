//! Token usage as codex-rs reports it in `token_count` events.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::models::ExtraFields;

/// Tokens used by one request (or accumulated over a session).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TokenUsage {
    /// Prompt tokens, cached ones included.
    #[serde(default)]
    pub input_tokens: i64,
    /// Prompt tokens served from the provider's cache.
    #[serde(default)]
    pub cached_input_tokens: i64,
    /// Generated tokens, reasoning included.
    #[serde(default)]
    pub output_tokens: i64,
    /// Generated reasoning tokens.
    #[serde(default)]
    pub reasoning_output_tokens: i64,
    /// Input plus output.
    #[serde(default)]
    pub total_tokens: i64,
}

impl TokenUsage {
    /// Tokens the last request occupied in the context window: its whole input plus its output.
    pub fn context_occupancy(&self) -> i64 {
        if self.total_tokens > 0 {
            self.total_tokens
        } else {
            self.input_tokens + self.output_tokens
        }
    }
}

/// The usage snapshot of a `token_count` event.
///
/// `last_token_usage` is what the last request used (the current occupancy of the window);
/// `total_token_usage` is cumulative over the session and must not be read as occupancy.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TokenUsageInfo {
    /// Cumulative usage over the session.
    #[serde(default)]
    pub total_token_usage: TokenUsage,
    /// Usage of the last request.
    #[serde(default)]
    pub last_token_usage: TokenUsage,
    /// The model's context window, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_context_window: Option<i64>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub extra: ExtraFields,
}
