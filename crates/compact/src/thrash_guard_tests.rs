use pretty_assertions::assert_eq;

use super::*;
use crate::context_usage::LastRequestUsage;
use crate::thresholds::ContextWindow;

/// Usage at `percent` of a 100,000-token effective window.
fn usage_at(percent: u64) -> ContextUsage {
    let window = ContextWindow {
        window_tokens: 120_000,
        reserved_output_tokens: 20_000,
    };
    ContextUsage::measure(
        &[],
        Some(LastRequestUsage {
            input_tokens: percent * 1_000,
            history_len: 0,
        }),
        window,
        &agentctx_context::ApproxTokenEstimator,
    )
}

#[test]
fn usage_above_sixty_percent_after_compaction_is_ineffective() {
    let mut guard = ThrashGuard::new(ThrashGuardConfig::default());
    let start = Instant::now();
    let at_limit = guard.record_compaction(start, &usage_at(60));
    assert!(at_limit.effective);
    let above = guard.record_compaction(start + Duration::from_secs(60), &usage_at(61));
    assert!(!above.effective);
    assert_eq!(above.usage_percent_after, 61);
    assert_eq!(above.next_mode, CompactionMode::Normal);
    assert_eq!(above.warning, None);
}

#[test]
fn two_ineffective_in_a_row_make_the_next_aggressive_and_warn() {
    let mut guard = ThrashGuard::new(ThrashGuardConfig::default());
    let start = Instant::now();
    guard.record_compaction(start, &usage_at(80));
    let second = guard.record_compaction(start + Duration::from_secs(600), &usage_at(75));
    assert_eq!(second.next_mode, CompactionMode::Aggressive);
    assert_eq!(
        second.warning,
        Some(ThrashWarning::ConsecutiveIneffective {
            count: 2,
            limit_percent: 60
        })
    );

    // An effective (aggressive) compaction ends the streak.
    let third = guard.record_compaction(start + Duration::from_secs(1_200), &usage_at(30));
    assert_eq!(
        (third.next_mode, third.warning),
        (CompactionMode::Normal, None)
    );
}

#[test]
fn an_effective_compaction_between_two_ineffective_ones_breaks_the_streak() {
    let mut guard = ThrashGuard::new(ThrashGuardConfig::default());
    let start = Instant::now();
    guard.record_compaction(start, &usage_at(80));
    guard.record_compaction(start + Duration::from_secs(60), &usage_at(20));
    let third = guard.record_compaction(start + Duration::from_secs(120), &usage_at(80));
    assert_eq!(
        (third.next_mode, third.warning),
        (CompactionMode::Normal, None)
    );
}

#[test]
fn more_than_the_hourly_limit_makes_the_next_aggressive_until_the_hour_passes() {
    let config = ThrashGuardConfig {
        max_compactions_per_hour: 3,
        ..ThrashGuardConfig::default()
    };
    let mut guard = ThrashGuard::new(config);
    let start = Instant::now();
    for minute in 0..3 {
        let outcome =
            guard.record_compaction(start + Duration::from_secs(minute * 60), &usage_at(10));
        assert_eq!(outcome.warning, None);
    }
    let fourth = guard.record_compaction(start + Duration::from_secs(180), &usage_at(10));
    assert_eq!(
        fourth.warning,
        Some(ThrashWarning::TooFrequent {
            count: 4,
            per_hour_limit: 3
        })
    );
    assert_eq!(fourth.next_mode, CompactionMode::Aggressive);
    // One hour after the first, only three remain in the window.
    assert_eq!(
        guard.next_mode(start + Duration::from_secs(3_600)),
        CompactionMode::Normal
    );
}

#[test]
fn warning_texts_are_pinned() {
    insta::assert_snapshot!(
        "thrash_warnings",
        format!(
            "{}\n{}",
            ThrashWarning::ConsecutiveIneffective {
                count: 2,
                limit_percent: 60
            },
            ThrashWarning::TooFrequent {
                count: 7,
                per_hour_limit: 6
            }
        )
    );
}
