//! `cargo xtask snapshots`: records changed insta snapshots as `*.snap.new` files for review,
//! and `--accept` moves reviewed ones over the `.snap` files (no cargo-insta needed).

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::Result;
use anyhow::bail;

use crate::process::Cmd;
use crate::workspace;
use crate::workspace::display_path;

const NEW_SUFFIX: &str = ".snap.new";
const INLINE_SUFFIX: &str = ".pending-snap";

pub(crate) fn run(accept: bool, cargo_args: &[String]) -> Result<()> {
    let root = workspace::root();
    if accept {
        let accepted = accept_pending(root)?;
        for path in &accepted {
            println!("accepted {}", display_path(root, path));
        }
        println!("{} snapshot(s) accepted", accepted.len());
        return report_inline(root);
    }
    // INSTA_FORCE_PASS lets a test go on past its first changed snapshot, so one run records
    // every change; real failures still fail.
    let tests = Cmd::cargo(["test", "--all-features", "--no-fail-fast"])
        .args(workspace::scope_args(cargo_args))
        .args(cargo_args.iter().cloned())
        .env("INSTA_UPDATE", "new")
        .env("INSTA_FORCE_PASS", "1")
        .run();
    let pending = find_pending(root)?;
    let new_files: Vec<&PathBuf> = pending
        .iter()
        .filter(|p| has_suffix(p, NEW_SUFFIX))
        .collect();
    if new_files.is_empty() {
        println!("no pending snapshots");
    } else {
        println!("pending snapshots (read each, then `cargo xtask snapshots --accept`):");
        for path in new_files {
            println!("  {}", display_path(root, path));
        }
    }
    report_inline(root)?;
    tests.context("tests failed for reasons other than snapshots")
}

fn report_inline(root: &Path) -> Result<()> {
    let inline: Vec<PathBuf> = find_pending(root)?
        .into_iter()
        .filter(|p| has_suffix(p, INLINE_SUFFIX))
        .collect();
    for path in &inline {
        println!(
            "inline snapshot pending in {}: update the source by hand (or with cargo-insta)",
            display_path(root, path)
        );
    }
    Ok(())
}

fn has_suffix(path: &Path, suffix: &str) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(suffix))
}

/// Every `*.snap.new` and `*.pending-snap` under `root`, skipping `target/` and hidden
/// directories, sorted.
pub(crate) fn find_pending(root: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    visit(root, &mut found)?;
    found.sort();
    Ok(found)
}

fn visit(dir: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let file_type = entry
            .file_type()
            .with_context(|| format!("could not stat {}", path.display()))?;
        if file_type.is_dir() {
            if !name.starts_with('.') && name != "target" {
                visit(&path, found)?;
            }
        } else if name.ends_with(NEW_SUFFIX) || name.ends_with(INLINE_SUFFIX) {
            found.push(path);
        }
    }
    Ok(())
}

/// Renames every `x.snap.new` under `root` to `x.snap`, replacing the old snapshot, and
/// returns the accepted `.snap` paths.
pub(crate) fn accept_pending(root: &Path) -> Result<Vec<PathBuf>> {
    let mut accepted = Vec::new();
    for path in find_pending(root)? {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(stem) = name.strip_suffix(".new") else {
            continue;
        };
        if !name.ends_with(NEW_SUFFIX) {
            continue;
        }
        let target = path.with_file_name(stem);
        std::fs::rename(&path, &target).with_context(|| {
            format!("could not move {} to {}", path.display(), target.display())
        })?;
        accepted.push(target);
    }
    if accepted.is_empty() && !find_pending(root)?.is_empty() {
        bail!("only inline snapshots are pending; they cannot be accepted by renaming");
    }
    Ok(accepted)
}

#[cfg(test)]
#[path = "snapshots_tests.rs"]
mod tests;
