//! The three wire formats: request bodies built from a [`crate::Prompt`] and stateful parsers
//! that turn server-sent events into [`crate::ResponseEvent`]s.

pub(crate) mod anthropic_compaction;
pub(crate) mod anthropic_messages;
pub(crate) mod anthropic_messages_cache;
pub(crate) mod anthropic_messages_max_tokens;
pub(crate) mod chat_completions;
pub(crate) mod output_budget;
pub(crate) mod responses;
pub(crate) mod responses_compact;

use agentctx_protocol::TokenUsage;

use crate::error::ModelError;
use crate::response_event::ResponseEvent;

/// Turns the SSE events of one response into response events.
pub(crate) trait WireEventParser: Send {
    /// Handles one SSE event (`event:` name and `data:` payload), pushing what it yields.
    /// An error event of the provider returns `Err`.
    fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<ResponseEvent>,
    ) -> Result<(), ModelError>;

    /// The byte stream ended: pushes final events, or returns
    /// [`ModelError::StreamDisconnected`] when the response did not complete.
    fn on_end(&mut self, out: &mut Vec<ResponseEvent>) -> Result<(), ModelError>;

    /// True once the response completed; the reader stops there.
    fn is_complete(&self) -> bool;

    /// The usage the provider reported so far, for an attempt that breaks before completing.
    /// `None` for providers that report usage only with the completed response.
    fn usage_so_far(&self) -> Option<TokenUsage> {
        None
    }
}

/// Parses an event payload as JSON, naming the event on failure.
pub(crate) fn parse_json(event: &str, data: &str) -> Result<serde_json::Value, ModelError> {
    serde_json::from_str(data).map_err(|err| ModelError::Decode {
        what: format!("sse event `{event}`"),
        message: format!("{err}: {}", excerpt(data)),
    })
}

/// The first 200 characters of a payload, for error messages.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or(text)),
        None => text.to_string(),
    }
}

/// True when `text` is one whole JSON value. The arguments of a tool call cut by the output
/// limit are not, nor is an empty text (the arguments never started).
pub(crate) fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// A string field of a JSON object.
pub(crate) fn str_field<'a>(value: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(serde_json::Value::as_str)
}

/// An integer field of a JSON object, 0 when absent.
pub(crate) fn int_field(value: Option<&serde_json::Value>, key: &str) -> i64 {
    value
        .and_then(|v| v.get(key))
        .and_then(serde_json::Value::as_i64)
        .unwrap_or(0)
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
