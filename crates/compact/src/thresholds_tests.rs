use pretty_assertions::assert_eq;

use super::*;
use crate::config::AutoCompactTokens;
use crate::config::BudgetKeyword;

fn window_200k() -> ContextWindow {
    ContextWindow::new(200_000, Some(32_000), &CompactConfig::default())
}

#[test]
fn the_reserve_is_the_model_output_limit_capped_at_twenty_thousand() {
    let config = CompactConfig::default();
    assert_eq!(window_200k().reserved_output_tokens, 20_000);
    assert_eq!(
        ContextWindow::new(200_000, Some(8_192), &config).reserved_output_tokens,
        8_192
    );
    assert_eq!(
        ContextWindow::new(200_000, None, &config).effective_tokens(),
        180_000
    );
}

#[test]
fn default_levels_are_the_offsets_below_the_effective_window() {
    let thresholds = CompactionThresholds::new(window_200k(), &CompactConfig::default(), 500);
    assert_eq!(
        thresholds,
        CompactionThresholds {
            effective_window: 180_000,
            warning: 160_000,
            error: 160_000,
            auto_compact: 167_000,
            window_auto_compact: 167_000,
            blocking: 177_000,
        }
    );
}

#[test]
fn levels_are_reached_at_their_exact_token_count() {
    let thresholds = CompactionThresholds::new(window_200k(), &CompactConfig::default(), 500);
    assert_eq!(thresholds.level(159_999), ThresholdLevel::Normal);
    assert_eq!(thresholds.level(160_000), ThresholdLevel::Error);
    assert_eq!(thresholds.level(166_999), ThresholdLevel::Error);
    assert_eq!(thresholds.level(167_000), ThresholdLevel::AutoCompact);
    assert_eq!(thresholds.level(177_000), ThresholdLevel::Blocking);
}

#[test]
fn the_percentage_override_moves_the_trigger_earlier_never_later() {
    let mut config = CompactConfig {
        auto_compact_percent_override: Some(50),
        ..CompactConfig::default()
    };
    let early = CompactionThresholds::new(window_200k(), &config, 500);
    assert_eq!(early.auto_compact, 90_000);
    // The warning and error levels never sit above the trigger.
    assert_eq!((early.warning, early.error), (90_000, 90_000));

    config.auto_compact_percent_override = Some(99);
    let late = CompactionThresholds::new(window_200k(), &config, 500);
    assert_eq!(late.auto_compact, 167_000);
}

#[test]
fn the_blocking_override_is_absolute_and_capped_at_the_effective_window() {
    let mut config = CompactConfig {
        blocking_limit_override: Some(150_000),
        ..CompactConfig::default()
    };
    let thresholds = CompactionThresholds::new(window_200k(), &config, 500);
    assert_eq!(thresholds.blocking, 150_000);
    // The trigger stays below the blocking limit with room for the summary request.
    assert_eq!(thresholds.auto_compact, 150_000 - 500 - 1);

    config.blocking_limit_override = Some(1_000_000);
    assert_eq!(
        CompactionThresholds::new(window_200k(), &config, 500).blocking,
        180_000
    );
}

#[test]
fn the_trigger_leaves_room_for_the_summary_request_when_the_buffer_is_small() {
    let config = CompactConfig {
        auto_compact_buffer_tokens: 0,
        ..CompactConfig::default()
    };
    let thresholds = CompactionThresholds::new(window_200k(), &config, 2_000);
    assert_eq!(thresholds.blocking, 177_000);
    assert!(thresholds.auto_compact + 2_000 < thresholds.blocking);
}

#[test]
fn a_4096_token_window_keeps_room_for_the_answer_and_compacts_near_full() {
    let config = CompactConfig::default();
    let window = ContextWindow::new(4_096, None, &config);
    // A quarter of the window is kept for the answer, not 20,000 tokens (which left nothing).
    assert_eq!(window.reserved_output_tokens, 1_024);
    let thresholds = CompactionThresholds::new(window, &config, 113);
    // The trigger sits near the top of the effective window (87.5%), not at 0.
    assert_eq!(
        thresholds,
        CompactionThresholds {
            effective_window: 3_072,
            warning: 2_458,
            error: 2_458,
            auto_compact: 2_688,
            window_auto_compact: 2_688,
            blocking: 2_976,
        }
    );
    // A model whose output limit is smaller than the share keeps its own limit.
    assert_eq!(
        ContextWindow::new(4_096, Some(512), &config).reserved_output_tokens,
        512
    );
}

