//! The dependency floors, and the check that every workspace crate depends only on crates of
//! strictly lower floors.
//!
//! Each crate declares its own floor in its `Cargo.toml`:
//!
//! ```toml
//! [package.metadata.agentctx]
//! floor = 2
//! ```
//!
//! and xtask reads it through `cargo metadata`, so the floor travels with a vendored crate and
//! there is no second copy to keep in step.

use std::collections::BTreeMap;
use std::path::Path;

use crate::finding::Finding;
use crate::workspace::DepKind;
use crate::workspace::Package;
use crate::workspace::display_path;

const CHECK: &str = "floors";
const HOW_TO_DECLARE: &str = "add `[package.metadata.agentctx]` with `floor = N` to its Cargo.toml (docs/architecture.md, \"Floors\")";

/// What a package's manifest says about its floor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Declared {
    Floor(u8),
    Missing,
    /// Present but not a small non-negative integer; the text says what was found.
    Invalid(String),
}

/// The floor `[package.metadata.agentctx] floor` declares.
pub(crate) fn declared(package: &Package) -> Declared {
    let Some(value) = package
        .metadata
        .get("agentctx")
        .and_then(|agentctx| agentctx.get("floor"))
    else {
        return Declared::Missing;
    };
    match value.as_u64().map(u8::try_from) {
        Some(Ok(floor)) => Declared::Floor(floor),
        _ => Declared::Invalid(value.to_string()),
    }
}

/// Shared test fixtures (`<crate>_test_support`, `<crate>-test-support`) sit on no floor; only
/// dev-dependencies may point at them.
pub(crate) fn is_test_support(package: &str) -> bool {
    package.ends_with("_test_support") || package.ends_with("-test-support")
}

/// Whether `package` is one of the floored crates: its manifest sits under `<root>/crates/` and
/// it is not test support.
pub(crate) fn is_floored_crate(root: &Path, package: &Package) -> bool {
    package.manifest_path.starts_with(root.join("crates")) && !is_test_support(&package.name)
}

/// Checks every package whose manifest sits under `<root>/crates/`. `packages` is the whole
/// workspace, so dependencies on members outside `crates/` (xtask) are recognised too.
pub(crate) fn check(root: &Path, packages: &[Package]) -> Vec<Finding> {
    let members: BTreeMap<&str, &Package> = packages.iter().map(|p| (p.name.as_str(), p)).collect();
    let crates_dir = root.join("crates");
    let mut findings = Vec::new();
    for package in packages {
        if !is_floored_crate(root, package) {
            continue;
        }
        let manifest = display_path(root, &package.manifest_path);
        let dir_name = package
            .dir()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let expected_name = format!("agentctx-{dir_name}");
        if package.dir().parent() != Some(crates_dir.as_path()) || package.name != expected_name {
            findings.push(Finding::error(
                CHECK,
                manifest.clone(),
                format!(
                    "package `{}` must live in `crates/<dir>` and be named `agentctx-<dir>`",
                    package.name
                ),
            ));
        }
        let floor = match declared(package) {
            Declared::Floor(floor) => floor,
            Declared::Missing => {
                findings.push(Finding::error(
                    CHECK,
                    manifest,
                    format!(
                        "package `{}` declares no floor; {HOW_TO_DECLARE}",
                        package.name
                    ),
                ));
                continue;
            }
            Declared::Invalid(found) => {
                findings.push(Finding::error(
                    CHECK,
                    manifest,
                    format!(
                        "package `{}` declares floor {found}, which is not an integer from 0 to 255",
                        package.name
                    ),
                ));
                continue;
            }
        };
        for dep in &package.dependencies {
            let Some(dep_package) = members.get(dep.name.as_str()) else {
                continue;
            };
            if dep.path.is_none() {
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
                match declared(dep_package) {
                    Declared::Floor(dep_floor) if dep_floor >= floor => Some(format!(
                        "`{}` (floor {floor}) depends on `{}` (floor {dep_floor}) in {}; a crate may depend only on crates of strictly lower floors",
                        package.name,
                        dep.name,
                        kind.section()
                    )),
                    Declared::Floor(_) => None,
                    Declared::Missing | Declared::Invalid(_) => Some(format!(
                        "`{}` depends on workspace package `{}` in {}, which declares no floor; {HOW_TO_DECLARE}",
                        package.name,
                        dep.name,
                        kind.section()
                    )),
                }
            };
            if let Some(message) = problem {
                findings.push(Finding::error(CHECK, manifest.clone(), message));
            }
        }
    }
    findings
}

/// The floors as `cargo xtask deps` prints them, one floor per line, crates by name; crates
/// without a valid floor are listed last.
pub(crate) fn render_table(root: &Path, packages: &[Package]) -> String {
    let mut by_floor: BTreeMap<u8, Vec<&str>> = BTreeMap::new();
    let mut undeclared = Vec::new();
    for package in packages.iter().filter(|p| is_floored_crate(root, p)) {
        match declared(package) {
            Declared::Floor(floor) => by_floor.entry(floor).or_default().push(&package.name),
            Declared::Missing | Declared::Invalid(_) => undeclared.push(package.name.as_str()),
        }
    }
    let mut text: String = by_floor
        .iter_mut()
        .map(|(floor, names)| {
            names.sort_unstable();
            format!("floor {floor}: {}\n", names.join(", "))
        })
        .collect();
    if !undeclared.is_empty() {
        undeclared.sort_unstable();
        text.push_str(&format!("no floor: {}\n", undeclared.join(", ")));
    }
    text
}

#[cfg(test)]
#[path = "floors_tests.rs"]
mod tests;
