//! Lists the files of one package: everything under its directory except `target/`, hidden
//! directories and nested packages (directories with their own `Cargo.toml`, such as a
//! `tests/common` test-support crate, which are checked as packages of their own).

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::Result;

/// All files under `package_dir`, sorted.
pub(crate) fn list(package_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    visit(package_dir, package_dir, &mut files)?;
    files.sort();
    Ok(files)
}

fn visit(package_dir: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
        let path = entry.path();
        let file_type = entry
            .file_type()
            .with_context(|| format!("could not stat {}", path.display()))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if file_type.is_dir() {
            let skipped = name.starts_with('.')
                || (dir == package_dir && name == "target")
                || path.join("Cargo.toml").is_file();
            if !skipped {
                visit(package_dir, &path, files)?;
            }
        } else if file_type.is_file() {
            files.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "source_files_tests.rs"]
mod tests;