/// The table of docs/design/compaction.md, "Small windows".
#[test]
fn the_documented_levels_per_window() {
    let config = CompactConfig::default();
    let levels = |window_tokens: u64| {
        let window = ContextWindow::new(window_tokens, None, &config);
        let thresholds = CompactionThresholds::new(window, &config, 113);
        (
            window.reserved_output_tokens,
            thresholds.effective_window,
            thresholds.warning,
            thresholds.auto_compact,
            thresholds.blocking,
        )
    };
    assert_eq!(levels(4_096), (1_024, 3_072, 2_458, 2_688, 2_976));
    assert_eq!(levels(16_384), (4_096, 12_288, 9_831, 10_752, 11_904));
    assert_eq!(levels(128_000), (20_000, 108_000, 88_000, 95_000, 105_000));
    assert_eq!(
        levels(200_000),
        (20_000, 180_000, 160_000, 167_000, 177_000)
    );
}

#[test]
fn auto_compaction_respects_its_switches_and_the_least_history_length() {
    let thresholds = CompactionThresholds::new(window_200k(), &CompactConfig::default(), 500);
    let config = CompactConfig::default();
    assert!(thresholds.should_auto_compact(170_000, 10, &config));
    assert!(!thresholds.should_auto_compact(166_000, 10, &config));
    assert!(!thresholds.should_auto_compact(170_000, 3, &config));

    let mut off = CompactConfig::default();
    off.apply_env_vars([("AGENTCTX_DISABLE_AUTO_COMPACT", "1")])
        .unwrap();
    assert!(!thresholds.should_auto_compact(170_000, 10, &off));
    let mut all_off = CompactConfig::default();
    all_off
        .apply_env_vars([("AGENTCTX_DISABLE_COMPACT", "1")])
        .unwrap();
    assert!(!thresholds.should_auto_compact(170_000, 10, &all_off));
}

fn window_1m() -> ContextWindow {
    ContextWindow::new(1_000_000, Some(64_000), &CompactConfig::default())
}

#[test]
fn a_token_budget_moves_the_trigger_down_to_it_on_a_large_window() {
    let window = CompactionThresholds::new(window_1m(), &CompactConfig::default(), 500);
    assert_eq!(window.auto_compact, 967_000);
    let config = CompactConfig {
        auto_compact_tokens: AutoCompactTokens::Tokens(400_000),
        ..CompactConfig::default()
    };
    let budget = CompactionThresholds::new(window_1m(), &config, 500);
    assert_eq!(budget.auto_compact, 400_000);
    assert_eq!(budget.blocking, window.blocking);
    assert!(budget.warning <= budget.error && budget.error <= budget.auto_compact);
    assert!(budget.should_auto_compact(400_000, 10, &config));
    assert!(!budget.should_auto_compact(399_999, 10, &config));
}

#[test]
fn a_budget_never_moves_the_trigger_later_and_auto_or_off_leave_it() {
    let window = CompactionThresholds::new(window_200k(), &CompactConfig::default(), 500);
    let late = CompactConfig {
        auto_compact_tokens: AutoCompactTokens::Tokens(190_000),
        ..CompactConfig::default()
    };
    assert_eq!(CompactionThresholds::new(window_200k(), &late, 500), window);
    for keyword in [BudgetKeyword::Auto, BudgetKeyword::Off] {
        let config = CompactConfig {
            auto_compact_tokens: AutoCompactTokens::Keyword(keyword),
            ..CompactConfig::default()
        };
        assert_eq!(
            CompactionThresholds::new(window_200k(), &config, 500),
            window
        );
    }
    assert_eq!(window.with_budget(0), window);
}
