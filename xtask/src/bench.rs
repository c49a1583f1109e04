//! `cargo xtask bench`: runs the performance benches and prints one line per target: the figure,
//! its yardstick measured in the same run, and their ratio (criterion medians).
//!
//! The targets are the table of `bench/targets.rs`. Each bench binary runs once through
//! `cargo bench`, with `AGENTCTX_BENCH_FIGURES` naming a folder where a bench records figures
//! that are not timings (token totals, input sizes, a timeout); timings are read from criterion's
//! `estimates.json`. `--quick` shortens warm-up and measurement so the whole run (once built)
//! takes under two minutes. The method is described in docs/design/performance.md.

mod targets;

use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::Result;
use serde::Deserialize;

use crate::process::Cmd;

/// A bench binary: `cargo bench -p <package> --bench <bench> --features <features>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Suite {
    pub(crate) package: &'static str,
    pub(crate) bench: &'static str,
    pub(crate) features: &'static [&'static str],
}

/// Where a number comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Measure {
    /// The median time of a criterion bench, `(group, function)`, in seconds.
    Time(&'static str, &'static str),
    /// Bytes per second: the recorded byte count over the median time of `(group, function)`.
    Throughput(&'static str, &'static str, &'static str),
    /// A count a bench recorded (tokens).
    Count(&'static str),
    /// A duration a bench recorded, in seconds.
    RecordedSeconds(&'static str),
    /// A fixed budget, in seconds.
    Fixed(f64),
}

/// What a line must show to meet its target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Goal {
    /// figure / yardstick at most this.
    RatioAtMost(f64),
    /// figure / yardstick within 1 ± this.
    RatioWithin(f64),
    /// figure and yardstick within this factor of each other: figure / yardstick between
    /// 1 / factor and factor (two throughputs that should be the same, say).
    FactorWithin(f64),
    /// The figure at most this (seconds).
    FigureAtMost(f64),
    /// The figure at least `figure` (bytes per second), or figure / yardstick at least
    /// `ratio`: an absolute goal on a machine whose speed varies from run to run, with the
    /// ratio to a yardstick of the same run as its stable reading. Both are printed.
    FigureOrRatioAtLeast {
        /// Bytes per second.
        figure: f64,
        /// figure / yardstick.
        ratio: f64,
    },
    /// figure - yardstick at most this (seconds).
    ExcessAtMost(f64),
    /// Shown for comparison only.
    Report,
}

/// One printed line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Line {
    pub(crate) target: u8,
    pub(crate) what: &'static str,
    pub(crate) figure: Measure,
    pub(crate) yardstick: Measure,
    pub(crate) goal: Goal,
}

/// Criterion arguments of `--quick`: short warm-up and measurement, the fewest samples.
const QUICK_ARGS: [&str; 6] = [
    "--warm-up-time",
    "0.5",
    "--measurement-time",
    "1.5",
    "--sample-size",
    "10",
];

/// Runs every suite, then prints the report. Fails when a bench fails to build or run; a target
/// that is missed is reported, not an error (the machine is shared and noisy).
pub(crate) fn run(quick: bool) -> Result<()> {
    let target_dir = target_directory()?;
    let figures = target_dir.join("agentctx-bench");
    if figures.exists() {
        std::fs::remove_dir_all(&figures)
            .with_context(|| format!("could not clear {}", figures.display()))?;
    }
    std::fs::create_dir_all(&figures)
        .with_context(|| format!("could not create {}", figures.display()))?;
    for suite in targets::SUITES {
        let mut cmd = Cmd::cargo(["bench", "-p", suite.package, "--bench", suite.bench]);
        if !suite.features.is_empty() {
            cmd = cmd.args(["--features", &suite.features.join(",")]);
        }
        cmd = cmd.args(["--", "--noplot"]);
        if quick {
            cmd = cmd.args(QUICK_ARGS);
        }
        cmd.env("AGENTCTX_BENCH_FIGURES", figures.to_string_lossy())
            .run()?;
    }
    let source = Source {
        criterion: target_dir.join("criterion"),
        figures,
    };
    print!(
        "{}",
        report(targets::LINES, &|measure| source.value(measure))
    );
    Ok(())
}

fn target_directory() -> Result<PathBuf> {
    #[derive(Deserialize)]
    struct TargetDir {
        target_directory: PathBuf,
    }
    let json = Cmd::cargo(["metadata", "--format-version", "1", "--no-deps"]).read_stdout()?;
    let parsed: TargetDir =
        serde_json::from_str(&json).context("cargo metadata wrote unexpected JSON")?;
    Ok(parsed.target_directory)
}

/// Reads measures from criterion's output and the recorded figures.
struct Source {
    criterion: PathBuf,
    figures: PathBuf,
}

