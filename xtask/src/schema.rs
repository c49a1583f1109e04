//! `cargo xtask schema`: regenerates the committed JSON schemas under `docs/schema/`.
//!
//! Each crate with schemas owns a test named `schema_is_fresh` that compares the committed
//! file with `schemars::schema_for!` output and rewrites it when the environment variable
//! [`UPDATE_ENV`] is `1`. This command runs those tests with the variable set for the child
//! process and lists what changed, so the schema code lives beside the types it describes.

use anyhow::Result;

use crate::process::Cmd;

/// Read (never set) by the `schema_is_fresh` tests.
pub(crate) const UPDATE_ENV: &str = "AGENTCTX_UPDATE_SCHEMAS";
pub(crate) const SCHEMA_DIR: &str = "docs/schema";

pub(crate) fn run() -> Result<()> {
    Cmd::cargo(["test", "--workspace", "--all-features", "schema_is_fresh"])
        .env(UPDATE_ENV, "1")
        .run()?;
    let status = Cmd::new("git")
        .args(["status", "--porcelain", "--untracked-files=all", "--"])
        .arg(SCHEMA_DIR)
        .read_stdout()?;
    let changed = changed_files(&status);
    if changed.is_empty() {
        println!("{SCHEMA_DIR}: no changes");
    } else {
        println!("changed schemas (review and commit them):");
        for path in changed {
            println!("  {path}");
        }
    }
    Ok(())
}

/// The paths of `git status --porcelain` output; a rename lists its new path.
pub(crate) fn changed_files(porcelain: &str) -> Vec<String> {
    porcelain
        .lines()
        .filter_map(|line| line.get(3..))
        .map(|path| {
            path.rsplit_once(" -> ")
                .map_or(path, |(_, new)| new)
                .trim_matches('"')
                .to_owned()
        })
        .filter(|path| !path.is_empty())
        .collect()
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
