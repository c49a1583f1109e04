use agentctx_model::ContextOverflow;
use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_huge_window_keeps_seventy_percent_and_an_unknown_one_the_default() {
    assert_eq!(
        stage_one_token_budget(Some(1_000_000), Some(32_000)),
        Some(700_000)
    );
    let fixed = stage_one_fixed_tokens();
    assert_eq!(
        stage_one_token_budget(Some(400_000), Some(128_000)),
        usize::try_from((400_000 - 128_000) * 100 / 110 - fixed).ok()
    );
    assert_eq!(stage_one_token_budget(None, None), Some(150_000));
    assert_eq!(stage_one_token_budget(Some(0), None), Some(150_000));
}

#[test]
fn a_small_window_leaves_room_for_the_reply_the_instructions_and_the_margin() {
    let fixed = stage_one_fixed_tokens();
    // 16,384 tokens, output unknown: 4,096 reserved, the rest less 10%, less the fixed part.
    let budget = stage_one_token_budget(Some(16_384), None).unwrap() as i64;
    assert_eq!(budget, (16_384 - 4_096) * 100 / 110 - fixed);
    assert!(budget + fixed + 4_096 <= 16_384);
    // A known output limit is reserved whole, up to half the window.
    assert_eq!(stage_one_output_reserve(16_384, Some(2_048)), 2_048);
    assert_eq!(stage_one_output_reserve(16_384, Some(16_384)), 8_192);
    assert_eq!(stage_one_output_reserve(200_000, None), 8_192);
}

#[test]
fn a_window_with_no_room_left_has_no_budget() {
    assert_eq!(stage_one_token_budget(Some(1_024), None), None);
    assert!(stage_one_token_budget(Some(4_096), None).is_some());
}

#[test]
fn an_overflow_shrinks_the_budget_by_the_servers_numbers_or_by_default() {
    // The server counted 18,341 tokens against 16,384 with 1,000 for the reply.
    let overflow = ContextOverflow {
        input_tokens: Some(18_341),
        max_tokens: Some(1_000),
        context_window: Some(16_384),
    };
    assert_eq!(
        shrink_after_overflow(10_000, Some(overflow)),
        Some(10_000 * 15_384 / 18_341 * 9 / 10)
    );
    assert_eq!(shrink_after_overflow(10_000, None), Some(6_000));
    // Numbers that would not shrink it still take a tenth off.
    let roomy = ContextOverflow {
        input_tokens: Some(100),
        max_tokens: None,
        context_window: Some(16_384),
    };
    assert_eq!(shrink_after_overflow(10_000, Some(roomy)), Some(9_000));
    assert_eq!(shrink_after_overflow(300, None), None);
}
