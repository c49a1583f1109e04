//! `cargo xtask ci`: every check CI runs, in order, stopping at the first failure. Its first
//! step installs the tools the others need when the machine lacks them (`tools.rs`), so the
//! command passes by itself on a fresh machine; `--no-install` leaves the machine as it is.

use std::time::Duration;
use std::time::Instant;

use anyhow::Result;
use anyhow::anyhow;
use anyhow::bail;

use crate::interop;
use crate::npm_tools;
use crate::process::Cmd;
use crate::tidy;
use crate::tools;
use crate::tools::CiTool;
use crate::vendor_check;
use crate::workspace::Metadata;

/// `cargo fmt` over the workspace with one `use` per item; `check` only reports.
///
/// `imports_granularity` is a nightly-only rustfmt option (stable rustfmt warns and ignores
/// it), so the rule is enforced with the installed nightly rustfmt. Without nightly the stable
/// one checks everything else and the caller says loudly that imports went unchecked.
pub(crate) fn fmt_cmd(check: bool, nightly: bool) -> Cmd {
    let cmd = if nightly {
        Cmd::cargo([
            "+nightly",
            "fmt",
            "--all",
            "--",
            "--config",
            "imports_granularity=Item",
        ])
    } else {
        Cmd::cargo(["fmt", "--all", "--"])
    };
    if check { cmd.arg("--check") } else { cmd }
}

/// Whether a nightly rustfmt is installed (`cargo +nightly fmt --version`).
pub(crate) fn has_nightly_rustfmt() -> bool {
    Cmd::cargo(["+nightly", "fmt", "--version"]).succeeds_quietly()
}

/// The warning printed when nightly rustfmt is missing.
pub(crate) const NO_NIGHTLY: &str = "WARNING: no nightly rustfmt (`rustup toolchain install nightly --component rustfmt`): \
     one `use` per item (imports_granularity=Item) is NOT checked; falling back to stable `cargo fmt`";

/// `cargo xtask fmt [--check]`.
pub(crate) fn fmt(check: bool) -> Result<()> {
    let nightly = has_nightly_rustfmt();
    if !nightly {
        eprintln!("{NO_NIGHTLY}");
    }
    fmt_cmd(check, nightly).run()
}

/// Clippy over every target and feature, warnings denied.
pub(crate) fn lint_cmd() -> Cmd {
    Cmd::cargo([
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ])
}

/// Whether `cargo <subcommand>` is installed, probed with `cargo <subcommand> --version`.
pub(crate) fn has_cargo_tool(subcommand: &str) -> bool {
    Cmd::cargo([subcommand, "--version"]).succeeds_quietly()
}

/// The feature sets CI tests: the default one (what `agentctx-cli` ships, without
/// `tiktoken`) and every feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Features {
    Default,
    All,
}

/// The test command: nextest when it is installed, else `cargo test`.
pub(crate) fn test_cmd(nextest: bool, features: Features) -> Cmd {
    let cmd = if nextest {
        Cmd::cargo(["nextest", "run", "--workspace"])
    } else {
        Cmd::cargo(["test", "--workspace"])
    };
    let cmd = match features {
        Features::Default => cmd,
        Features::All => cmd.arg("--all-features"),
    };
    // The interop suite starts real servers; it runs once, in its own step.
    cmd.args(["--exclude", crate::interop::PACKAGE])
        .arg("--no-fail-fast")
}

/// The README's first command, on a release build: the bundled sessions must replay.
pub(crate) fn release_replay_cmd() -> Cmd {
    Cmd::cargo([
        "run",
        "--release",
        "-p",
        "agentctx-cli",
        "--",
        "replay",
        "examples/sessions",
    ])
}

/// The crates `cargo xtask ci` vendors alone: all of them (`None`), or floors 0 to this one.
/// The full run takes about 5 minutes with third-party crates already built in
/// `target/vendor-check` and about 12 on a fresh clone (2 cores), well inside CI's budget.
pub(crate) const CI_VENDOR_MAX_FLOOR: Option<u8> = None;