impl Source {
    fn value(&self, measure: Measure) -> Option<f64> {
        match measure {
            Measure::Time(group, function) => self.median_seconds(group, function),
            Measure::Throughput(group, function, bytes) => {
                let seconds = self.median_seconds(group, function)?;
                Some(self.recorded(bytes)? / seconds)
            }
            Measure::Count(key) | Measure::RecordedSeconds(key) => self.recorded(key),
            Measure::Fixed(seconds) => Some(seconds),
        }
    }

    fn median_seconds(&self, group: &str, function: &str) -> Option<f64> {
        let path = self
            .criterion
            .join(group)
            .join(function)
            .join("new/estimates.json");
        median_from_estimates(&std::fs::read_to_string(path).ok()?)
    }

    fn recorded(&self, key: &str) -> Option<f64> {
        read_number(&self.figures.join(key))
    }
}

fn read_number(path: &Path) -> Option<f64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The median of a criterion `estimates.json`, in seconds.
pub(crate) fn median_from_estimates(json: &str) -> Option<f64> {
    #[derive(Deserialize)]
    struct Estimates {
        median: Estimate,
    }
    #[derive(Deserialize)]
    struct Estimate {
        point_estimate: f64,
    }
    let estimates: Estimates = serde_json::from_str(json).ok()?;
    Some(estimates.median.point_estimate / 1e9)
}

/// The report: one line per [`Line`], `value` giving each measure (`None` when not measured).
pub(crate) fn report(lines: &[Line], value: &dyn Fn(Measure) -> Option<f64>) -> String {
    let mut out = String::new();
    for line in lines {
        let figure = value(line.figure);
        let yardstick = value(line.yardstick);
        let ratio = match (figure, yardstick) {
            (Some(figure), Some(yardstick)) if yardstick != 0.0 => Some(figure / yardstick),
            _ => None,
        };
        let verdict = match (figure, yardstick, ratio) {
            (Some(figure), Some(yardstick), Some(ratio)) => {
                verdict(line.goal, figure, yardstick, ratio)
            }
            _ => "not measured".to_owned(),
        };
        let _ = writeln!(
            out,
            "target {}: {} | figure {} | yardstick {} | ratio {} | {verdict}",
            line.target,
            line.what,
            show(line.figure, figure),
            show(line.yardstick, yardstick),
            ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.4}")),
        );
    }
    out
}

fn verdict(goal: Goal, figure: f64, yardstick: f64, ratio: f64) -> String {
    let (met, goal) = match goal {
        Goal::RatioAtMost(most) => (ratio <= most, format!("ratio <= {most:.4}")),
        Goal::RatioWithin(within) => (
            (ratio - 1.0).abs() <= within,
            format!("ratio within 1 +/- {within}"),
        ),
        Goal::FactorWithin(factor) => (
            ratio <= factor && ratio * factor >= 1.0,
            format!("ratio within 1/{factor} .. {factor}"),
        ),
        Goal::FigureAtMost(most) => (figure <= most, format!("<= {}", seconds(most))),
        Goal::FigureOrRatioAtLeast {
            figure: least,
            ratio: least_ratio,
        } => (
            figure >= least || ratio >= least_ratio,
            format!(
                ">= {} ({}) or ratio >= {least_ratio:.4} ({})",
                per_second(least),
                if figure >= least { "met" } else { "missed" },
                if ratio >= least_ratio {
                    "met"
                } else {
                    "missed"
                },
            ),
        ),
        Goal::ExcessAtMost(most) => (
            figure - yardstick <= most,
            format!(
                "excess {} <= {}",
                seconds(figure - yardstick),
                seconds(most)
            ),
        ),
        Goal::Report => return "for comparison".to_owned(),
    };
    format!("goal {goal}: {}", if met { "met" } else { "MISSED" })
}

fn show(measure: Measure, value: Option<f64>) -> String {
    let Some(value) = value else {
        return "-".to_owned();
    };
    match measure {
        Measure::Time(..) | Measure::RecordedSeconds(_) | Measure::Fixed(_) => seconds(value),
        Measure::Throughput(..) => per_second(value),
        Measure::Count(_) => format!("{value:.0} tokens"),
    }
}

fn seconds(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1.0 {
        format!("{value:.3} s")
    } else if magnitude >= 1e-3 {
        format!("{:.3} ms", value * 1e3)
    } else if magnitude >= 1e-6 {
        format!("{:.1} us", value * 1e6)
    } else {
        format!("{:.0} ns", value * 1e9)
    }
}

fn per_second(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.2} GB/s", bytes / 1e9)
    } else {
        format!("{:.0} MB/s", bytes / 1e6)
    }
}

#[cfg(test)]
#[path = "bench_tests.rs"]
mod tests;
