//! `cargo xtask interop` (and the `interop` step of `cargo xtask ci`): the interop suite,
//! `agentctx-interop`'s tests, against the real servers `cargo xtask tools interop-servers`
//! installs and the language server `cargo xtask tools pyright` installs (the step installs it
//! when missing), driving the release binary. The workspace test runs leave the suite out
//! (`--exclude agentctx-interop`): it starts servers and a model, and runs once, here.
//! See docs/design/interop.md.

use std::path::Path;
use std::path::PathBuf;

use anyhow::Result;
use anyhow::bail;

use crate::ci::Outcome;
use crate::ci::PYRIGHT_BIN_VAR;
use crate::ci::REQUIRE_LSP_INTEROP_VAR;
use crate::ci::has_cargo_tool;
use crate::npm_tools;
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

/// `cmd` with the diagnostics test's language server at `bin`, its absence then a failure.
pub(crate) fn with_pyright(cmd: Cmd, bin: &Path) -> Cmd {
    cmd.env(PYRIGHT_BIN_VAR, bin.to_string_lossy().into_owned())
        .env(REQUIRE_LSP_INTEROP_VAR, "1")
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
    let mut cmd = test_cmd(
        has_cargo_tool("nextest"),
        &binary.to_string_lossy(),
        &tools_dir().to_string_lossy(),
    );
    // The diagnostics test (`lsp_diagnostics.rs`) runs the binary against pyright. Without npm
    // the install says so and goes on, and the test skips unless AGENTCTX_REQUIRE_LSP_INTEROP
    // is set (as after `cargo xtask ci`'s tools step installed pyright).
    npm_tools::install(&npm_tools::PYRIGHT)?;
    if npm_tools::is_installed(&npm_tools::PYRIGHT) {
        cmd = with_pyright(cmd, &npm_tools::bin_path(&npm_tools::PYRIGHT));
    }
    cmd.run()?;
    Ok(Outcome::Passed)
}

#[cfg(test)]
#[path = "interop_tests.rs"]
mod tests;