fn run_tests(features: Features, env: &ToolEnv) -> Result<()> {
    let nextest = has_cargo_tool("nextest");
    if !nextest {
        println!("cargo-nextest is not installed; falling back to `cargo test`");
    }
    env.apply(test_cmd(nextest, features)).run()
}

/// Makes the browser tests of `agentctx report` fail instead of skipping without chromium.
pub(crate) const REQUIRE_BROWSER_VAR: &str = "AGENTCTX_REQUIRE_BROWSER";

/// Where agentctx-core's MCP interop test finds the reference server, also from the copies of
/// the crate that vendor-check tests.
pub(crate) const MCP_EVERYTHING_BIN_VAR: &str = "AGENTCTX_MCP_EVERYTHING_BIN";

/// Makes the MCP interop test fail instead of skipping without the reference server.
pub(crate) const REQUIRE_MCP_INTEROP_VAR: &str = "AGENTCTX_REQUIRE_MCP_INTEROP";

/// Where the diagnostics tests of agentctx-lsp and of the interop suite find
/// `pyright-langserver`, also from the copies of the crates that vendor-check tests.
pub(crate) const PYRIGHT_BIN_VAR: &str = "AGENTCTX_PYRIGHT_BIN";

/// Makes those tests fail instead of skipping without the language server.
pub(crate) const REQUIRE_LSP_INTEROP_VAR: &str = "AGENTCTX_REQUIRE_LSP_INTEROP";

/// The environment the `tools` step gives the steps that run tests: for each tool the machine
/// has, the tests that use it must run rather than skip. Set on their commands only; xtask's
/// own environment is never changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolEnv {
    vars: Vec<(&'static str, String)>,
}

impl ToolEnv {
    /// The variables for the tools in `available` (those the machine has).
    pub(crate) fn for_tools(available: &[CiTool]) -> Self {
        let mut vars = Vec::new();
        for tool in available {
            match tool {
                CiTool::CargoDeny | CiTool::CargoNextest => {}
                CiTool::EverythingServer => {
                    let bin = npm_tools::bin_path(&npm_tools::EVERYTHING_SERVER);
                    vars.push((MCP_EVERYTHING_BIN_VAR, bin.to_string_lossy().into_owned()));
                    vars.push((REQUIRE_MCP_INTEROP_VAR, "1".to_owned()));
                }
                CiTool::Pyright => {
                    let bin = npm_tools::bin_path(&npm_tools::PYRIGHT);
                    vars.push((PYRIGHT_BIN_VAR, bin.to_string_lossy().into_owned()));
                    vars.push((REQUIRE_LSP_INTEROP_VAR, "1".to_owned()));
                }
                CiTool::Browser => vars.push((REQUIRE_BROWSER_VAR, "1".to_owned())),
                CiTool::InteropServers => vars.push((interop::REQUIRE_VAR, "1".to_owned())),
            }
        }
        Self { vars }
    }

    /// The variables as a shell would set them, `KEY=value KEY=value`.
    pub(crate) fn display(&self) -> String {
        self.vars
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `cmd` with these variables set for it.
    pub(crate) fn apply(&self, cmd: Cmd) -> Cmd {
        self.vars
            .iter()
            .fold(cmd, |cmd, (key, value)| cmd.env(*key, value.clone()))
    }

    /// Whether `key` is set here or in the environment xtask was started with.
    pub(crate) fn is_set(&self, key: &str) -> bool {
        self.vars.iter().any(|(k, _)| *k == key) || std::env::var_os(key).is_some()
    }
}

/// How `cargo xtask ci` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    /// Run the steps after a failure too.
    pub(crate) keep_going: bool,
    /// Install the missing tools the steps need (`--no-install` clears it).
    pub(crate) install_tools: bool,
}

/// `cargo test --doc` fails outright on a workspace without a library target.
pub(crate) fn has_library(metadata: &Metadata) -> bool {
    metadata
        .packages
        .iter()
        .flat_map(|p| &p.targets)
        .any(|t| t.kind.iter().any(|k| k == "lib" || k == "proc-macro"))
}

/// The steps of `cargo xtask ci`, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Tools,
    Fmt,
    Clippy,
    Tidy,
    Deny,
    Interop,
    TestsDefault,
    Tests,
    Doctests,
    Docs,
    ReleaseReplay,
    VendorCheck,
}

