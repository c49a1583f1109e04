//! Check (j): every test file is compiled into its crate's test binary.
//!
//! A file cargo does not compile runs no test and fails nothing, so it silently rots:
//!
//! - `tests/suite/<name>.rs` must be declared as `mod <name>;` in `tests/all.rs` (inside its
//!   `mod suite { .. }`) or in `tests/suite.rs`;
//! - a sibling unit-test file `<name>_tests.rs` (anywhere but under `tests/`) must be named by a
//!   `#[path = "..."]` attribute in a `.rs` file whose directory the path resolves from.

use std::collections::BTreeSet;
use std::path::Component;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::Result;

use crate::finding::Finding;
use crate::workspace::display_path;

const CHECK: &str = "test-wiring";

/// `files` are the package's files as `source_files::list` returns them.
pub(crate) fn check(root: &Path, package_dir: &Path, files: &[PathBuf]) -> Result<Vec<Finding>> {
    let rust_files: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        .collect();
    let mut path_targets = BTreeSet::new();
    let mut suite_modules = BTreeSet::new();
    let all_rs = package_dir.join("tests/all.rs");
    let suite_rs = package_dir.join("tests/suite.rs");
    for file in &rust_files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("could not read {}", file.display()))?;
        let dir = file.parent().unwrap_or(package_dir);
        for target in path_attributes(&text) {
            path_targets.insert(normalize(&dir.join(target)));
        }
        if **file == all_rs || **file == suite_rs {
            suite_modules.extend(declared_modules(&text));
        }
    }
    let tests_dir = package_dir.join("tests");
    let suite_dir = tests_dir.join("suite");
    let mut findings = Vec::new();
    for file in rust_files {
        let path = display_path(root, file);
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if file.parent() == Some(suite_dir.as_path()) {
            let module = name.trim_end_matches(".rs");
            if !suite_modules.contains(module) {
                findings.push(Finding::error(
                    CHECK,
                    path,
                    format!(
                        "not compiled: declare `mod {module};` in the `mod suite {{ .. }}` of tests/all.rs"
                    ),
                ));
            }
        } else if name.ends_with("_tests.rs")
            && !file.starts_with(&tests_dir)
            && !path_targets.contains(&normalize(file))
        {
            let stem = name.trim_end_matches("_tests.rs");
            findings.push(Finding::error(
                CHECK,
                path,
                format!(
                    "not compiled: `{stem}.rs` beside it must end with `#[cfg(test)] #[path = \"{name}\"] mod tests;`"
                ),
            ));
        }
    }
    Ok(findings)
}

/// The values of `#[path = "..."]` attributes, one per line at most.
pub(crate) fn path_attributes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("#[path")?;
            let rest = rest.trim_start().strip_prefix('=')?.trim_start();
            let rest = rest.strip_prefix('"')?;
            rest.split_once('"').map(|(value, _)| value.to_owned())
        })
        .collect()
}

/// The names of `mod <name>;` declarations (any visibility), wherever they are nested.
pub(crate) fn declared_modules(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| {
            let code = line.trim();
            let code = match code.strip_prefix("pub") {
                Some(rest) if rest.starts_with('(') => rest.split_once(')')?.1.trim_start(),
                Some(rest) => rest.trim_start(),
                None => code,
            };
            let name = code.strip_prefix("mod ")?.strip_suffix(';')?.trim();
            Some(name.to_owned())
        })
        .collect()
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[path = "test_wiring_tests.rs"]
mod tests;
