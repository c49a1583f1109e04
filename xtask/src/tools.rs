//! `cargo xtask tools`: installs the cargo tools the checks use when they are missing.

use anyhow::Result;

use crate::ci::has_cargo_tool;
use crate::process::Cmd;

/// A cargo subcommand installed from crates.io.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tool {
    pub(crate) package: &'static str,
    pub(crate) subcommand: &'static str,
    pub(crate) why: &'static str,
}

pub(crate) const TOOLS: &[Tool] = &[
    Tool {
        package: "cargo-deny",
        subcommand: "deny",
        why: "licenses, bans and sources checks in `cargo xtask ci`",
    },
    Tool {
        package: "cargo-nextest",
        subcommand: "nextest",
        why: "the test runner of `cargo xtask ci` (which falls back to `cargo test`)",
    },
];

pub(crate) fn run() -> Result<()> {
    for tool in TOOLS {
        if has_cargo_tool(tool.subcommand) {
            let version = Cmd::cargo([tool.subcommand, "--version"]).read_stdout()?;
            let version = version.lines().next().unwrap_or_default();
            println!("{}: present ({version})", tool.package);
        } else {
            println!("{}: missing, installing ({})", tool.package, tool.why);
            Cmd::cargo(["install", "--locked", tool.package]).run()?;
        }
    }
    Ok(())
}
