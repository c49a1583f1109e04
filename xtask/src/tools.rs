//! `cargo xtask tools [PACKAGE...]`: installs the cargo tools the checks use when they are
//! missing, with `cargo install --locked` from crates.io, the npm packages of `npm_tools` into
//! `target/tools/npm`, and the Python servers of `python_tools` into `target/tools/python`.
//! `interop-servers` names all the Python servers at once. `chromium` installs Debian's
//! `chromium` and `chromium-driver` with apt-get, for the browser tests of `agentctx report`.
//!
//! The `tools` step of `cargo xtask ci` ([`provision`]) installs, through the same code, the
//! tools of [`CiTool`] that the machine lacks.

use std::time::Duration;
use std::time::Instant;

use anyhow::Result;
use anyhow::anyhow;
use anyhow::bail;

use crate::ci::Outcome;
use crate::ci::format_duration;
use crate::ci::has_cargo_tool;
use crate::npm_tools;
use crate::process::Cmd;
use crate::python_tools;
use crate::workspace;

/// A cargo subcommand installed from crates.io.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tool {
    pub(crate) package: &'static str,
    pub(crate) subcommand: &'static str,
    pub(crate) why: &'static str,
}

const CARGO_DENY: Tool = Tool {
    package: "cargo-deny",
    subcommand: "deny",
    why: "licenses, bans and sources checks in `cargo xtask ci`, which fails without it",
};

const CARGO_NEXTEST: Tool = Tool {
    package: "cargo-nextest",
    subcommand: "nextest",
    why: "the test runner of `cargo xtask ci` (which falls back to `cargo test`)",
};

pub(crate) const TOOLS: &[Tool] = &[
    CARGO_DENY,
    CARGO_NEXTEST,
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

/// Whether chromium and chromedriver are both on the PATH.
fn browser_installed() -> bool {
    BROWSER_PROGRAMS.into_iter().all(on_path)
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

/// A tool `cargo xtask ci` needs, by the name `cargo xtask tools` takes. The `tools` step of
/// `cargo xtask ci` installs the missing ones before the checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CiTool {
    CargoDeny,
    CargoNextest,
    EverythingServer,
    Pyright,
    Browser,
    InteropServers,
}

impl CiTool {
    /// Every tool ci needs, in the order the step installs them: the interop servers last, as
    /// on a fresh machine llama-cpp-python compiles llama.cpp (6 to 9 minutes on two cores;
    /// seconds once pip has the built wheel in its cache).
    pub(crate) const ALL: [CiTool; 6] = [
        CiTool::CargoDeny,
        CiTool::CargoNextest,
        CiTool::EverythingServer,
        CiTool::Pyright,
        CiTool::Browser,
        CiTool::InteropServers,
    ];

    /// The name `cargo xtask tools` takes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CiTool::CargoDeny => CARGO_DENY.package,
            CiTool::CargoNextest => CARGO_NEXTEST.package,
            CiTool::EverythingServer => npm_tools::EVERYTHING_SERVER.bin,
            CiTool::Pyright => npm_tools::PYRIGHT.package,
            CiTool::Browser => BROWSER,
            CiTool::InteropServers => INTEROP_SERVERS,
        }
    }

    /// Whether the machine has it, probed as `cargo xtask tools` probes it.
    pub(crate) fn is_installed(self) -> bool {
        match self {
            CiTool::CargoDeny => has_cargo_tool(CARGO_DENY.subcommand),
            CiTool::CargoNextest => has_cargo_tool(CARGO_NEXTEST.subcommand),
            CiTool::EverythingServer => npm_tools::is_installed(&npm_tools::EVERYTHING_SERVER),
            CiTool::Pyright => npm_tools::is_installed(&npm_tools::PYRIGHT),
            CiTool::Browser => browser_installed(),
            CiTool::InteropServers => python_tools::PYTHON_ENVS
                .iter()
                .all(|env| python_tools::is_installed(workspace::root(), env)),
        }
    }

    /// Installs it as `cargo xtask tools <name>` does.
    pub(crate) fn install(self) -> Result<()> {
        run(&[self.name().to_owned()])
    }
}

