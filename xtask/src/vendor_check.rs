//! `cargo xtask vendor-check [CRATE...]`: proves each crate can be lifted out alone.
//!
//! For each crate under `crates/` it copies the crate and every workspace crate it reaches
//! through path dependencies of any kind (dev-dependencies too, such as
//! `agentctx_test_support`) into a fresh temporary workspace, as a Codex fork would vendor
//! them: each at the top under its package name (see [`placements`]), with a synthesized root
//! `Cargo.toml` holding only our `[workspace.package]`, the `[workspace.dependencies]` entries
//! the copied manifests use, our `[workspace.lints]` and profiles, plus our `Cargo.lock` and
//! `rust-toolchain.toml`. Then it runs `cargo test --offline -p <crate> --all-features` there
//! (unit, integration and doc tests). Nothing but the copied crates exists in that workspace,
//! and not at their paths here, so a crate that reads a file outside its own directory fails.
//!
//! Every run shares one target directory (`target/vendor-check`), so third-party crates are
//! built once, not once per crate.

use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::Result;
use anyhow::bail;

use crate::ci::ToolEnv;
use crate::ci::format_duration;
use crate::floors;
use crate::floors::Declared;
use crate::process::Cmd;
use crate::workspace::Metadata;
use crate::workspace::Package;
use crate::workspace::display_path;

/// The target directory every vendored workspace builds into, under the workspace root.
pub(crate) const TARGET_DIR: &str = "target/vendor-check";

/// Files copied from the workspace root beside the synthesized manifest.
const ROOT_FILES: &[&str] = &["Cargo.lock", "rust-toolchain.toml"];

/// Which crates to check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Package names (`agentctx-rollout`) or directory names (`rollout`); empty means all.
    pub(crate) crates: Vec<String>,
    /// Only crates on this floor or lower.
    pub(crate) max_floor: Option<u8>,
}

/// The outcome for one crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CrateResult {
    pub(crate) name: String,
    pub(crate) floor: Option<u8>,
    /// How many crates the vendored workspace holds, the checked one included.
    pub(crate) vendored: usize,
    pub(crate) passed: bool,
    pub(crate) counts: TestCounts,
    pub(crate) elapsed: Duration,
}

/// Tests counted from `cargo test`'s `test result:` lines, summed over the test binaries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TestCounts {
    pub(crate) passed: usize,
    pub(crate) failed: usize,
    pub(crate) ignored: usize,
}

/// Checks the crates `selection` names; their tests get `env` (what `cargo xtask ci`'s `tools`
/// step found installed).
pub(crate) fn run(selection: &Selection, env: &ToolEnv) -> Result<()> {
    let metadata = Metadata::load()?;
    let root = metadata.workspace_root.clone();
    let root_manifest: toml::Table = toml::from_str(&read(&root.join("Cargo.toml"))?)
        .context("could not parse the workspace Cargo.toml")?;
    let crates = select(&root, &metadata.packages, selection)?;
    let target_dir = root.join(TARGET_DIR);
    let started = Instant::now();
    let mut results = Vec::new();
    for package in crates {
        let members = closure(&metadata.packages, &package.name);
        println!(
            "\n==> vendor-check {}: {}",
            package.name,
            members
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let crate_started = Instant::now();
        let workspace = tempfile::Builder::new()
            .prefix("agentctx-vendor-")
            .tempdir()
            .context("could not create a temporary directory")?;
        vendor(&root, &root_manifest, &members, workspace.path())?;
        let (ok, stdout) = env
            .apply(test_cmd(&package.name))
            .current_dir(workspace.path())
            .env("CARGO_TARGET_DIR", target_dir.to_string_lossy())
            .env("INSTA_UPDATE", "no")
            .run_capturing_stdout()?;
        let counts = count_tests(&stdout);
        if !ok {
            print!("{stdout}");
            let kept = workspace.keep();
            println!(
                "<== {} FAILED; the vendored workspace is kept at {}",
                package.name,
                kept.display()
            );
        }
        let result = CrateResult {
            name: package.name.clone(),
            floor: match floors::declared(package) {
                Declared::Floor(floor) => Some(floor),
                Declared::Missing | Declared::Invalid(_) => None,
            },
            vendored: members.len(),
            passed: ok && counts.failed == 0,
            counts,
            elapsed: crate_started.elapsed(),
        };
        println!("<== {}", result_line(&result));
        results.push(result);
    }
    println!("\n{}", summary(&results, started.elapsed()));
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| r.name.as_str())
        .collect();
    if !failed.is_empty() {
        bail!("vendor-check failed for {}", failed.join(", "));
    }
    Ok(())
}