impl Step {
    pub(crate) const ALL: [Step; 12] = [
        // First, so that every step after it finds what it needs.
        Step::Tools,
        Step::Fmt,
        Step::Clippy,
        Step::Tidy,
        Step::Deny,
        // Before the workspace tests, so that the last test summary printed is theirs.
        Step::Interop,
        Step::TestsDefault,
        Step::Tests,
        Step::Doctests,
        Step::Docs,
        Step::ReleaseReplay,
        Step::VendorCheck,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Step::Tools => "tools",
            Step::Fmt => "fmt --check",
            Step::Clippy => "clippy",
            Step::Tidy => "tidy",
            Step::Deny => "cargo deny",
            Step::Interop => "interop",
            Step::TestsDefault => "tests (default features)",
            Step::Tests => "tests (all features)",
            Step::Doctests => "doctests",
            Step::Docs => "docs",
            Step::ReleaseReplay => "release replay",
            Step::VendorCheck => "vendor-check",
        }
    }

    /// How to run the step alone, for the failure message.
    pub(crate) fn rerun(self) -> &'static str {
        match self {
            Step::Tools => {
                "rerun with `cargo xtask tools cargo-deny cargo-nextest mcp-server-everything pyright chromium interop-servers`"
            }
            Step::Fmt => "`cargo xtask fmt` fixes it",
            Step::Clippy => "rerun with `cargo xtask lint`",
            Step::Tidy => "rerun with `cargo xtask tidy`",
            Step::Deny => {
                "rerun with `cargo deny --offline check bans licenses sources`; `cargo xtask tools cargo-deny` installs it"
            }
            Step::Interop => "rerun with `cargo xtask interop`",
            Step::TestsDefault => {
                "rerun with `cargo nextest run --workspace --exclude agentctx-interop`"
            }
            Step::Tests => {
                "rerun with `cargo nextest run --workspace --all-features --exclude agentctx-interop`"
            }
            Step::Doctests => "rerun with `cargo test --workspace --doc --all-features`",
            Step::Docs => "rerun with `RUSTDOCFLAGS='-D warnings' cargo doc --workspace --no-deps`",
            Step::ReleaseReplay => {
                "rerun with `cargo run --release -p agentctx-cli -- replay examples/sessions`"
            }
            Step::VendorCheck => "rerun with `cargo xtask vendor-check`",
        }
    }

    /// Runs the step. The `tools` step sets `env`, which the steps after it give their tests.
    fn execute(self, options: Options, env: &mut ToolEnv) -> Result<Outcome> {
        match self {
            Step::Tools => {
                let provision =
                    tools::provision(options.install_tools, CiTool::is_installed, CiTool::install);
                *env = ToolEnv::for_tools(&provision.available());
                if !env.vars.is_empty() {
                    println!("tools: the tests run with {}", env.display());
                }
                return provision.outcome();
            }
            Step::Fmt => {
                let nightly = has_nightly_rustfmt();
                fmt_cmd(true, nightly).run()?;
                if !nightly {
                    println!("{NO_NIGHTLY}");
                    return Ok(Outcome::Degraded(
                        "no nightly rustfmt: one `use` per item unchecked".to_owned(),
                    ));
                }
            }
            Step::Clippy => lint_cmd().run()?,
            Step::Tidy => tidy::report(&tidy::check_workspace(&Metadata::load()?)?, "tidy")?,
            Step::Deny => {
                if !has_cargo_tool("deny") {
                    bail!(
                        "cargo-deny is not installed; `cargo xtask tools cargo-deny` installs it (`cargo xtask ci` does, unless `--no-install`)"
                    );
                }
                // `--offline` also reaches `cargo metadata`, which needs every package of the
                // graph (all platforms) on disk; a build fetches only the host's.
                Cmd::cargo(["fetch"]).run()?;
                Cmd::cargo(["deny", "--offline", "check", "bans", "licenses", "sources"]).run()?;
            }
            Step::Interop => return interop::run(env.is_set(interop::REQUIRE_VAR)),
            Step::TestsDefault => run_tests(Features::Default, env)?,
            Step::Tests => run_tests(Features::All, env)?,
            Step::Doctests => {
                if !has_library(&Metadata::load()?) {
                    return Ok(Outcome::Skipped("no library crate".to_owned()));
                }
                Cmd::cargo(["test", "--workspace", "--doc", "--all-features"]).run()?;
            }
            Step::Docs => Cmd::cargo(["doc", "--workspace", "--no-deps", "--all-features"])
                .env("RUSTDOCFLAGS", "-D warnings")
                .run()?,
            Step::ReleaseReplay => release_replay_cmd().run()?,
            Step::VendorCheck => vendor_check::run(
                &vendor_check::Selection {
                    crates: Vec::new(),
                    max_floor: CI_VENDOR_MAX_FLOOR,
                },
                env,
            )?,
        }
        Ok(Outcome::Passed)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    Passed,
    /// Passed, but checked less than it should; the text says what was left out.
    Degraded(String),
    Skipped(String),
    Failed,
    NotRun,
}

