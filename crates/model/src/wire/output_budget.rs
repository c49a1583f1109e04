//! The output limit a request asks for, sized so that input and output fit the context window.
//!
//! Anthropic Messages always sends `max_tokens` (see `anthropic_messages_max_tokens.rs`); Chat
//! Completions (`max_tokens` / `max_completion_tokens`) and Responses (`max_output_tokens`)
//! send one for a model whose own limit is unknown, since a local server given none generates
//! until its window is full (llama.cpp's `n_predict` defaults to -1, "infinite") and the next
//! request then overflows. All three size it with [`output_limit`]. Every figure here scales with the window: reserves made for
//! a 200,000-token window would leave nothing of a 4,096-token one, and a fixed floor of 4,096
//! output tokens alone overflows it. At 32,768 tokens and above the figures are the fixed ones.
//!
//! See docs/design/model-streaming.md, "Anthropic request shaping", and
//! docs/design/model-providers.md, "Chat Completions".

/// Bytes of request JSON per token assumed when estimating the input. Claude's tokenizer yields
/// about 3.5 characters per token on English prose and fewer on code and JSON, as do the BPE
/// tokenizers of local models; 3 errs on the side of a smaller output limit, which costs nothing
/// unless the answer really needs the last tokens.
pub(crate) const BYTES_PER_TOKEN: usize = 3;

/// Tokens kept free between the estimated input plus the output limit and the window, for what
/// the estimate cannot see (the server's framing of messages, tool definitions and images); at
/// most a sixteenth of the window.
pub(crate) const WINDOW_MARGIN_TOKENS: i64 = 1_024;

/// The output limit of a model whose own limit is unknown; at most a quarter of the window, so a
/// small window keeps three quarters for the conversation. Continue sends 4,096 for such a model
/// (continuedev/continue, `core/llm/constants.ts`, `DEFAULT_MAX_TOKENS`); codex sends none and
/// leaves it to the server, which on llama.cpp means the rest of the window.
pub(crate) const DEFAULT_OUTPUT_TOKENS: i64 = 8_192;

/// The smallest output limit sent however full the window is; at most an eighth of the window.
pub(crate) const MIN_OUTPUT_TOKENS: i64 = 4_096;

/// The input tokens of `input_bytes` bytes of request JSON, rounded up.
pub(crate) fn estimate_input_tokens(input_bytes: usize) -> i64 {
    i64::try_from(input_bytes.div_ceil(BYTES_PER_TOKEN)).unwrap_or(i64::MAX)
}

/// [`WINDOW_MARGIN_TOKENS`], at most a sixteenth of the window.
pub(crate) fn window_margin(context_window: i64) -> i64 {
    WINDOW_MARGIN_TOKENS.min(context_window / 16).max(0)
}

/// [`DEFAULT_OUTPUT_TOKENS`], at most a quarter of the window (and at least one token).
pub(crate) fn default_output_tokens(context_window: i64) -> i64 {
    DEFAULT_OUTPUT_TOKENS.min(context_window / 4).max(1)
}

/// `floor`, at most an eighth of the window (and at least one token).
pub(crate) fn floor_for_window(floor: i64, context_window: i64) -> i64 {
    floor.min(context_window / 8).max(1)
}

/// The output limit for `desired` tokens: capped by the room the input leaves in the window
/// (less the margin), never below `floor` scaled to the window (nor above `desired`).
///
/// When the input alone fills the window the floor is sent: the request stays well-formed, and
/// the server's context error is what starts compaction.
pub(crate) fn fit_to_window(
    desired: i64,
    floor: i64,
    context_window: i64,
    estimated_input_tokens: i64,
) -> i64 {
    let room = context_window
        .saturating_sub(estimated_input_tokens)
        .saturating_sub(window_margin(context_window));
    let floor = floor_for_window(floor, context_window).min(desired);
    desired.min(room).max(floor)
}

/// The output limit a request asks for: `desired` (the model's own limit, when known), else
/// [`DEFAULT_OUTPUT_TOKENS`] at most a quarter of the window; then fitted to the room the
/// estimated input leaves ([`fit_to_window`], never below [`MIN_OUTPUT_TOKENS`] scaled to the
/// window). The one rule of the three wire formats.
pub(crate) fn output_limit(
    desired: Option<i64>,
    context_window: i64,
    estimated_input_tokens: i64,
) -> i64 {
    fit_to_window(
        desired.unwrap_or_else(|| default_output_tokens(context_window)),
        MIN_OUTPUT_TOKENS,
        context_window,
        estimated_input_tokens,
    )
}

/// Counts the bytes written to it: the size of a request's JSON without keeping it.
#[derive(Debug, Default)]
pub(crate) struct ByteCount(pub(crate) usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes of `value` written as JSON (0 when it cannot be written).
pub(crate) fn json_bytes(value: &impl serde::Serialize) -> usize {
    let mut count = ByteCount::default();
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

#[cfg(test)]
#[path = "output_budget_tests.rs"]
mod tests;
