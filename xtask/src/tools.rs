//! `cargo xtask tools [PACKAGE...]`: installs the cargo tools the checks use when they are
//! missing, with `cargo install --locked` from crates.io, the npm packages of `npm_tools` into
//! `target/tools/npm`, and the Python servers of `python_tools` into `target/tools/python`.
//! `interop-servers` names all the Python servers at once. `chromium` installs Debian's
//! `chromium` and `chromium-driver` with apt-get, for the browser tests of `agentctx report`.

use anyhow::Result;
use anyhow::bail;

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
        why: "licenses, bans and sources checks in `cargo xtask ci`, which fails without it",
    },
    Tool {
        package: "cargo-nextest",
        subcommand: "nextest",
        why: "the test runner of `cargo xtask ci` (which falls back to `cargo test`)",
    },
    Tool {
        package: "cargo-insta",
        subcommand: "insta",
        why: "reviewing and accepting snapshots with `cargo xtask snapshots`",
    },
    Tool {
        package: "cargo-fuzz",
        subcommand: "fuzz",
        why: "the fuzz targets under fuzz/, run by `cargo xtask fuzz` (on nightly)",
    },
];

/// The tools named by `packages` (package or subcommand name), or all of them.
pub(crate) fn selected(packages: &[String]) -> Result<Vec<Tool>> {
    if packages.is_empty() {
        return Ok(TOOLS.to_vec());
    }
    packages
        .iter()
        .map(|wanted| {
            TOOLS
                .iter()
                .find(|t| t.package == wanted || t.subcommand == wanted)
                .copied()
                .ok_or_else(|| {
                    let known: Vec<&str> = TOOLS.iter().map(|t| t.package).collect();
                    anyhow::anyhow!("unknown tool `{wanted}`; known: {}", known.join(", "))
                })
        })
        .collect()
}

/// The name that selects every Python server of the interop suite.
pub(crate) const INTEROP_SERVERS: &str = "interop-servers";

/// The name that installs the headless browser and its WebDriver server.
pub(crate) const BROWSER: &str = "chromium";

/// The Debian packages of the browser: the browser and its `chromedriver`.
const BROWSER_PACKAGES: [&str; 2] = ["chromium", "chromium-driver"];

/// The programs those packages put on the PATH.
const BROWSER_PROGRAMS: [&str; 2] = ["chromium", "chromedriver"];

/// Whether `packages` asks for the browser (every tool is asked for when none is named).
pub(crate) fn browser_requested(packages: &[String]) -> bool {
    packages.is_empty() || packages.iter().any(|name| name == BROWSER)
}

pub(crate) fn run(packages: &[String]) -> Result<()> {
    if browser_requested(packages) {
        install_browser()?;
    }
    let others: Vec<String> = packages
        .iter()
        .filter(|name| *name != BROWSER)
        .cloned()
        .collect();
    if !packages.is_empty() && others.is_empty() {
        return Ok(());
    }
    let packages = others.as_slice();
    let (python, rest): (Vec<String>, Vec<String>) = packages
        .iter()
        .cloned()
        .partition(|name| name == INTEROP_SERVERS || crate::python_tools::find(name).is_some());
    let (npm, cargo): (Vec<String>, Vec<String>) = rest
        .into_iter()
        .partition(|name| crate::npm_tools::find(name).is_some());
    if packages.is_empty() || !cargo.is_empty() {
        install_cargo_tools(&cargo)?;
    }
    let npm_tools: Vec<_> = if packages.is_empty() {
        crate::npm_tools::NPM_TOOLS.to_vec()
    } else {
        npm.iter()
            .filter_map(|name| crate::npm_tools::find(name))
            .collect()
    };
    for tool in &npm_tools {
        crate::npm_tools::install(tool)?;
    }
    let python_envs: Vec<_> = if packages.is_empty() || python.iter().any(|n| n == INTEROP_SERVERS)
    {
        crate::python_tools::PYTHON_ENVS.to_vec()
    } else {
        python
            .iter()
            .filter_map(|name| crate::python_tools::find(name))
            .collect()
    };
    for env in &python_envs {
        crate::python_tools::install(env)?;
    }
    Ok(())
}

/// Installs Debian's chromium and chromium-driver with apt-get when either program is missing
/// (the machines of this project are Debian and run the tools step as root).
fn install_browser() -> Result<()> {
    let missing: Vec<&str> = BROWSER_PROGRAMS
        .into_iter()
        .filter(|program| !on_path(program))
        .collect();
    if missing.is_empty() {
        let version = Cmd::new("chromium").arg("--version").read_stdout()?;
        println!("chromium: present ({})", version.trim());
        return Ok(());
    }
    println!(
        "chromium: {} missing, installing {} with apt-get (the browser tests of `agentctx report`)",
        missing.join(" and "),
        BROWSER_PACKAGES.join(" ")
    );
    let install = || {
        Cmd::new("apt-get")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y", "--no-install-recommends"])
            .args(BROWSER_PACKAGES)
            .run()
    };
    if install().is_err() {
        // A fresh machine's package lists may be missing or stale.
        Cmd::new("apt-get").arg("update").run()?;
        install()?;
    }
    if let Some(program) = BROWSER_PROGRAMS
        .into_iter()
        .find(|program| !on_path(program))
    {
        bail!(
            "`{program}` is still missing after installing {}",
            BROWSER_PACKAGES.join(" ")
        );
    }
    Ok(())
}

/// Whether `program` is a file in a folder of the PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

fn install_cargo_tools(packages: &[String]) -> Result<()> {
    for tool in selected(packages)? {
        if has_cargo_tool(tool.subcommand) {
            let version = Cmd::cargo([tool.subcommand, "--version"]).read_stdout()?;
            let version = version.lines().next().unwrap_or_default();
            println!("{}: present ({version})", tool.package);
        } else {
            println!("{}: missing, installing ({})", tool.package, tool.why);
            Cmd::cargo(["install", "--locked", tool.package]).run()?;
            if !has_cargo_tool(tool.subcommand) {
                bail!(
                    "`cargo {}` is still missing after installing {}; is cargo's bin directory on PATH?",
                    tool.subcommand,
                    tool.package
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
