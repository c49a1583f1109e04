//! Workspace automation for agentctx, run as `cargo xtask <command>` (the alias lives in
//! `.cargo/config.toml`).
//!
//! `xtask` sits beside the floors of `docs/architecture.md`: no crate depends on it and it
//! depends on no agentctx crate. It runs what CI runs (`ci`), formats (`fmt`), lints (`lint`),
//! checks the style rules a program can check (`tidy`, `deps`), refreshes generated JSON
//! schemas (`schema`), vendors each crate alone to build and test it (`vendor-check`), drives
//! insta snapshots through cargo-insta (`snapshots`), runs benchmarks (`bench`), runs the fuzz
//! targets under `fuzz/` (`fuzz`), refreshes the vendored LiteLLM price table (`prices`) and
//! installs
//! the cargo tools the checks use (`tools`). Every external program is started through
//! `process.rs`.
//!
//! ```text
//! cargo xtask ci                          # the full CI pipeline
//! cargo xtask tidy                        # style and architecture checks
//! cargo xtask bench --quick              # one line per performance target
//! cargo xtask bench -p agentctx-reminders # a plain `cargo bench` with these arguments
//! ```

#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "xtask is a command-line tool: it reports to the terminal"
)]

mod bench;
mod ci;
mod finding;
mod floors;
mod fuzz;
mod interop;
mod npm_tools;
mod prices;
mod process;
mod python_tools;
mod schema;
mod snapshots;
mod tidy;
mod tools;
mod vendor_check;
mod workspace;

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;
use clap::Subcommand;

use crate::process::Cmd;
use crate::workspace::Metadata;

/// Workspace automation for agentctx.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run every CI check in order after installing the missing tools they need (cargo-deny,
    /// cargo-nextest, the reference MCP server, chromium, the interop servers): fmt, clippy,
    /// tidy, cargo deny, interop, tests (default and all features), doctests, docs, the
    /// README's replay on a release build, vendor-check.
    Ci {
        /// Run the steps after a failure too; the first failure still fails the run.
        #[arg(long)]
        keep_going: bool,
        /// Install nothing: a missing tool fails its step (cargo deny) or skips its tests.
        #[arg(long)]
        no_install: bool,
    },
    /// Format the workspace with one `use` per item (nightly rustfmt).
    Fmt {
        /// Only report files that are not formatted.
        #[arg(long)]
        check: bool,
    },
    /// Clippy over every target and feature with warnings denied.
    Lint,
    /// Check the invariants of docs/architecture.md a program can check (floors, crate docs,
    /// lints, layout, test wiring, references outside the repository).
    Tidy,
    /// Print the dependency floors and check that crates depend only on lower floors.
    Deps,
    /// Regenerate the crates' committed JSON schemas through their `schema_is_fresh` tests.
    Schema,
    /// Vendor each crate alone into a fresh workspace and build and test it there offline.
    VendorCheck {
        /// Crates to check, by package or directory name; all crates under crates/ if none.
        crates: Vec<String>,
        /// Only crates on this floor or lower.
        #[arg(long)]
        max_floor: Option<u8>,
    },
    /// Run the performance benches and print one line per target (figure, yardstick, ratio);
    /// with arguments, run `cargo bench` with them instead.
    Bench {
        /// Short warm-up and measurement (under two minutes once built).
        #[arg(long)]
        quick: bool,
        /// Arguments for a plain `cargo bench` (e.g. `-p agentctx-reminders`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Insta snapshots through cargo-insta: record pending changes, or review, accept or
    /// reject them.
    Snapshots {
        /// Review the pending snapshots one by one (`cargo insta review`).
        #[arg(long, conflicts_with_all = ["accept", "reject"])]
        review: bool,
        /// Accept every pending snapshot (`cargo insta accept`).
        #[arg(long, conflicts_with = "reject")]
        accept: bool,
        /// Drop every pending snapshot (`cargo insta reject`).
        #[arg(long)]
        reject: bool,
        /// Extra arguments for `cargo insta test` (e.g. `-p agentctx-reminders`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run every cargo-fuzz target under fuzz/ for a while (nightly) and report executions.
    Fuzz {
        /// Seconds per target.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Targets to run; all of them if none.
        targets: Vec<String>,
    },
    /// Refresh the vendored LiteLLM price and context-window table
    /// (crates/model/data/litellm) from the litellm wheel on PyPI: the recorded version again,
    /// or another with `--version` / `--latest`.
    Prices {
        /// Fetch the newest litellm release.
        #[arg(long, conflicts_with = "version")]
        latest: bool,
        /// Fetch this litellm release (e.g. `1.110.2`).
        #[arg(long)]
        version: Option<String>,
    },
    /// Run the interop suite (the release binary against a real llama.cpp server and the
    /// LiteLLM proxy); needs `cargo xtask tools interop-servers`.
    Interop,
    /// Install missing cargo tools (cargo-deny, cargo-insta, cargo-nextest, cargo-fuzz) with
    /// `cargo install --locked`, the npm packages the tests use (the reference MCP server,
    /// `mcp-server-everything`) into `target/tools/npm`, and the interop suite's Python servers
    /// (`llama-cpp-python`, `litellm`, or both as `interop-servers`) into `target/tools/python`;
    /// name packages to install only those.
    Tools {
        /// Packages to check, e.g. `cargo-deny`; all of them if none.
        packages: Vec<String>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<()> {
    match command {
        Command::Ci {
            keep_going,
            no_install,
        } => ci::run(ci::Options {
            keep_going,
            install_tools: !no_install,
        }),
        Command::Fmt { check } => ci::fmt(check),
        Command::Lint => ci::lint_cmd().run(),
        Command::Tidy => tidy::report(&tidy::check_workspace(&Metadata::load()?)?, "tidy"),
        Command::Deps => {
            let metadata = Metadata::load()?;
            print!(
                "{}",
                floors::render_table(&metadata.workspace_root, &metadata.packages)
            );
            let findings = floors::check(&metadata.workspace_root, &metadata.packages);
            tidy::report(&findings, "deps")
        }
        Command::Schema => schema::run(),
        Command::VendorCheck { crates, max_floor } => vendor_check::run(
            &vendor_check::Selection { crates, max_floor },
            &ci::ToolEnv::default(),
        ),
        Command::Bench { quick, args } => {
            // The trailing arguments take `--quick` too when it comes first.
            let (flags, args): (Vec<String>, Vec<String>) =
                args.into_iter().partition(|arg| arg == "--quick");
            if args.is_empty() {
                bench::run(quick || !flags.is_empty())
            } else {
                Cmd::cargo(["bench"])
                    .args(workspace::scope_args(&args))
                    .args(args)
                    .run()
            }
        }
        Command::Snapshots {
            review,
            accept,
            reject,
            args,
        } => snapshots::run(snapshots::Action::from_flags(review, accept, reject), &args),
        Command::Fuzz { seconds, targets } => fuzz::run(seconds, &targets),
        Command::Tools { packages } => tools::run(&packages),
        Command::Prices { latest, version } => prices::run(&match (latest, version) {
            (true, _) => prices::Release::Latest,
            (false, Some(version)) => prices::Release::Version(version),
            (false, None) => prices::Release::Recorded,
        }),
        Command::Interop => match interop::run(std::env::var_os(interop::REQUIRE_VAR).is_some())? {
            ci::Outcome::Skipped(reason) => {
                println!("interop suite skipped: {reason}");
                Ok(())
            }
            _ => Ok(()),
        },
    }
}
