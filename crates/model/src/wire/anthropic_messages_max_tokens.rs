//! `max_tokens` and the thinking budget of an Anthropic request, sized to fit the window.
//!
//! The Messages API refuses a request whose input plus `max_tokens` exceed the context window
//! ("input length and `max_tokens` exceed context limit: A + B > C", see
//! <https://docs.claude.com/en/api/errors> and the `max_tokens` parameter of
//! <https://docs.claude.com/en/api/messages>). Sending the model's full output maximum (64k for
//! Sonnet 4) therefore breaks every request past about 136k input tokens, long before the
//! window is full. `max_tokens` is the model's maximum (for an unknown model
//! [`DEFAULT_ANTHROPIC_MAX_TOKENS`], at most a quarter of the window), capped by the room the
//! input leaves, never below `MIN_ANTHROPIC_MAX_TOKENS` scaled to at most an eighth of the
//! window (the rule all three wire formats share, `output_budget::output_limit`: a fixed floor of
//! 4,096 alone overflowed a 4,096-token window). Thinking counts against `max_tokens` and its budget must stay below it (except with
//! interleaved thinking, where the budget spans the whole turn:
//! <https://docs.claude.com/en/docs/build-with-claude/extended-thinking>), so the budget shrinks
//! with it and is left out when the minimum budget no longer fits.
//!
//! See docs/design/model-streaming.md, "Anthropic request shaping".

use crate::thinking::ANTHROPIC_MIN_BUDGET_TOKENS;
use crate::wire::anthropic_messages::DEFAULT_ANTHROPIC_MAX_TOKENS;
use crate::wire::output_budget::default_output_tokens;
use crate::wire::output_budget::output_limit;

/// What to send as `max_tokens` and `thinking.budget_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutputBudget {
    pub(crate) max_tokens: i64,
    pub(crate) thinking_budget: Option<i64>,
}

/// What sizing needs to know about the model and the request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SizingInput {
    /// The model's output maximum, when known.
    pub(crate) model_max_output: Option<i64>,
    pub(crate) context_window: i64,
    pub(crate) estimated_input_tokens: i64,
    /// The requested thinking budget (already at least the API's minimum).
    pub(crate) thinking_budget: Option<i64>,
    pub(crate) interleaved: bool,
}

/// Sizes `max_tokens` and the thinking budget to fit the window.
pub(crate) fn size_output(input: SizingInput) -> OutputBudget {
    let min_budget = i64::from(ANTHROPIC_MIN_BUDGET_TOKENS);
    let mut desired = input
        .model_max_output
        .unwrap_or_else(|| default_output_tokens(input.context_window));
    if let Some(budget) = input.thinking_budget
        && !input.interleaved
        && input.model_max_output.is_none()
        && budget >= desired
    {
        // Nothing says the model cannot write more: make room for the answer after the thinking.
        desired = budget.saturating_add(DEFAULT_ANTHROPIC_MAX_TOKENS);
    }
    let max_tokens = output_limit(
        Some(desired),
        input.context_window,
        input.estimated_input_tokens,
    );
    let thinking_budget = input.thinking_budget.and_then(|budget| {
        if input.interleaved || budget < max_tokens {
            return Some(budget);
        }
        // Leave at least the minimum budget's worth of tokens for the answer.
        let fitted = max_tokens.saturating_sub(min_budget);
        (fitted >= min_budget).then_some(fitted)
    });
    OutputBudget {
        max_tokens,
        thinking_budget,
    }
}

#[cfg(test)]
#[path = "anthropic_messages_max_tokens_tests.rs"]
mod tests;