/// Runs every step; on the first failure prints the summary and returns an error naming the
/// step and how to rerun it. With `keep_going` the steps after a failure still run (to see
/// every problem, or to time the whole pipeline), and the first failure is returned.
pub(crate) fn run(options: Options) -> Result<()> {
    let started = Instant::now();
    let mut results: Vec<(Step, Outcome, Duration)> = Vec::new();
    let mut failure = None;
    let mut env = ToolEnv::default();
    for (index, step) in Step::ALL.into_iter().enumerate() {
        if failure.is_some() && !options.keep_going {
            results.push((step, Outcome::NotRun, Duration::ZERO));
            continue;
        }
        println!(
            "\n==> ci step {}/{}: {}",
            index + 1,
            Step::ALL.len(),
            step.name()
        );
        let step_started = Instant::now();
        let outcome = match step.execute(options, &mut env) {
            Ok(outcome) => outcome,
            Err(err) => {
                println!("{} failed: {err:#}", step.name());
                if failure.is_none() {
                    failure = Some((step, err));
                }
                Outcome::Failed
            }
        };
        let elapsed = step_started.elapsed();
        if let Outcome::Skipped(reason) | Outcome::Degraded(reason) = &outcome {
            println!("<== {} {}: {reason}", step.name(), label(&outcome));
        } else {
            println!(
                "<== {} {} in {}",
                step.name(),
                label(&outcome),
                format_duration(elapsed)
            );
        }
        results.push((step, outcome, elapsed));
    }
    println!("\n{}", summary(&results, started.elapsed()));
    match failure {
        Some((step, err)) => Err(anyhow!(
            "ci failed at step `{}` ({}): {err:#}",
            step.name(),
            step.rerun()
        )),
        None => Ok(()),
    }
}

fn label(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Passed => "ok",
        Outcome::Degraded(_) => "PARTIAL",
        Outcome::Skipped(_) => "skipped",
        Outcome::Failed => "FAILED",
        Outcome::NotRun => "not run",
    }
}

/// The table printed at the end of `cargo xtask ci`.
pub(crate) fn summary(results: &[(Step, Outcome, Duration)], total: Duration) -> String {
    let mut text = String::from("ci summary:\n");
    for (step, outcome, elapsed) in results {
        let time = match outcome {
            Outcome::NotRun => "-".to_owned(),
            _ => format_duration(*elapsed),
        };
        text.push_str(&format!(
            "  {:<8} {:<24} {time:>8}",
            label(outcome),
            step.name()
        ));
        if let Outcome::Skipped(reason) | Outcome::Degraded(reason) = outcome {
            text.push_str(&format!("  ({reason})"));
        }
        text.push('\n');
    }
    let failed = results.iter().any(|(_, o, _)| *o == Outcome::Failed);
    let verdict = if failed { "failed" } else { "passed" };
    text.push_str(&format!("ci {verdict} in {}", format_duration(total)));
    text
}

/// `0.4s`, `12.3s`, `3m 05s`.
pub(crate) fn format_duration(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else {
        let whole = duration.as_secs();
        format!("{}m {:02}s", whole / 60, whole % 60)
    }
}

#[cfg(test)]
#[path = "ci_tests.rs"]
mod tests;
