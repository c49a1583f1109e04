//! How much of a text the model may see: a byte or a token budget.

use std::ops::Mul;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::token_estimator::approx_bytes_for_tokens;
use crate::token_estimator::approx_tokens_from_byte_count;

/// Bytes a tool output may occupy under the default policy (codex `TruncationPolicyConfig`
/// default, `bytes(10_000)`).
pub(crate) const DEFAULT_TRUNCATION_BYTES: usize = 10_000;

/// The allowance tool outputs get on top of the policy when they are recorded into history, for
/// the JSON envelope around them.
pub(crate) const TOOL_OUTPUT_SERIALIZATION_MULTIPLIER: f64 = 1.2;

/// A truncation budget, in bytes or in (approximate) tokens. Conversions count 4 bytes per token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "mode", content = "limit", rename_all = "snake_case")]
pub enum TruncationPolicy {
    /// At most this many bytes of content.
    Bytes(usize),
    /// At most this many tokens of content (4 bytes each).
    Tokens(usize),
}

impl Default for TruncationPolicy {
    /// `Bytes(10_000)`, as codex's model configuration defaults.
    fn default() -> Self {
        Self::Bytes(DEFAULT_TRUNCATION_BYTES)
    }
}

impl TruncationPolicy {
    /// The budget in bytes: `Bytes(b)` is `b`, `Tokens(t)` is `t * 4`.
    pub fn byte_budget(self) -> usize {
        match self {
            Self::Bytes(bytes) => bytes,
            Self::Tokens(tokens) => approx_bytes_for_tokens(tokens),
        }
    }

    /// The budget in tokens: `Tokens(t)` is `t`, `Bytes(b)` is `ceil(b / 4)`.
    pub fn token_budget(self) -> usize {
        match self {
            Self::Bytes(bytes) => {
                usize::try_from(approx_tokens_from_byte_count(bytes as u64)).unwrap_or(usize::MAX)
            }
            Self::Tokens(tokens) => tokens,
        }
    }

    /// The same kind of policy with another limit.
    pub fn with_limit(self, limit: usize) -> Self {
        match self {
            Self::Bytes(_) => Self::Bytes(limit),
            Self::Tokens(_) => Self::Tokens(limit),
        }
    }
}

impl Mul<f64> for TruncationPolicy {
    type Output = Self;

    /// Scales the limit, rounding up; a negative or NaN factor gives a zero limit.
    fn mul(self, multiplier: f64) -> Self {
        let scale = |limit: usize| -> usize {
            let scaled = (limit as f64 * multiplier).ceil();
            if scaled.is_nan() || scaled <= 0.0 {
                0
            } else if scaled >= usize::MAX as f64 {
                usize::MAX
            } else {
                scaled as usize
            }
        };
        match self {
            Self::Bytes(bytes) => Self::Bytes(scale(bytes)),
            Self::Tokens(tokens) => Self::Tokens(scale(tokens)),
        }
    }
}
