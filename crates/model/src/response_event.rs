//! The events a model response stream yields.

use std::pin::Pin;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use futures::Stream;
use serde::Deserialize;
use serde::Serialize;

use crate::error::ModelError;

/// A stream of response events; an `Err` item ends it.
pub type ResponseStream = Pin<Box<dyn Stream<Item = Result<ResponseEvent, ModelError>> + Send>>;

/// One event of a streamed model response.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseEvent {
    /// The provider accepted the request and started the response.
    Created,
    /// An output item started (its content may still be empty).
    OutputItemAdded(ResponseItem),
    /// An output item is complete; this is the item to record in the history.
    OutputItemDone(ResponseItem),
    /// A piece of assistant text.
    OutputTextDelta(String),
    /// A piece of a reasoning summary.
    ReasoningSummaryDelta(String),
    /// A piece of raw reasoning (thinking) text.
    ReasoningContentDelta(String),
    /// The response is complete.
    Completed {
        /// The provider's id of the response or message.
        response_id: String,
        /// Tokens used, when the provider reported them.
        token_usage: Option<TokenUsage>,
    },
    /// Rate-limit figures read from the response headers.
    RateLimits(RateLimitSnapshot),
    /// What the provider's prompt cache did for this request (Anthropic's
    /// `cache_creation_input_tokens` and `cache_read_input_tokens`), sent before `Completed`.
    /// Both are included in the `input_tokens` of the completed usage; the reads also in its
    /// `cached_input_tokens`.
    PromptCache {
        /// Input tokens read from the cache (billed at a tenth of the input price).
        read_input_tokens: i64,
        /// Input tokens written to the cache (billed at 1.25 times the input price for 5 min).
        creation_input_tokens: i64,
    },
    /// What the provider did to the context on its own side during this request (Anthropic
    /// context editing and server-side compaction), sent before `Completed` when it did
    /// anything. The `Completed` usage stays the usage of the answer itself, over the context as
    /// the provider left it (its occupancy of the window); what a compaction step cost is
    /// reported here, apart.
    ProviderContext(ProviderContextReport),
    /// The provider stopped the answer at its output limit (`finish_reason: "length"`,
    /// `stop_reason: "max_tokens"`, Responses `incomplete_details.reason:
    /// "max_output_tokens"`). Sent just before `Completed`: the items already delivered are
    /// whole and kept (the text is cut short, not wrong), and the host tells the user and lets
    /// the model continue. See docs/design/model-streaming.md, "Truncated answers".
    OutputTruncated {
        /// The provider's reason, as it spelled it.
        reason: String,
    },
    /// The attempt streaming this response broke and was given up. A request sent again is a
    /// new sample (new ids, other items, other text), so nothing of the abandoned attempt may be
    /// spliced with what follows: discard the partial output shown since `Created` (text and
    /// reasoning deltas, items added but not done). No item of the attempt had completed when
    /// the stream goes on after this event: a new attempt starts from the beginning. When an
    /// error follows instead, the error says what to do (see
    /// [`ModelError::requires_turn_restart`]). See docs/design/model-streaming.md, "Resume".
    AttemptAbandoned {
        /// What the abandoned attempt consumed, as far as the provider reported it before the
        /// break (Anthropic reports input at `message_start` and output as it goes; the
        /// Responses and Chat Completions APIs report usage only at completion, so `None`).
        usage: Option<TokenUsage>,
    },
}

/// What a provider did to the context of one request on its side: see
/// [`ResponseEvent::ProviderContext`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ProviderContextReport {
    /// The context edits the provider applied (Anthropic `context_management.applied_edits`),
    /// in its order.
    pub applied_edits: Vec<AppliedContextEdit>,
    /// Tokens the provider's compaction step(s) used, summed over the `compaction` entries of
    /// Anthropic's `usage.iterations`: billed, and not part of the answer's own usage.
    pub compaction_usage: Option<TokenUsage>,
    /// The answer stopped right after a compaction (`stop_reason: "compaction"`, with
    /// `pause_after_compaction`): the model has not answered yet, and the request must be sent
    /// again (with the compaction item) for it to go on.
    pub paused_after_compaction: bool,
}

/// One context edit a provider applied.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AppliedContextEdit {
    /// The edit type, as the provider spells it (`clear_tool_uses_20250919`,
    /// `clear_thinking_20251015`, ...).
    pub kind: String,
    /// Input tokens the edit removed from the prompt.
    pub cleared_input_tokens: i64,
    /// Tool uses whose results (or inputs) it cleared.
    pub cleared_tool_uses: i64,
    /// Assistant turns whose thinking it cleared.
    pub cleared_thinking_turns: i64,
}

/// Rate-limit headers of a response (`x-ratelimit-*` for OpenAI-compatible servers,
/// `anthropic-ratelimit-*` for Anthropic). Reset values are kept as the provider spells them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RateLimitSnapshot {
    /// Requests allowed in the window.
    pub requests_limit: Option<u64>,
    /// Requests left in the window.
    pub requests_remaining: Option<u64>,
    /// When the request window resets.
    pub requests_reset: Option<String>,
    /// Tokens allowed in the window.
    pub tokens_limit: Option<u64>,
    /// Tokens left in the window.
    pub tokens_remaining: Option<u64>,
    /// When the token window resets.
    pub tokens_reset: Option<String>,
}

impl RateLimitSnapshot {
    /// Reads the snapshot from response headers; `None` when no rate-limit header is present.
    pub fn from_headers(headers: &reqwest::header::HeaderMap) -> Option<Self> {
        let text = |names: [&str; 2]| {
            names.iter().find_map(|name| {
                headers
                    .get(*name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            })
        };
        let number = |names: [&str; 2]| text(names).and_then(|v| v.trim().parse::<u64>().ok());
        let snapshot = Self {
            requests_limit: number([
                "x-ratelimit-limit-requests",
                "anthropic-ratelimit-requests-limit",
            ]),
            requests_remaining: number([
                "x-ratelimit-remaining-requests",
                "anthropic-ratelimit-requests-remaining",
            ]),
            requests_reset: text([
                "x-ratelimit-reset-requests",
                "anthropic-ratelimit-requests-reset",
            ]),
            tokens_limit: number([
                "x-ratelimit-limit-tokens",
                "anthropic-ratelimit-tokens-limit",
            ]),
            tokens_remaining: number([
                "x-ratelimit-remaining-tokens",
                "anthropic-ratelimit-tokens-remaining",
            ]),
            tokens_reset: text([
                "x-ratelimit-reset-tokens",
                "anthropic-ratelimit-tokens-reset",
            ]),
        };
        (snapshot != Self::default()).then_some(snapshot)
    }
}
