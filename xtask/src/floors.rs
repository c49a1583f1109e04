//! The dependency floors of `docs/architecture.md`, and the check that every workspace crate
//! depends only on crates of strictly lower floors.

use std::collections::BTreeMap;
use std::path::Path;

use crate::finding::Finding;
use crate::workspace::DepKind;
use crate::workspace::Package;
use crate::workspace::display_path;

/// One row of the floors table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FloorEntry {
    pub(crate) floor: u8,
    /// Directory under `crates/`.
    pub(crate) dir: &'static str,
    pub(crate) package: &'static str,
}

const fn entry(floor: u8, dir: &'static str, package: &'static str) -> FloorEntry {
    FloorEntry {
        floor,
        dir,
        package,
    }
}

/// The floors table. It mirrors the table in `docs/architecture.md` (`tidy` checks that the two
/// agree); a new crate under `crates/` must be added to both.
pub(crate) const FLOORS: &[FloorEntry] = &[
    entry(0, "protocol", "agentctx-protocol"),
    entry(1, "context", "agentctx-context"),
    entry(1, "rollout", "agentctx-rollout"),
    entry(1, "model", "agentctx-model"),
    entry(1, "skills", "agentctx-skills"),
    entry(2, "reminders", "agentctx-reminders"),
    entry(2, "compact", "agentctx-compact"),
    entry(2, "memory", "agentctx-memory"),
    entry(3, "loop-driver", "agentctx-loop-driver"),
    entry(4, "core", "agentctx-core"),
    entry(5, "cli", "agentctx-cli"),
];

const CHECK: &str = "floors";
const TABLE: &str = "`FLOORS` in xtask/src/floors.rs and the floors table of docs/architecture.md";

pub(crate) fn floor_of(package: &str) -> Option<u8> {
    FLOORS
        .iter()
        .find(|entry| entry.package == package)
        .map(|entry| entry.floor)
}

/// Shared test fixtures (`<crate>_test_support`, `<crate>-test-support`) sit on no floor; only
/// dev-dependencies may point at them.
pub(crate) fn is_test_support(package: &str) -> bool {
    package.ends_with("_test_support") || package.ends_with("-test-support")
}

/// Checks every package whose manifest sits under `<root>/crates/`. `packages` is the whole
/// workspace, so dependencies on members outside `crates/` (xtask) are recognised too.
pub(crate) fn check(root: &Path, packages: &[Package]) -> Vec<Finding> {
    let members: BTreeMap<&str, &Package> = packages.iter().map(|p| (p.name.as_str(), p)).collect();
    let crates_dir = root.join("crates");
    let mut findings = Vec::new();
    for package in packages {
        if !package.manifest_path.starts_with(&crates_dir) || is_test_support(&package.name) {
            continue;
        }
        let manifest = display_path(root, &package.manifest_path);
        let Some(entry) = FLOORS.iter().find(|e| e.package == package.name) else {
            findings.push(Finding::error(
                CHECK,
                manifest,
                format!(
                    "package `{}` is on no floor; add it to {TABLE}",
                    package.name
                ),
            ));
            continue;
        };
        let expected_dir = crates_dir.join(entry.dir);
        if package.dir() != expected_dir {
            findings.push(Finding::error(
                CHECK,
                manifest.clone(),
                format!(
                    "package `{}` must live in `crates/{}` (see {TABLE})",
                    package.name, entry.dir
                ),
            ));
        }
        for dep in &package.dependencies {
            if dep.path.is_none() || !members.contains_key(dep.name.as_str()) {
                continue;
            }
            let kind = dep.kind();
            let problem = if is_test_support(&dep.name) {
                (kind != DepKind::Dev).then(|| {
                    format!(
                        "`{}` depends on test-support package `{}` in {}; only [dev-dependencies] may",
                        package.name,
                        dep.name,
                        kind.section()
                    )
                })
            } else {
                match floor_of(&dep.name) {
                    None => Some(format!(
                        "`{}` depends on workspace package `{}` in {}, which is on no floor; add it to {TABLE}",
                        package.name,
                        dep.name,
                        kind.section()
                    )),
                    Some(dep_floor) if dep_floor >= entry.floor => Some(format!(
                        "`{}` (floor {}) depends on `{}` (floor {dep_floor}) in {}; a crate may depend only on crates of strictly lower floors",
                        package.name,
                        entry.floor,
                        dep.name,
                        kind.section()
                    )),
                    Some(_) => None,
                }
            };
            if let Some(message) = problem {
                findings.push(Finding::error(CHECK, manifest.clone(), message));
            }
        }
    }
    findings
}

/// The table as `cargo xtask deps` prints it, one floor per line.
pub(crate) fn render_table() -> String {
    let mut by_floor: BTreeMap<u8, Vec<&str>> = BTreeMap::new();
    for entry in FLOORS {
        by_floor.entry(entry.floor).or_default().push(entry.package);
    }
    by_floor
        .iter()
        .map(|(floor, packages)| format!("floor {floor}: {}\n", packages.join(", ")))
        .collect()
}

#[cfg(test)]
#[path = "floors_tests.rs"]
mod tests;
