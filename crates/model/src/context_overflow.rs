//! The numbers of a context-window error, read from the provider's message.
//!
//! vLLM (and older OpenAI models) answer an over-long request with a 400 whose message names
//! the window and the request's size; compaction needs both to know how much to cut. The error
//! is classified as [`ModelError::ContextWindowExceeded`] by its message; this reads the
//! numbers from that same message when asked.

use crate::error::ModelError;

/// A request that did not fit: the model's window and what the request needed, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextOverflow {
    /// The model's context window.
    pub limit: i64,
    /// What the request needed (input, plus the output it asked for when the server counts it).
    pub requested: i64,
}

impl ModelError {
    /// The window and the request's size of a [`ModelError::ContextWindowExceeded`], when the
    /// provider's message names both; `None` otherwise.
    pub fn context_overflow(&self) -> Option<ContextOverflow> {
        match self {
            Self::ContextWindowExceeded { message, .. } => parse_context_overflow(message),
            _ => None,
        }
    }
}

/// Reads the message forms vLLM and OpenAI use:
///
/// - "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens
///   (28904 in the messages, 4096 in the completion). ..."
/// - "This model's maximum context length is 40960 tokens. However, your request has 41000
///   input tokens. ..."
/// - "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context
///   length is 32768 tokens and your request has 30000 input tokens (4096 > 32768 - 30000)."
///   (the request needed the input plus the output it asked for)
/// - "This model's maximum context length is 8192 tokens. However, your messages resulted in
///   9000 tokens. ..."
pub(crate) fn parse_context_overflow(message: &str) -> Option<ContextOverflow> {
    let lower = message.to_lowercase();
    let limit = number_after(&lower, "maximum context length is ")?;
    let requested = ["you requested ", "resulted in ", "your request has "]
        .iter()
        .find_map(|phrase| number_after(&lower, phrase))?;
    let output = number_after(&lower, "is too large: ").unwrap_or(0);
    Some(ContextOverflow {
        limit,
        requested: requested.saturating_add(output),
    })
}

/// The integer right after the first `phrase` in `text` (digits and thousands separators).
fn number_after(text: &str, phrase: &str) -> Option<i64> {
    let start = text.find(phrase)? + phrase.len();
    let digits: String = text
        .get(start..)?
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
#[path = "context_overflow_tests.rs"]
mod tests;
