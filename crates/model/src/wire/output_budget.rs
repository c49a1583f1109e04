//! The output limit a request asks for, sized so that input and output fit the context window.
//!
//! Anthropic Messages always sends `max_tokens` (see `anthropic_messages_max_tokens.rs`); Chat
//! Completions sends one for a model whose own limit is unknown, since a local server given none
//! generates until its window is full (llama.cpp's `n_predict` defaults to -1, "infinite") and
//! the next request then overflows. Every figure here scales with the window: reserves made for
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

#[cfg(test)]
#[path = "output_budget_tests.rs"]
mod tests;