/// Tests one crate of the vendored workspace (its dependencies are checked on their own).
pub(crate) fn test_cmd(package: &str) -> Cmd {
    Cmd::cargo([
        "test",
        "--offline",
        "-p",
        package,
        "--all-features",
        "--no-fail-fast",
    ])
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))
}

/// The floored crates to check, by floor then name.
pub(crate) fn select<'a>(
    root: &Path,
    packages: &'a [Package],
    selection: &Selection,
) -> Result<Vec<&'a Package>> {
    let floor_of = |p: &Package| match floors::declared(p) {
        Declared::Floor(floor) => Some(floor),
        Declared::Missing | Declared::Invalid(_) => None,
    };
    let mut crates: Vec<&Package> = packages
        .iter()
        .filter(|p| floors::is_floored_crate(root, p))
        .collect();
    crates.sort_by_key(|p| (floor_of(p).unwrap_or(u8::MAX), p.name.clone()));
    for wanted in &selection.crates {
        let known = crates
            .iter()
            .any(|p| p.name == *wanted || dir_name(p) == *wanted);
        if !known {
            bail!("`{wanted}` is not a crate under crates/");
        }
    }
    Ok(crates
        .into_iter()
        .filter(|p| {
            selection.crates.is_empty()
                || selection
                    .crates
                    .iter()
                    .any(|w| *w == p.name || *w == dir_name(p))
        })
        .filter(|p| match selection.max_floor {
            Some(max) => floor_of(p).is_some_and(|floor| floor <= max),
            None => true,
        })
        .collect())
}

fn dir_name(package: &Package) -> String {
    package
        .dir()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `name` and every workspace package it reaches through path dependencies of any kind,
/// sorted by name.
pub(crate) fn closure<'a>(packages: &'a [Package], name: &str) -> Vec<&'a Package> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![name.to_owned()];
    while let Some(next) = stack.pop() {
        let Some(package) = packages.iter().find(|p| p.name == next) else {
            continue;
        };
        if !seen.insert(package.name.clone()) {
            continue;
        }
        for dep in &package.dependencies {
            if dep.path.is_some() && !seen.contains(&dep.name) {
                stack.push(dep.name.clone());
            }
        }
    }
    packages.iter().filter(|p| seen.contains(&p.name)).collect()
}

/// Copies `members` into `dest` under their workspace-relative paths and writes the root
/// manifest and files a vendored workspace needs.
/// Where a vendored crate goes: its workspace-relative directory and the one it gets in the
/// vendored workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    pub(crate) from: String,
    pub(crate) to: String,
    /// False for a package nested in another vendored one, which arrives with its parent.
    pub(crate) copied: bool,
}

/// Places each member at the top of the vendored workspace under its package name
/// (`agentctx-protocol/`), not under its path here, as a fork would lay them out: a crate
/// that reaches a sibling or the repository root by a relative path then finds nothing. A
/// package inside another vendored package (`agentctx-protocol/tests/common`) keeps its place
/// inside it. `members` are `(workspace-relative directory, package name)`.
pub(crate) fn placements(members: &[(String, String)]) -> Vec<Placement> {
    let mut sorted: Vec<&(String, String)> = members.iter().collect();
    sorted.sort_by_key(|(dir, _)| dir.len());
    let mut placed: Vec<Placement> = Vec::new();
    for (dir, name) in sorted {
        let parent = placed
            .iter()
            .filter(|p| p.copied && dir.starts_with(&format!("{}/", p.from)))
            .max_by_key(|p| p.from.len());
        let placement = match parent {
            Some(parent) => Placement {
                from: dir.clone(),
                to: format!("{}{}", parent.to, &dir[parent.from.len()..]),
                copied: false,
            },
            None => Placement {
                from: dir.clone(),
                to: name.clone(),
                copied: true,
            },
        };
        placed.push(placement);
    }
    placed
}

