//! npm packages the tests use, installed by `cargo xtask tools` into the project-local folder
//! `target/tools/npm` (never globally): the reference MCP server the MCP interop test talks to
//! (see docs/design/mcp.md, "Interop") and the language server of the diagnostics tests
//! (docs/design/lsp.md).

use std::path::PathBuf;

use anyhow::Result;

use crate::process::Cmd;
use crate::workspace;

/// The folder npm installs into, relative to the workspace root.
pub(crate) const NPM_PREFIX: &str = "target/tools/npm";

/// One npm package, pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NpmTool {
    pub(crate) package: &'static str,
    pub(crate) version: &'static str,
    pub(crate) bin: &'static str,
    pub(crate) why: &'static str,
}

/// The reference MCP server, which `cargo xtask ci` installs for the MCP interop test.
pub(crate) const EVERYTHING_SERVER: NpmTool = NpmTool {
    package: "@modelcontextprotocol/server-everything",
    version: "2026.8.31",
    bin: "mcp-server-everything",
    why: "the reference MCP server of agentctx-core's MCP interop test",
};

/// A real language server (`pyright-langserver --stdio`), which `cargo xtask ci` installs for
/// the diagnostics tests of agentctx-lsp and of the interop suite (docs/design/lsp.md).
pub(crate) const PYRIGHT: NpmTool = NpmTool {
    package: "pyright",
    version: "1.1.414",
    bin: "pyright-langserver",
    why: "the language server of the diagnostics tests of agentctx-lsp and the interop suite",
};

pub(crate) const NPM_TOOLS: &[NpmTool] = &[EVERYTHING_SERVER, PYRIGHT];

/// The npm tool named `name` (package or binary name).
pub(crate) fn find(name: &str) -> Option<NpmTool> {
    NPM_TOOLS
        .iter()
        .find(|tool| tool.package == name || tool.bin == name)
        .copied()
}

/// Where `tool`'s binary lands.
pub(crate) fn bin_path(tool: &NpmTool) -> PathBuf {
    workspace::root()
        .join(NPM_PREFIX)
        .join("node_modules")
        .join(".bin")
        .join(tool.bin)
}

/// Whether `tool`'s binary is installed.
pub(crate) fn is_installed(tool: &NpmTool) -> bool {
    bin_path(tool).exists()
}

/// Installs `tool` unless present. Without npm it says so and goes on: the interop test then
/// skips with a printed reason (`cargo xtask ci` probes again and fails instead).
pub(crate) fn install(tool: &NpmTool) -> Result<()> {
    let bin = bin_path(tool);
    if is_installed(tool) {
        println!("{}: present ({})", tool.package, bin.display());
        return Ok(());
    }
    if Cmd::new("npm").arg("--version").read_stdout().is_err() {
        println!(
            "{}: not installed: npm is not available ({})",
            tool.package, tool.why
        );
        return Ok(());
    }
    println!("{}: missing, installing ({})", tool.package, tool.why);
    install_cmd().current_dir(workspace::root()).run()
}

/// The npm command that installs every npm tool at once. npm treats what is in the folder but
/// not on its command line as extraneous and removes it (`--no-save` writes no package.json
/// to remember it by), so installing one tool alone would remove the others.
pub(crate) fn install_cmd() -> Cmd {
    Cmd::new("npm")
        .args([
            "install",
            "--prefix",
            NPM_PREFIX,
            "--no-audit",
            "--no-fund",
            "--no-save",
        ])
        .args(
            NPM_TOOLS
                .iter()
                .map(|tool| format!("{}@{}", tool.package, tool.version)),
        )
}

#[cfg(test)]
#[path = "npm_tools_tests.rs"]
mod tests;
