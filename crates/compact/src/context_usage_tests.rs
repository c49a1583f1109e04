use agentctx_context::ApproxTokenEstimator;
use pretty_assertions::assert_eq;

use super::*;
use crate::config::CompactConfig;

fn window() -> ContextWindow {
    ContextWindow::new(200_000, Some(20_000), &CompactConfig::default())
}

fn history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::user_text("read the file"),
        ResponseItem::function_call("call-1", "Read", r#"{"file_path":"/a.rs"}"#),
        ResponseItem::function_call_output("call-1", "x".repeat(4_000)),
        ResponseItem::assistant_text("done"),
    ]
}

#[test]
fn usage_is_the_measured_input_plus_the_estimate_of_what_was_added_since() {
    let history = history();
    let estimator = ApproxTokenEstimator;
    let added = estimator.estimate_items(&history[2..]);
    let usage = ContextUsage::measure(
        &history,
        Some(LastRequestUsage {
            input_tokens: 50_000,
            history_len: 2,
        }),
        window(),
        &estimator,
    );
    assert_eq!(usage.measured_tokens, Some(50_000));
    assert_eq!(usage.used_tokens(), 50_000 + added);
    assert_eq!(usage.effective_window(), 180_000);
    assert_eq!(usage.tokens_left(), 180_000 - 50_000 - added);
}

#[test]
fn cached_input_is_already_inside_the_input_count() {
    let usage = TokenUsage {
        input_tokens: 90_000,
        cached_input_tokens: 80_000,
        output_tokens: 1_000,
        ..TokenUsage::default()
    };
    assert_eq!(
        LastRequestUsage::from_token_usage(&usage, 7),
        LastRequestUsage {
            input_tokens: 90_000,
            history_len: 7
        }
    );
}

#[test]
fn a_history_shorter_than_the_measured_request_is_estimated_whole() {
    let history = history();
    let estimator = ApproxTokenEstimator;
    let usage = ContextUsage::measure(
        &history,
        Some(LastRequestUsage {
            input_tokens: 170_000,
            history_len: 500,
        }),
        window(),
        &estimator,
    );
    assert_eq!(
        usage,
        ContextUsage::from_history(&history, window(), &estimator)
    );
    assert_eq!(usage.used_tokens(), estimator.estimate_items(&history));
}

#[test]
fn percentages_are_of_the_effective_window_and_clamped() {
    let estimator = ApproxTokenEstimator;
    let half = ContextUsage::measure(
        &[],
        Some(LastRequestUsage {
            input_tokens: 90_000,
            history_len: 0,
        }),
        window(),
        &estimator,
    );
    assert_eq!((half.percent_used(), half.percent_left()), (50, 50));

    let over = ContextUsage::measure(
        &[],
        Some(LastRequestUsage {
            input_tokens: 500_000,
            history_len: 0,
        }),
        window(),
        &estimator,
    );
    assert_eq!((over.percent_used(), over.tokens_left()), (100, 0));

    let empty_window = ContextWindow {
        window_tokens: 0,
        reserved_output_tokens: 0,
    };
    assert_eq!(
        ContextUsage::from_history(&[], empty_window, &estimator).percent_used(),
        100
    );
}

#[test]
fn measuring_from_sizes_gives_the_usage_measuring_the_items_gives() {
    let history = history();
    let estimator = ApproxTokenEstimator;
    let sizes: Vec<ItemSize> = history
        .iter()
        .map(|item| estimator.estimate_item_size(item))
        .collect();
    for last in [
        None,
        Some(LastRequestUsage {
            input_tokens: 50_000,
            history_len: 2,
        }),
        Some(LastRequestUsage {
            input_tokens: 50_000,
            history_len: 4,
        }),
        // Longer than the history: the measure is of items that are gone.
        Some(LastRequestUsage {
            input_tokens: 50_000,
            history_len: 9,
        }),
    ] {
        assert_eq!(
            ContextUsage::measure_sizes(&sizes, last, window()),
            ContextUsage::measure(&history, last, window(), &estimator),
            "{last:?}"
        );
    }
}

#[test]
fn a_reported_input_of_zero_or_far_below_the_estimate_is_replaced_by_the_estimate() {
    let reported = |input_tokens| TokenUsage {
        input_tokens,
        ..TokenUsage::default()
    };
    // LiteLLM's Responses output: zero.
    assert_eq!(
        LastRequestUsage::from_reported(&reported(0), 7, 3_000),
        LastRequestUsage {
            input_tokens: 3_000,
            history_len: 7
        }
    );
    // Under a quarter of the estimate: not a tokenizer difference.
    assert_eq!(
        LastRequestUsage::from_reported(&reported(749), 7, 3_000).input_tokens,
        3_000
    );
    // A quarter and above is believed, below or above the estimate.
    assert_eq!(
        LastRequestUsage::from_reported(&reported(750), 7, 3_000).input_tokens,
        750
    );
    assert_eq!(
        LastRequestUsage::from_reported(&reported(5_000), 7, 3_000).input_tokens,
        5_000
    );
}

#[test]
fn the_request_overhead_counts_only_when_nothing_was_measured() {
    let window = ContextWindow::new(4_096, None, &CompactConfig::default());
    let unmeasured = ContextUsage {
        measured_tokens: None,
        estimated_tokens: 100,
        window,
    };
    assert_eq!(
        unmeasured.with_unmeasured_overhead(900).used_tokens(),
        1_000
    );
    let measured = ContextUsage {
        measured_tokens: Some(1_000),
        ..unmeasured
    };
    assert_eq!(measured.with_unmeasured_overhead(900).used_tokens(), 1_100);
}
