//! How much of a session the stage-one request may carry, in tokens of the calibrated
//! estimator: the model's window less the reply's reserve, with a margin for the estimate, less
//! the instructions and the input template. A request the server still finds too long is sent
//! again with a smaller budget ([`shrink_after_overflow`]). See docs/design/memory.md, "The
//! stage-one budget".

use agentctx_context::CalibratedTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_model::ContextOverflow;
use agentctx_model::StructuredOutputMode;
use agentctx_model::output_schema_for;
use agentctx_model::structured_instructions;

use crate::phase1::StageOneOutput;
use crate::prompts::CONTEXT_WINDOW_PERCENT;
use crate::prompts::DEFAULT_STAGE_ONE_ROLLOUT_TOKEN_LIMIT;
use crate::prompts::STAGE_ONE_INPUT;
use crate::prompts::STAGE_ONE_SYSTEM;

/// Margin on the estimate, in percent: the calibrated estimator follows the o200k tokenizer
/// within about 5%, and a local model's tokenizer (a smaller vocabulary) counts more.
pub const STAGE_ONE_ESTIMATE_MARGIN_PERCENT: i64 = 10;
/// Tokens kept for the reply when the model's output limit is unknown (at most a quarter of
/// the window).
pub const STAGE_ONE_DEFAULT_OUTPUT_RESERVE: i64 = 8_192;
/// Tokens a server adds around the messages (chat template role markers, the output format).
pub const STAGE_ONE_REQUEST_OVERHEAD_TOKENS: i64 = 100;
/// The smallest rollout budget worth a request, in tokens; a window leaving less is refused.
pub const MIN_STAGE_ONE_ROLLOUT_TOKENS: usize = 256;
/// Share of the last budget kept after an overflow the server gave no numbers for, in percent.
const OVERFLOW_SHRINK_PERCENT: usize = 60;

/// Tokens kept for the reply: the model's output limit (at most half the window), or
/// [`STAGE_ONE_DEFAULT_OUTPUT_RESERVE`] (at most a quarter of it) when the limit is unknown.
pub fn stage_one_output_reserve(context_window: i64, max_output_tokens: Option<i64>) -> i64 {
    match max_output_tokens.filter(|tokens| *tokens > 0) {
        Some(limit) => limit.min(context_window / 2),
        None => STAGE_ONE_DEFAULT_OUTPUT_RESERVE.min(context_window / 4),
    }
}

/// Estimated tokens of the stage-one request without the session: the system prompt with the
/// schema as the plain-text fallback states it (the longest instructions any mode sends), the
/// input template, and the server's overhead.
pub fn stage_one_fixed_tokens() -> i64 {
    let estimator = CalibratedTokenEstimator;
    let instructions = structured_instructions(
        STAGE_ONE_SYSTEM,
        &output_schema_for::<StageOneOutput>(),
        StructuredOutputMode::Text,
    );
    let tokens = estimator.estimate_text(&instructions) + estimator.estimate_text(STAGE_ONE_INPUT);
    i64::try_from(tokens)
        .unwrap_or(i64::MAX)
        .saturating_add(STAGE_ONE_REQUEST_OVERHEAD_TOKENS)
}

/// The session's token budget (calibrated estimate) for a model with `context_window` tokens
/// and an output limit of `max_output_tokens`: what is left of the window after the reply's
/// reserve, [`STAGE_ONE_ESTIMATE_MARGIN_PERCENT`] and the fixed part of the request, and at
/// most [`CONTEXT_WINDOW_PERCENT`] of the window. [`DEFAULT_STAGE_ONE_ROLLOUT_TOKEN_LIMIT`]
/// when the window is unknown; `None` when less than [`MIN_STAGE_ONE_ROLLOUT_TOKENS`] is left.
pub fn stage_one_token_budget(
    context_window: Option<i64>,
    max_output_tokens: Option<i64>,
) -> Option<usize> {
    let Some(window) = context_window.filter(|window| *window > 0) else {
        return Some(DEFAULT_STAGE_ONE_ROLLOUT_TOKEN_LIMIT);
    };
    let room = window.saturating_sub(stage_one_output_reserve(window, max_output_tokens));
    let with_margin = room.saturating_mul(100) / (100 + STAGE_ONE_ESTIMATE_MARGIN_PERCENT);
    let budget = with_margin
        .saturating_sub(stage_one_fixed_tokens())
        .min(window.saturating_mul(CONTEXT_WINDOW_PERCENT) / 100);
    usize::try_from(budget)
        .ok()
        .filter(|budget| *budget >= MIN_STAGE_ONE_ROLLOUT_TOKENS)
}

/// A smaller budget after the server refused a request made with `budget` as too long. With
/// the numbers of its message (input tokens and window), the budget is scaled to what the
/// window holds after the reply, less a tenth; without, it keeps 60%. Always smaller than
/// `budget`; `None` when under [`MIN_STAGE_ONE_ROLLOUT_TOKENS`].
pub fn shrink_after_overflow(budget: usize, overflow: Option<ContextOverflow>) -> Option<usize> {
    let scaled = overflow.and_then(|overflow| {
        let input = usize::try_from(overflow.input_tokens?).ok()?;
        let window = overflow.context_window?;
        let room = usize::try_from(window.saturating_sub(overflow.max_tokens.unwrap_or(0))).ok()?;
        (input > 0).then(|| budget.saturating_mul(room) / input * 9 / 10)
    });
    let shrunk = scaled
        .unwrap_or(budget.saturating_mul(OVERFLOW_SHRINK_PERCENT) / 100)
        .min(budget.saturating_mul(9) / 10);
    (shrunk >= MIN_STAGE_ONE_ROLLOUT_TOKENS).then_some(shrunk)
}

#[cfg(test)]
#[path = "stage_one_budget_tests.rs"]
mod tests;
