//! `cargo xtask tidy`: the invariants of `docs/architecture.md` that a program can check.
//!
//! (a) dependency floors (`floors.rs`), (b) `[lints] workspace = true`, (c) `//!` crate docs,
//! (d) no `mod.rs`, (e) no printing in library crates, (f) no `todo!`/`unimplemented!` in
//! `src/`, (g) the file size budget, (h) no `std::process::Command::new` outside a process
//! helper, (i) the crate invariants a program can see (`tidy/crate_invariants.rs`), (j) every
//! test file compiled into its crate's test binary (`tidy/test_wiring.rs`), and (k) no path,
//! link or citation that leaves the repository (`tidy/outside_refs.rs`).

mod crate_doc;
mod crate_invariants;
mod file_layout;
mod manifest_lints;
mod outside_refs;
mod source_files;
mod source_rules;
mod test_wiring;

use std::path::Path;

use anyhow::Context;
use anyhow::Result;
use anyhow::bail;

use crate::finding::Finding;
use crate::floors;
use crate::workspace::Metadata;
use crate::workspace::Package;
use crate::workspace::display_path;

/// Runs every check over the workspace and returns the findings, sorted by path and line.
pub(crate) fn check_workspace(metadata: &Metadata) -> Result<Vec<Finding>> {
    let root = metadata.workspace_root.as_path();
    let mut findings = floors::check(root, &metadata.packages);
    for package in &metadata.packages {
        findings.extend(check_package(root, package)?);
    }
    findings.extend(outside_refs::check_repository(root)?);
    findings.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    Ok(findings)
}

fn check_package(root: &Path, package: &Package) -> Result<Vec<Finding>> {
    let mut findings = Vec::new();
    let manifest_path = display_path(root, &package.manifest_path);
    let manifest = read(&package.manifest_path)?;
    findings.extend(manifest_lints::check(&manifest_path, &manifest));
    findings.extend(crate_invariants::check_dependencies(
        &manifest_path,
        package,
    ));
    for target in &package.targets {
        let is_crate_kind = target
            .kind
            .iter()
            .any(|k| matches!(k.as_str(), "lib" | "proc-macro" | "bin"));
        let file_name = target.src_path.file_name().and_then(|n| n.to_str());
        if is_crate_kind && matches!(file_name, Some("lib.rs" | "main.rs")) {
            let text = read(&target.src_path)?;
            findings.extend(crate_doc::check(
                &display_path(root, &target.src_path),
                &text,
            ));
        }
    }
    let kind = PackageKind::of(package);
    let files = source_files::list(package.dir())?;
    findings.extend(test_wiring::check(root, package.dir(), &files)?);
    for file in files {
        let path = display_path(root, &file);
        findings.extend(file_layout::check_mod_rs(&path));
        if file.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let within = file.strip_prefix(package.dir()).unwrap_or(&file);
        let place = FilePlace::of(within);
        let text = read(&file)?;
        findings.extend(file_layout::check_size(
            &path,
            &text,
            !place.unit_tests && !place.under_tests,
        ));
        findings.extend(source_rules::check(&path, &text, rules_for(kind, place)));
        if package.name == "agentctx-protocol" && place.in_src && !place.unit_tests {
            findings.extend(crate_invariants::check_protocol_source(&path, &text));
        }
    }
    Ok(findings)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))
}

/// What sort of package a file belongs to, as far as the rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PackageKind {
    /// A crate with a library target, other than the ones below.
    Library,
    /// `agentctx-cli` and other binary-only crates: they may print.
    Binary,
    /// `*_test_support` / `*-test-support`: test code.
    TestSupport,
    /// `xtask`: tooling, may print and spawn processes.
    Xtask,
}

impl PackageKind {
    fn of(package: &Package) -> Self {
        let has_lib = package
            .targets
            .iter()
            .any(|t| t.kind.iter().any(|k| k == "lib" || k == "proc-macro"));
        if package.name == "xtask" {
            Self::Xtask
        } else if floors::is_test_support(&package.name) {
            Self::TestSupport
        } else if package.name == "agentctx-cli" || !has_lib {
            Self::Binary
        } else {
            Self::Library
        }
    }
}

/// Where a file sits inside its package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FilePlace {
    /// Under `src/`.
    pub(crate) in_src: bool,
    /// A binary root of a library package: `src/main.rs` or under `src/bin/`.
    pub(crate) binary_root: bool,
    /// Under `tests/` (integration tests and their fixtures).
    pub(crate) under_tests: bool,
    /// A sibling unit-test file, `*_tests.rs`.
    pub(crate) unit_tests: bool,
    /// Named `process.rs`, the home of a crate's process helper.
    pub(crate) process_helper: bool,
}

impl FilePlace {
    /// `within` is the file's path relative to its package directory.
    pub(crate) fn of(within: &Path) -> Self {
        let mut components = within.components().map(|c| c.as_os_str().to_string_lossy());
        let first = components.next().unwrap_or_default();
        let second = components.next().unwrap_or_default();
        let file_name = within
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let in_src = first == "src";
        Self {
            in_src,
            binary_root: in_src && (second == "bin" || within == Path::new("src/main.rs")),
            under_tests: first == "tests",
            unit_tests: file_name.ends_with("_tests.rs"),
            process_helper: file_name == "process.rs",
        }
    }
}

pub(crate) fn rules_for(kind: PackageKind, place: FilePlace) -> source_rules::Rules {
    let test_code = place.unit_tests || place.under_tests || kind == PackageKind::TestSupport;
    source_rules::Rules {
        no_print: kind == PackageKind::Library && place.in_src && !place.binary_root && !test_code,
        no_placeholders: place.in_src,
        no_process_command: kind != PackageKind::Xtask && !place.process_helper && !test_code,
    }
}

/// Prints the findings and a count; fails when any is an error.
pub(crate) fn report(findings: &[Finding], what: &str) -> Result<()> {
    for finding in findings {
        println!("{finding}");
    }
    let errors = findings.iter().filter(|f| f.is_error()).count();
    let warnings = findings.len() - errors;
    if errors > 0 {
        bail!("{what}: {errors} error(s), {warnings} warning(s)");
    }
    println!("{what}: ok ({warnings} warning(s))");
    Ok(())
}

#[cfg(test)]
#[path = "tidy_tests.rs"]
mod tests;