/// Copies `members` into `dest` as [`placements`] lays them out and writes the root manifest
/// and files a vendored workspace needs.
fn vendor(
    root: &Path,
    root_manifest: &toml::Table,
    members: &[&Package],
    dest: &Path,
) -> Result<()> {
    let listed: Vec<(String, String)> = members
        .iter()
        .map(|p| (display_path(root, p.dir()), p.name.clone()))
        .collect();
    let placed = placements(&listed);
    for placement in placed.iter().filter(|p| p.copied) {
        copy_dir(&root.join(&placement.from), &dest.join(&placement.to))?;
    }
    let manifests = members
        .iter()
        .map(|p| read(&p.manifest_path))
        .collect::<Result<Vec<_>>>()?;
    let manifest = synthesize_manifest(root_manifest, &placed, &manifests)?;
    std::fs::write(dest.join("Cargo.toml"), manifest)
        .with_context(|| format!("could not write {}", dest.display()))?;
    for file in ROOT_FILES {
        let from = root.join(file);
        if from.is_file() {
            std::fs::copy(&from, dest.join(file))
                .with_context(|| format!("could not copy {}", from.display()))?;
        }
    }
    Ok(())
}

/// Copies `from` into `to`, leaving out `target/` and `.git/` (fixtures live in hidden
/// directories too, such as a project's `.claude/skills/`).
pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("could not create {}", to.display()))?;
    let entries =
        std::fs::read_dir(from).with_context(|| format!("could not list {}", from.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("could not list {}", from.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let destination: PathBuf = to.join(&name);
        let file_type = entry
            .file_type()
            .with_context(|| format!("could not stat {}", path.display()))?;
        if file_type.is_dir() {
            let name = name.to_string_lossy();
            if name != ".git" && name != "target" {
                copy_dir(&path, &destination)?;
            }
        } else if file_type.is_file() {
            std::fs::copy(&path, &destination)
                .with_context(|| format!("could not copy {}", path.display()))?;
        }
    }
    Ok(())
}

/// The root `Cargo.toml` of a vendored workspace: the `members` where they were placed, our
/// `[workspace.package]`, `[workspace.lints]` and profiles, and exactly the
/// `[workspace.dependencies]` entries that `manifests` (the members' `Cargo.toml` texts)
/// inherit with `workspace = true`, path dependencies pointed at the new places.
pub(crate) fn synthesize_manifest(
    root_manifest: &toml::Table,
    members: &[Placement],
    manifests: &[String],
) -> Result<String> {
    let workspace = root_manifest
        .get("workspace")
        .and_then(toml::Value::as_table)
        .context("the workspace Cargo.toml has no [workspace]")?;
    let available = workspace
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default();
    let mut needed = BTreeSet::new();
    for text in manifests {
        let manifest: toml::Table =
            toml::from_str(text).context("could not parse a member manifest")?;
        needed.extend(inherited_dependencies(&manifest));
    }
    let mut dependencies = toml::Table::new();
    for name in needed {
        let mut entry = available
            .get(&name)
            .with_context(|| format!("`{name}` is inherited but not in [workspace.dependencies]"))?
            .clone();
        if let Some(table) = entry.as_table_mut()
            && let Some(path) = table.get("path").and_then(toml::Value::as_str)
        {
            let path = path.trim_end_matches('/').trim_start_matches("./");
            let placement = members.iter().find(|m| m.from == path).with_context(|| {
                format!("`{name}` is a path dependency on `{path}`, which is not vendored")
            })?;
            table.insert("path".to_owned(), toml::Value::from(placement.to.as_str()));
        }
        dependencies.insert(name, entry);
    }
    let mut new_workspace = toml::Table::new();
    new_workspace.insert("resolver".to_owned(), toml::Value::from("2"));
    new_workspace.insert(
        "members".to_owned(),
        toml::Value::Array(
            members
                .iter()
                .map(|m| toml::Value::from(m.to.as_str()))
                .collect(),
        ),
    );
    for key in ["package", "lints"] {
        if let Some(value) = workspace.get(key) {
            new_workspace.insert(key.to_owned(), value.clone());
        }
    }
    new_workspace.insert("dependencies".to_owned(), toml::Value::Table(dependencies));
    let mut out = toml::Table::new();
    out.insert("workspace".to_owned(), toml::Value::Table(new_workspace));
    if let Some(profile) = root_manifest.get("profile") {
        out.insert("profile".to_owned(), profile.clone());
    }
    let text = toml::to_string(&out).context("could not write the vendored Cargo.toml")?;
    Ok(format!(
        "# Written by `cargo xtask vendor-check`: the crates below, vendored as a fork would.\n{text}"
    ))
}

/// Names of the dependencies (every section, target-specific ones too) a manifest inherits
/// with `workspace = true`.
pub(crate) fn inherited_dependencies(manifest: &toml::Table) -> BTreeSet<String> {
    const SECTIONS: &[&str] = &["dependencies", "dev-dependencies", "build-dependencies"];
    // The manifest itself and each `[target.'cfg(..)']` table hold the same three sections.
    let targets = manifest
        .get("target")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|targets| targets.values().filter_map(toml::Value::as_table));
    std::iter::once(manifest)
        .chain(targets)
        .flat_map(|scope| {
            SECTIONS
                .iter()
                .filter_map(|s| scope.get(*s).and_then(toml::Value::as_table))
        })
        .flat_map(|table| table.iter())
        .filter(|(_, spec)| spec.get("workspace").and_then(toml::Value::as_bool) == Some(true))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Sums the `test result: ok. 12 passed; 0 failed; 1 ignored; ...` lines of `cargo test`.
pub(crate) fn count_tests(stdout: &str) -> TestCounts {
    let mut counts = TestCounts::default();
    for line in stdout.lines() {
        let Some(rest) = line.trim().strip_prefix("test result: ") else {
            continue;
        };
        let words: Vec<&str> = rest
            .split([' ', ';', '.'])
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            let [number, label] = pair else { continue };
            let Ok(number) = number.parse::<usize>() else {
                continue;
            };
            match *label {
                "passed" => counts.passed += number,
                "failed" => counts.failed += number,
                "ignored" => counts.ignored += number,
                _ => {}
            }
        }
    }
    counts
}

