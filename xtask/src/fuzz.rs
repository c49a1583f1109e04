//! `cargo xtask fuzz --seconds N [TARGET...]`: runs each cargo-fuzz target under `fuzz/` for N
//! seconds on nightly, seeded from `fuzz/seeds/<target>` (committed) and growing
//! `fuzz/corpus/<target>` (not committed), then prints a table of executions per target.
//!
//! A crash stops nothing: every target runs, the crashing input stays in
//! `fuzz/artifacts/<target>/`, and the command fails at the end naming the targets that
//! crashed. Each crash becomes a regression test in the crate it found (see
//! docs/reliability.md).

use anyhow::Result;
use anyhow::bail;

use crate::process::Cmd;

/// The fuzz project, relative to the workspace root.
pub(crate) const FUZZ_DIR: &str = "fuzz";

/// What one target's run reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TargetRun {
    pub(crate) target: String,
    pub(crate) ok: bool,
    /// Inputs executed, from libFuzzer's final statistics (`None` when it printed none).
    pub(crate) executions: Option<u64>,
}

/// The target names `cargo fuzz list` printed, one a line.
pub(crate) fn parse_target_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The executions libFuzzer reported: `stat::number_of_executed_units: N` with
/// `-print_final_stats=1`, else the last `Done N runs` line.
pub(crate) fn parse_executions(stderr: &str) -> Option<u64> {
    let from_stats = stderr.lines().rev().find_map(|line| {
        line.trim()
            .strip_prefix("stat::number_of_executed_units:")
            .and_then(|n| n.trim().parse().ok())
    });
    from_stats.or_else(|| {
        stderr.lines().rev().find_map(|line| {
            line.trim()
                .strip_prefix("Done ")
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok())
        })
    })
}

/// The report table, one row per target.
pub(crate) fn render_table(runs: &[TargetRun], seconds: u64) -> String {
    let mut table = format!(
        "{:<16} {:>8} {:>14}  result\n",
        "target", "seconds", "executions"
    );
    for run in runs {
        let executions = run
            .executions
            .map_or_else(|| "?".to_owned(), |n| n.to_string());
        let result = if run.ok {
            "ok"
        } else {
            "CRASH (see fuzz/artifacts)"
        };
        table.push_str(&format!(
            "{:<16} {seconds:>8} {executions:>14}  {result}\n",
            run.target
        ));
    }
    table
}

pub(crate) fn run(seconds: u64, only: &[String]) -> Result<()> {
    let listed = Cmd::cargo(["+nightly", "fuzz", "list"])
        .current_dir(crate::workspace::root().join(FUZZ_DIR))
        .read_stdout()?;
    let mut targets = parse_target_list(&listed);
    if !only.is_empty() {
        if let Some(unknown) = only.iter().find(|name| !targets.contains(name)) {
            bail!(
                "unknown fuzz target `{unknown}`; known: {}",
                targets.join(", ")
            );
        }
        targets.retain(|target| only.contains(target));
    }
    let mut runs = Vec::new();
    for target in targets {
        let root = crate::workspace::root().join(FUZZ_DIR);
        let corpus = root.join("corpus").join(&target);
        std::fs::create_dir_all(&corpus)?;
        let seeds = root.join("seeds").join(&target);
        let mut cmd = Cmd::cargo(["+nightly", "fuzz", "run", target.as_str()])
            .current_dir(&root)
            .arg(corpus.to_string_lossy());
        if seeds.is_dir() {
            cmd = cmd.arg(seeds.to_string_lossy());
        }
        let cmd = cmd.args([
            "--".to_owned(),
            format!("-max_total_time={seconds}"),
            "-print_final_stats=1".to_owned(),
        ]);
        let (ok, stderr) = cmd.run_capturing_stderr()?;
        if !ok {
            // The crash report is in what libFuzzer wrote; show its end.
            let lines = stderr.lines().count();
            for line in stderr.lines().skip(lines.saturating_sub(40)) {
                eprintln!("{line}");
            }
        }
        runs.push(TargetRun {
            executions: parse_executions(&stderr),
            target,
            ok,
        });
    }
    print!("{}", render_table(&runs, seconds));
    let crashed: Vec<&str> = runs
        .iter()
        .filter(|run| !run.ok)
        .map(|run| run.target.as_str())
        .collect();
    if !crashed.is_empty() {
        bail!("fuzz targets crashed: {}", crashed.join(", "));
    }
    Ok(())
}

#[cfg(test)]
#[path = "fuzz_tests.rs"]
mod tests;
