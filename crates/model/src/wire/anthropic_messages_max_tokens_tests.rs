use pretty_assertions::assert_eq;

use super::*;
use crate::wire::anthropic_messages::MIN_ANTHROPIC_MAX_TOKENS;

fn sonnet(estimated_input_tokens: i64, thinking_budget: Option<i64>) -> SizingInput {
    SizingInput {
        model_max_output: Some(64_000),
        context_window: 200_000,
        estimated_input_tokens,
        thinking_budget,
        interleaved: false,
    }
}

#[test]
fn a_short_input_gets_the_model_maximum() {
    assert_eq!(
        size_output(sonnet(10_000, None)),
        OutputBudget {
            max_tokens: 64_000,
            thinking_budget: None
        }
    );
}

#[test]
fn a_long_input_caps_max_tokens_at_the_room_left_minus_the_margin() {
    // 200000 - 150000 - 1024.
    assert_eq!(size_output(sonnet(150_000, None)).max_tokens, 48_976);
}

#[test]
fn a_full_window_still_sends_the_floor() {
    assert_eq!(
        size_output(sonnet(199_000, Some(2_048))),
        OutputBudget {
            max_tokens: MIN_ANTHROPIC_MAX_TOKENS,
            thinking_budget: Some(2_048)
        }
    );
}

#[test]
fn the_thinking_budget_shrinks_with_max_tokens_and_goes_when_it_cannot_fit() {
    // Room 10_000 - 1_024 = 8_976 for 64k of thinking: the answer keeps 1024.
    assert_eq!(
        size_output(sonnet(190_000, Some(64_000))),
        OutputBudget {
            max_tokens: 8_976,
            thinking_budget: Some(7_952)
        }
    );
    let tiny = SizingInput {
        model_max_output: Some(2_000),
        ..sonnet(0, Some(4_000))
    };
    assert_eq!(
        size_output(tiny),
        OutputBudget {
            max_tokens: 2_000,
            thinking_budget: None
        }
    );
}

#[test]
fn interleaved_thinking_may_exceed_max_tokens() {
    let interleaved = SizingInput {
        interleaved: true,
        ..sonnet(150_000, Some(64_000))
    };
    assert_eq!(
        size_output(interleaved),
        OutputBudget {
            max_tokens: 48_976,
            thinking_budget: Some(64_000)
        }
    );
}

#[test]
fn an_unknown_output_maximum_grows_to_fit_the_thinking_budget_within_the_window() {
    let unknown = SizingInput {
        model_max_output: None,
        ..sonnet(1_000, Some(32_000))
    };
    assert_eq!(
        size_output(unknown),
        OutputBudget {
            max_tokens: 32_000 + DEFAULT_ANTHROPIC_MAX_TOKENS,
            thinking_budget: Some(32_000)
        }
    );
}

fn small_window(estimated_input_tokens: i64) -> SizingInput {
    SizingInput {
        model_max_output: None,
        context_window: 4_096,
        estimated_input_tokens,
        thinking_budget: None,
        interleaved: false,
    }
}

#[test]
fn a_small_window_gets_a_quarter_of_it_and_input_plus_output_fit() {
    // "hi" in a 4,096-token window: the unknown maximum is a quarter of the window.
    let budget = size_output(small_window(10));
    assert_eq!(
        budget,
        OutputBudget {
            max_tokens: 1_024,
            thinking_budget: None
        }
    );
    // A longer input: capped by the room left (4096 - 3000 - a margin of 4096 / 16).
    let max_tokens = size_output(small_window(3_000)).max_tokens;
    assert_eq!(max_tokens, 4_096 - 3_000 - 256);
    // Less room than the floor: the floor, which may take the margin but still fits.
    let max_tokens = size_output(small_window(3_500)).max_tokens;
    assert_eq!(max_tokens, 512);
    assert!(max_tokens + 3_500 <= 4_096);
}

#[test]
fn the_floor_is_at_most_an_eighth_of_a_small_window() {
    // The input alone (nearly) fills the window: the floor, scaled to 4096 / 8, is sent.
    assert_eq!(size_output(small_window(4_000)).max_tokens, 512);
    assert_eq!(size_output(small_window(9_000)).max_tokens, 512);
}
