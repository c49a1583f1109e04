//! `cargo xtask interop` (and the `interop` step of `cargo xtask ci`): the interop suite,
//! `agentctx-interop`'s tests, against the real servers `cargo xtask tools interop-servers`
//! installs, driving the release binary. The workspace test runs leave the suite out
//! (`--exclude agentctx-interop`): it starts servers and a model, and runs once, here.
//! See docs/design/interop.md.

use std::path::PathBuf;

use anyhow::Result;
use anyhow::bail;

use crate::ci::Outcome;
use crate::ci::has_cargo_tool;
use crate::process::Cmd;
use crate::python_tools;
use crate::workspace;

/// The package of the suite.
pub(crate) const PACKAGE: &str = "agentctx-interop";

/// The variable that turns a missing server into a failure (CI sets it).
pub(crate) const REQUIRE_VAR: &str = "AGENTCTX_REQUIRE_INTEROP";

/// Where the servers are installed.
fn tools_dir() -> PathBuf {
    workspace::root().join(python_tools::PYTHON_PREFIX)
}

/// Whether every venv of the suite is installed.
fn installed() -> bool {
    python_tools::PYTHON_ENVS.iter().all(|env| {
        python_tools::venv_dir(workspace::root(), env)
            .join("bin/python")
            .exists()
    })
}

/// The test command, with the binary and tools it runs against.
pub(crate) fn test_cmd(nextest: bool, binary: &str, tools: &str) -> Cmd {
    // One test at a time: each starts a model server that uses both cores, and two at once
    // only slow each other down.
    let cmd = if nextest {
        Cmd::cargo([
            "nextest",
            "run",
            "-p",
            PACKAGE,
            "--no-fail-fast",
            "--test-threads",
            "1",
        ])
    } else {
        Cmd::cargo([
            "test",
            "-p",
            PACKAGE,
            "--no-fail-fast",
            "--",
            "--test-threads",
            "1",
        ])
    };
    cmd.env("AGENTCTX_BIN", binary)
        .env("AGENTCTX_INTEROP_TOOLS", tools)
        .env(REQUIRE_VAR, "1")
}

/// Builds the release binary and runs the suite; skipped (or failed, when `required`: CI sets
/// `AGENTCTX_REQUIRE_INTEROP`) when the servers are not installed.
pub(crate) fn run(required: bool) -> Result<Outcome> {
    if !installed() {
        let reason = "the interop servers are not installed (`cargo xtask tools interop-servers`)";
        if required {
            bail!("{reason} and {REQUIRE_VAR} is set");
        }
        return Ok(Outcome::Skipped(reason.to_owned()));
    }
    Cmd::cargo([
        "build",
        "--release",
        "-p",
        "agentctx-cli",
        "--bin",
        "agentctx",
    ])
    .run()?;
    // Cargo builds into `CARGO_TARGET_DIR` when it is set (relative to the workspace root when
    // relative), else into the workspace's `target`.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map_or_else(
            || workspace::root().join("target"),
            |dir| workspace::root().join(dir),
        );
    let binary = target.join("release/agentctx");
    test_cmd(
        has_cargo_tool("nextest"),
        &binary.to_string_lossy(),
        &tools_dir().to_string_lossy(),
    )
    .run()?;
    Ok(Outcome::Passed)
}
