//! What a request's recorded usage says about its price beyond its four counts: the model
//! that answered it, when it was recorded, its one-hour cache writes, fast mode, and an output
//! count the recording never finalised (docs/design/usage-accounting.md).
//!
//! A session's requests need not share a model (Claude Code answers some requests with Haiku
//! in an Opus session), nor a price: each is billed as the provider billed it, at the model
//! that answered it.

use agentctx_protocol::TokenCountEvent;
use agentctx_protocol::TokenUsage;
use serde::Serialize;
use serde_json::Value;

/// A recorded output count below the visible output's estimate divided by this factor is
/// taken as never finalised. The estimate is `ceil(bytes / 4)`, the engine's token
/// estimator: real output runs 3 to 4 bytes per token (code nearer 3, prose nearer 4) and the
/// tokens a transcript does not show (redacted thinking) only raise the true count, so a final
/// count is never a quarter of the estimate; the unfinalised counts seen are a fiftieth or
/// less (1,394 tokens for 98,782 bytes).
pub const UNFINALISED_OUTPUT_FACTOR: u64 = 4;

/// The request's billing facts beyond [`super::RecordedTokens`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RecordedBilling {
    /// The model that answered, as recorded: a Claude Code response's `message.model`, the
    /// model of the Codex `turn_context` (or `thread_settings_applied`) in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// When the usage was recorded (its line's timestamp, RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Of the cache writes, the tokens written for an hour (Claude Code's
    /// `usage.cache_creation.ephemeral_1h_input_tokens`).
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_write_1h: u64,
    /// Served in fast mode (Claude Code's `usage.speed: "fast"`).
    #[serde(skip_serializing_if = "is_false")]
    pub fast: bool,
    /// The recorded output count was never finalised (see [`UNFINALISED_OUTPUT_FACTOR`]):
    /// `estimated_output_tokens` holds a lower bound from the visible output.
    pub output_estimated: bool,
    /// The output estimated from the visible text, thinking and tool input, when
    /// `output_estimated`: at least the recorded count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_output_tokens: Option<u64>,
}

/// Whether `value` is zero (a field left out of the JSON).
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `skip_serializing_if` passes a reference"
)]
fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// Whether `value` is false (a field left out of the JSON).
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `skip_serializing_if` passes a reference"
)]
fn is_false(value: &bool) -> bool {
    !*value
}

impl RecordedBilling {
    /// The facts of a `token_count` event recorded at `timestamp` while `model` was in force.
    /// An imported Claude Code response keeps its usage object (`claude_usage`) and what the
    /// import saw of its lines (`visible_output_bytes`, `output_tokens_repeated`); a Codex
    /// count has neither.
    pub fn of_token_count(event: &TokenCountEvent, model: Option<&str>, timestamp: &str) -> Self {
        let usage = event.extra.get("claude_usage");
        let member = |pointer: &str| usage.and_then(|usage| usage.pointer(pointer));
        let recorded_output = event.info.as_ref().map_or(0, |info| {
            u64::try_from(info.last_token_usage.output_tokens).unwrap_or(0)
        });
        let estimate = unfinalised_output(
            recorded_output,
            event
                .extra
                .get("output_tokens_repeated")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            event
                .extra
                .get("visible_output_bytes")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        );
        Self {
            model: model.map(str::to_owned),
            timestamp: (!timestamp.is_empty()).then(|| timestamp.to_owned()),
            cache_write_1h: member("/cache_creation/ephemeral_1h_input_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            fast: member("/speed").and_then(Value::as_str) == Some("fast"),
            output_estimated: estimate.is_some(),
            estimated_output_tokens: estimate,
        }
    }

    /// The output to bill: the estimate when the recorded count was never finalised, else
    /// `recorded`.
    pub fn billed_output(&self, recorded: u64) -> u64 {
        self.estimated_output_tokens
            .map_or(recorded, |estimate| estimate.max(recorded))
    }
}

/// Usage a session recorded that no replayed request took: the summary request of a
/// compaction the session ran, or an earlier response of a request that recorded two. Billed
/// like a request's (a session's cost and tokens are every response's, as the provider billed
/// them), shown on no request's row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UnreplayedUsage {
    /// Its tokens, split as providers bill them.
    pub tokens: super::RecordedTokens,
    /// Its billing facts.
    pub billing: RecordedBilling,
}

impl UnreplayedUsage {
    /// A measure that waited for a request that never took it (see `pending_measure`).
    pub(crate) fn of_pending(pending: Option<(TokenUsage, u64, RecordedBilling)>) -> Option<Self> {
        let (usage, cache_write, billing) = pending?;
        Some(Self {
            tokens: recorded_tokens(&usage, cache_write),
            billing,
        })
    }

    /// The measure `request` holds, taken out of it (to be replaced by a later one).
    pub(crate) fn take(request: &mut super::RequestUsage) -> Option<Self> {
        Some(Self {
            tokens: request.recorded_usage.take()?,
            billing: request.recorded_billing.take().unwrap_or_default(),
        })
    }
}

/// A recorded usage as [`super::RecordedTokens`]: `cache_write` of its input written to the
/// cache; negative counts (a corrupt record) count as zero.
pub(crate) fn recorded_tokens(usage: &TokenUsage, cache_write: u64) -> super::RecordedTokens {
    let count = |tokens: i64| u64::try_from(tokens).unwrap_or(0);
    let input = count(usage.input_tokens);
    super::RecordedTokens {
        input,
        cached_input: count(usage.cached_input_tokens).min(input),
        cache_write: cache_write.min(input),
        output: count(usage.output_tokens),
    }
}

/// The estimate of a response's output when its recorded count was never finalised: every
/// line repeated one count, and the visible output's estimate is more than
/// [`UNFINALISED_OUTPUT_FACTOR`] times it. `None` when the count stands.
pub fn unfinalised_output(recorded: u64, repeated: bool, visible_bytes: u64) -> Option<u64> {
    if !repeated {
        return None;
    }
    let estimate = agentctx_context::approx_tokens_from_byte_count(visible_bytes);
    (estimate > recorded.saturating_mul(UNFINALISED_OUTPUT_FACTOR)).then_some(estimate)
}

#[cfg(test)]
#[path = "recorded_billing_tests.rs"]
mod tests;
