use std::cell::RefCell;

use anyhow::anyhow;
use pretty_assertions::assert_eq;

use super::CiTool;
use super::Provision;
use super::browser_requested;
use super::install_command;
use super::missing;
use super::provision;
use super::selected;
use crate::ci::Outcome;

#[test]
fn tools_are_chosen_by_package_or_subcommand_name() {
    let packages = |names: &[&str]| -> Vec<&str> {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        selected(&names)
            .unwrap()
            .into_iter()
            .map(|t| t.package)
            .collect()
    };
    assert_eq!(
        packages(&[]),
        vec!["cargo-deny", "cargo-nextest", "cargo-insta", "cargo-fuzz"]
    );
    assert_eq!(
        packages(&["insta", "cargo-deny"]),
        vec!["cargo-insta", "cargo-deny"]
    );
    assert_eq!(
        selected(&["cargo-afl".to_owned()]).unwrap_err().to_string(),
        "unknown tool `cargo-afl`; known: cargo-deny, cargo-nextest, cargo-insta, cargo-fuzz"
    );
}

#[test]
fn the_browser_is_installed_when_named_or_when_every_tool_is() {
    let names = |names: &[&str]| -> Vec<String> { names.iter().map(|n| (*n).to_owned()).collect() };
    assert!(browser_requested(&names(&[])));
    assert!(browser_requested(&names(&["cargo-deny", "chromium"])));
    assert!(!browser_requested(&names(&["cargo-deny"])));
}

#[test]
fn ci_needs_six_tools_named_as_cargo_xtask_tools_takes_them() {
    let names: Vec<&str> = CiTool::ALL.iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        vec![
            "cargo-deny",
            "cargo-nextest",
            "mcp-server-everything",
            "pyright",
            "chromium",
            "interop-servers",
        ]
    );
    // Each name is one `cargo xtask tools` installs.
    let cargo: Vec<String> = names[..2].iter().map(|n| (*n).to_owned()).collect();
    assert_eq!(selected(&cargo).unwrap().len(), 2);
    assert!(crate::npm_tools::find(names[2]).is_some());
    assert!(crate::npm_tools::find(names[3]).is_some());
    assert!(browser_requested(&[names[4].to_owned()]));
    assert_eq!(names[5], super::INTEROP_SERVERS);
}

#[test]
fn the_missing_tools_make_the_install_command() {
    let absent = [CiTool::Browser, CiTool::CargoDeny];
    let lacking = missing(|tool| !absent.contains(&tool));
    assert_eq!(lacking, vec![CiTool::CargoDeny, CiTool::Browser]);
    assert_eq!(
        install_command(&lacking),
        "cargo xtask tools cargo-deny chromium"
    );
    assert_eq!(missing(|_| true), Vec::<CiTool>::new());
    assert_eq!(
        install_command(&CiTool::ALL),
        "cargo xtask tools cargo-deny cargo-nextest mcp-server-everything pyright chromium interop-servers"
    );
}

/// Runs `provision` against a pretend machine lacking `absent`, whose installer succeeds for
/// the tools in `installable` and fails for the others; returns it and the installs attempted.
fn provision_on(
    install: bool,
    absent: &[CiTool],
    installable: &[CiTool],
) -> (Provision, Vec<CiTool>) {
    let machine = RefCell::new(absent.to_vec());
    let mut attempted = Vec::new();
    let provision = provision(
        install,
        |tool| !machine.borrow().contains(&tool),
        |tool| {
            attempted.push(tool);
            if installable.contains(&tool) {
                machine.borrow_mut().retain(|t| *t != tool);
                Ok(())
            } else if matches!(tool, CiTool::EverythingServer | CiTool::Pyright) {
                // As the npm installer does without npm: it says so and returns.
                Ok(())
            } else {
                Err(anyhow!(
                    "`apt-get install -y chromium` failed: exit status: 100"
                ))
            }
        },
    );
    (provision, attempted)
}

#[test]
fn only_the_missing_tools_are_installed_in_order() {
    let (provision, attempted) = provision_on(
        true,
        &[CiTool::InteropServers, CiTool::CargoDeny],
        &[CiTool::InteropServers, CiTool::CargoDeny],
    );
    assert_eq!(attempted, vec![CiTool::CargoDeny, CiTool::InteropServers]);
    assert_eq!(
        provision.present,
        vec![
            CiTool::CargoNextest,
            CiTool::EverythingServer,
            CiTool::Pyright,
            CiTool::Browser
        ]
    );
    let installed: Vec<CiTool> = provision.installed.iter().map(|(t, _)| *t).collect();
    assert_eq!(installed, vec![CiTool::CargoDeny, CiTool::InteropServers]);
    assert_eq!(provision.available(), CiTool::ALL.to_vec());
    assert_eq!(provision.outcome().unwrap(), Outcome::Passed);

    let (provision, attempted) = provision_on(true, &[], &[]);
    assert_eq!(attempted, Vec::<CiTool>::new());
    assert_eq!(provision.present, CiTool::ALL.to_vec());
    assert_eq!(provision.outcome().unwrap(), Outcome::Passed);
}

#[test]
fn a_failed_install_fails_the_step_naming_the_tools_and_the_retry() {
    let (provision, attempted) = provision_on(
        true,
        &[CiTool::Browser, CiTool::EverythingServer, CiTool::CargoDeny],
        &[CiTool::CargoDeny],
    );
    // Every missing tool is tried, so one run reports them all.
    assert_eq!(
        attempted,
        vec![CiTool::CargoDeny, CiTool::EverythingServer, CiTool::Browser]
    );
    assert_eq!(
        provision.available(),
        vec![
            CiTool::CargoDeny,
            CiTool::CargoNextest,
            CiTool::Pyright,
            CiTool::InteropServers
        ]
    );
    assert_eq!(
        provision.outcome().unwrap_err().to_string(),
        "could not install mcp-server-everything, chromium \
         (mcp-server-everything: still missing after the install (its output above says why); \
         chromium: `apt-get install -y chromium` failed: exit status: 100); \
         retry with `cargo xtask tools mcp-server-everything chromium`"
    );
}

#[test]
fn no_install_leaves_the_missing_tools_and_says_how_to_install_them() {
    let (provision, attempted) =
        provision_on(false, &[CiTool::CargoDeny, CiTool::Browser], &CiTool::ALL);
    assert_eq!(attempted, Vec::<CiTool>::new());
    assert_eq!(
        provision.not_installed,
        vec![CiTool::CargoDeny, CiTool::Browser]
    );
    assert_eq!(
        provision.available(),
        vec![
            CiTool::CargoNextest,
            CiTool::EverythingServer,
            CiTool::Pyright,
            CiTool::InteropServers
        ]
    );
    assert_eq!(
        provision.outcome().unwrap(),
        Outcome::Skipped(
            "--no-install: cargo-deny, chromium missing; `cargo xtask tools cargo-deny chromium` installs them"
                .to_owned()
        )
    );
    let (provision, _) = provision_on(false, &[], &[]);
    assert_eq!(provision.outcome().unwrap(), Outcome::Passed);
}
