use pretty_assertions::assert_eq;

use super::*;

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

#[test]
fn input_estimate_rounds_up() {
    assert_eq!(estimate_input_tokens(0), 0);
    assert_eq!(estimate_input_tokens(1), 1);
    assert_eq!(estimate_input_tokens(3), 1);
    assert_eq!(estimate_input_tokens(4), 2);
}
