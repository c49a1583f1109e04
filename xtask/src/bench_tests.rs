use pretty_assertions::assert_eq;

use super::*;

const LINES: &[Line] = &[
    Line {
        target: 2,
        what: "speed",
        figure: Measure::Time("g", "fast"),
        yardstick: Measure::Time("g", "slow"),
        goal: Goal::RatioAtMost(0.05),
    },
    Line {
        target: 2,
        what: "accuracy",
        figure: Measure::Count("ours"),
        yardstick: Measure::Count("exact"),
        goal: Goal::RatioWithin(0.05),
    },
    Line {
        target: 4,
        what: "reading",
        figure: Measure::Throughput("r", "codex", "bytes"),
        yardstick: Measure::Throughput("r", "raw", "bytes"),
        goal: Goal::FigureOrRatioAtLeast {
            figure: 1e9,
            ratio: 0.2,
        },
    },
    Line {
        target: 4,
        what: "lazy reading",
        figure: Measure::Throughput("r", "codex", "bytes"),
        yardstick: Measure::Throughput("r", "raw", "bytes"),
        goal: Goal::FigureOrRatioAtLeast {
            figure: 1e9,
            ratio: 0.15,
        },
    },
    Line {
        target: 6,
        what: "hung",
        figure: Measure::Time("o", "hung"),
        yardstick: Measure::RecordedSeconds("timeout"),
        goal: Goal::ExcessAtMost(5e-3),
    },
    Line {
        target: 7,
        what: "linear",
        figure: Measure::Throughput("p", "small", "small_bytes"),
        yardstick: Measure::Throughput("p", "large", "large_bytes"),
        goal: Goal::FactorWithin(1.3),
    },
    Line {
        target: 7,
        what: "slower when small",
        figure: Measure::Throughput("p", "slow_small", "small_bytes"),
        yardstick: Measure::Throughput("p", "large", "large_bytes"),
        goal: Goal::FactorWithin(1.3),
    },
    Line {
        target: 7,
        what: "faster when small",
        figure: Measure::Throughput("p", "fast_small", "small_bytes"),
        yardstick: Measure::Throughput("p", "large", "large_bytes"),
        goal: Goal::FactorWithin(1.3),
    },
    Line {
        target: 6,
        what: "missing",
        figure: Measure::Time("o", "absent"),
        yardstick: Measure::Fixed(200e-6),
        goal: Goal::FigureAtMost(200e-6),
    },
];

fn values(measure: Measure) -> Option<f64> {
    match measure {
        Measure::Time("g", "fast") => Some(1e-4),
        Measure::Time("g", "slow") => Some(4e-3),
        Measure::Count("ours") => Some(1040.0),
        Measure::Count("exact") => Some(1000.0),
        Measure::Throughput(_, "codex", _) => Some(8e8),
        Measure::Throughput(_, "raw", _) => Some(5e9),
        Measure::Time("o", "hung") => Some(0.1021),
        // 1.25x and 1/1.4x the large file's throughput, and 1.4x it.
        Measure::Throughput("p", "small", _) => Some(2.5e8),
        Measure::Throughput("p", "slow_small", _) => Some(2e8 / 1.4),
        Measure::Throughput("p", "fast_small", _) => Some(2.8e8),
        Measure::Throughput("p", "large", _) => Some(2e8),
        Measure::RecordedSeconds("timeout") => Some(0.1),
        Measure::Fixed(seconds) => Some(seconds),
        _ => None,
    }
}

#[test]
fn report_prints_figure_yardstick_ratio_and_verdict() {
    let expected = concat!(
        "target 2: speed | figure 100.0 us | yardstick 4.000 ms | ratio 0.0250 | goal ratio <= 0.0500: met\n",
        "target 2: accuracy | figure 1040 tokens | yardstick 1000 tokens | ratio 1.0400 | goal ratio within 1 +/- 0.05: met\n",
        "target 4: reading | figure 800 MB/s | yardstick 5.00 GB/s | ratio 0.1600 | goal >= 1.00 GB/s (missed) or ratio >= 0.2000 (missed): MISSED\n",
        "target 4: lazy reading | figure 800 MB/s | yardstick 5.00 GB/s | ratio 0.1600 | goal >= 1.00 GB/s (missed) or ratio >= 0.1500 (met): met\n",
        "target 6: hung | figure 102.100 ms | yardstick 100.000 ms | ratio 1.0210 | goal excess 2.100 ms <= 5.000 ms: met\n",
        "target 7: linear | figure 250 MB/s | yardstick 200 MB/s | ratio 1.2500 | goal ratio within 1/1.3 .. 1.3: met\n",
        "target 7: slower when small | figure 143 MB/s | yardstick 200 MB/s | ratio 0.7143 | goal ratio within 1/1.3 .. 1.3: MISSED\n",
        "target 7: faster when small | figure 280 MB/s | yardstick 200 MB/s | ratio 1.4000 | goal ratio within 1/1.3 .. 1.3: MISSED\n",
        "target 6: missing | figure - | yardstick 200.0 us | ratio - | not measured\n",
    );
    assert_eq!(report(LINES, &values), expected);
}

#[test]
fn reads_the_median_of_criterion_estimates() {
    let json = r#"{"mean":{"point_estimate":2000.0},"median":{"point_estimate":1500.0,"standard_error":3.0}}"#;
    assert_eq!(median_from_estimates(json), Some(1.5e-6));
    assert_eq!(median_from_estimates("{}"), None);
}

#[test]
fn every_line_reads_a_suite_that_runs() {
    // A Time or Throughput measure names a criterion group; each group is one of the suites'.
    let groups = [
        "token_estimation",
        "changed_files_diff",
        "read_rollout",
        "json_parse",
        "orchestrator",
        "per_turn",
        "per_turn_parts",
        "memory_claim",
        "memory_idle_start",
        "replay_throughput",
    ];
    for line in targets::LINES {
        for measure in [line.figure, line.yardstick] {
            if let Measure::Time(group, _) | Measure::Throughput(group, _, _) = measure {
                assert!(groups.contains(&group), "{group} is no suite's group");
            }
        }
    }
    assert_eq!(targets::SUITES.len(), 8);
    // Lines come in target order, every target of docs/design/performance.md present.
    let order: Vec<u8> = targets::LINES.iter().map(|line| line.target).collect();
    assert!(order.is_sorted(), "{order:?}");
    for target in 1..=9 {
        assert!(order.contains(&target), "target {target} has no line");
    }
}