/// The tools ci needs that `is_installed` says are missing, in install order.
pub(crate) fn missing(is_installed: impl Fn(CiTool) -> bool) -> Vec<CiTool> {
    CiTool::ALL
        .into_iter()
        .filter(|tool| !is_installed(*tool))
        .collect()
}

/// The command that installs `tools`: `cargo xtask tools` naming them.
pub(crate) fn install_command(tools: &[CiTool]) -> String {
    std::iter::once("cargo xtask tools")
        .chain(tools.iter().map(|tool| tool.name()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn names(tools: &[CiTool]) -> String {
    tools
        .iter()
        .map(|tool| tool.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the `tools` step of `cargo xtask ci` found and did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Provision {
    /// Installed before the step.
    pub(crate) present: Vec<CiTool>,
    /// Installed by the step, with the time each took.
    pub(crate) installed: Vec<(CiTool, Duration)>,
    /// Missing and left missing, as `--no-install` asks.
    pub(crate) not_installed: Vec<CiTool>,
    /// Still missing after their install, with why.
    pub(crate) failed: Vec<(CiTool, String)>,
}

impl Provision {
    /// The tools the machine has after the step, in install order.
    pub(crate) fn available(&self) -> Vec<CiTool> {
        CiTool::ALL
            .into_iter()
            .filter(|tool| {
                self.present.contains(tool) || self.installed.iter().any(|(t, _)| t == tool)
            })
            .collect()
    }

    /// The step's outcome. A failed install fails it, naming the tools and the command that
    /// retries: the checks after it would otherwise skip the tests those tools run.
    pub(crate) fn outcome(&self) -> Result<Outcome> {
        if !self.failed.is_empty() {
            let tools: Vec<CiTool> = self.failed.iter().map(|(tool, _)| *tool).collect();
            let reasons: Vec<String> = self
                .failed
                .iter()
                .map(|(tool, why)| format!("{}: {why}", tool.name()))
                .collect();
            bail!(
                "could not install {} ({}); retry with `{}`",
                names(&tools),
                reasons.join("; "),
                install_command(&tools)
            );
        }
        if !self.not_installed.is_empty() {
            return Ok(Outcome::Skipped(format!(
                "--no-install: {} missing; `{}` installs them",
                names(&self.not_installed),
                install_command(&self.not_installed)
            )));
        }
        Ok(Outcome::Passed)
    }
}

/// Probes every tool ci needs and, when `install` is set, installs each missing one with
/// `install_one`, saying what it installs and how long it took. Each install is checked by
/// probing again: the npm and Python installers go on without npm or python3 (the tests then
/// skip), which here is a failure.
pub(crate) fn provision(
    install: bool,
    is_installed: impl Fn(CiTool) -> bool,
    mut install_one: impl FnMut(CiTool) -> Result<()>,
) -> Provision {
    let missing = missing(&is_installed);
    let mut provision = Provision {
        present: CiTool::ALL
            .into_iter()
            .filter(|tool| !missing.contains(tool))
            .collect(),
        ..Provision::default()
    };
    if !provision.present.is_empty() {
        println!("tools: present: {}", names(&provision.present));
    }
    if !install {
        provision.not_installed = missing;
        return provision;
    }
    for tool in missing {
        println!(
            "tools: {} is missing, installing it (`{}`)",
            tool.name(),
            install_command(&[tool])
        );
        let started = Instant::now();
        let result = install_one(tool).and_then(|()| {
            if is_installed(tool) {
                Ok(())
            } else {
                Err(anyhow!(
                    "still missing after the install (its output above says why)"
                ))
            }
        });
        let elapsed = started.elapsed();
        match result {
            Ok(()) => {
                println!(
                    "tools: {} installed in {}",
                    tool.name(),
                    format_duration(elapsed)
                );
                provision.installed.push((tool, elapsed));
            }
            Err(err) => {
                println!(
                    "tools: {} could not be installed (after {}): {err:#}",
                    tool.name(),
                    format_duration(elapsed)
                );
                provision.failed.push((tool, format!("{err:#}")));
            }
        }
    }
    provision
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