fn result_line(result: &CrateResult) -> String {
    let floor = result
        .floor
        .map_or_else(|| "-".to_owned(), |floor| floor.to_string());
    let verdict = if result.passed { "ok" } else { "FAILED" };
    let ignored = if result.counts.ignored > 0 {
        format!(", {} ignored", result.counts.ignored)
    } else {
        String::new()
    };
    let failed = if result.counts.failed > 0 {
        format!(", {} failed", result.counts.failed)
    } else {
        String::new()
    };
    format!(
        "{verdict:<6} {:<20} floor {floor}  {} crate(s)  {:>4} tests passed{failed}{ignored}  {:>8}",
        result.name,
        result.vendored,
        result.counts.passed,
        format_duration(result.elapsed)
    )
}

/// The table printed at the end.
pub(crate) fn summary(results: &[CrateResult], total: Duration) -> String {
    let mut text = String::from("vendor-check summary:\n");
    for result in results {
        text.push_str("  ");
        text.push_str(&result_line(result));
        text.push('\n');
    }
    let passed = results.iter().filter(|r| r.passed).count();
    text.push_str(&format!(
        "vendor-check: {passed} of {} crate(s) passed in {}",
        results.len(),
        format_duration(total)
    ));
    text
}

#[cfg(test)]
#[path = "vendor_check_tests.rs"]
mod tests;
