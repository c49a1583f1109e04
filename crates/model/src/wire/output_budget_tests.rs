use pretty_assertions::assert_eq;

use super::*;

#[test]
fn figures_are_fixed_in_large_windows_and_scale_in_small_ones() {
    let figures = |window: i64| {
        (
            window_margin(window),
            default_output_tokens(window),
            floor_for_window(MIN_OUTPUT_TOKENS, window),
        )
    };
    assert_eq!(figures(200_000), (1_024, 8_192, 4_096));
    assert_eq!(figures(32_768), (1_024, 8_192, 4_096));
    assert_eq!(figures(16_384), (1_024, 4_096, 2_048));
    assert_eq!(figures(4_096), (256, 1_024, 512));
    assert_eq!(figures(0), (0, 1, 1));
}

#[test]
fn the_output_limit_fits_the_room_left_and_falls_to_the_floor_when_there_is_none() {
    // Plenty of room: what was asked for.
    assert_eq!(fit_to_window(1_024, MIN_OUTPUT_TOKENS, 4_096, 10), 1_024);
    // 4096 - 3000 - 256.
    assert_eq!(fit_to_window(1_024, MIN_OUTPUT_TOKENS, 4_096, 3_000), 840);
    // Less room than the floor (340): the floor, eating into the margin.
    assert_eq!(fit_to_window(1_024, MIN_OUTPUT_TOKENS, 4_096, 3_500), 512);
    // No room: the floor, an eighth of the window.
    assert_eq!(fit_to_window(1_024, MIN_OUTPUT_TOKENS, 4_096, 5_000), 512);
    // Never above what was asked for.
    assert_eq!(fit_to_window(100, MIN_OUTPUT_TOKENS, 4_096, 5_000), 100);
}

#[test]
fn input_estimate_rounds_up() {
    assert_eq!(estimate_input_tokens(0), 0);
    assert_eq!(estimate_input_tokens(1), 1);
    assert_eq!(estimate_input_tokens(3), 1);
    assert_eq!(estimate_input_tokens(4), 2);
}
