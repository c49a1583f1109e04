//! `cargo xtask schema`: regenerates the JSON schemas each crate commits inside itself
//! (`crates/<crate>/config.schema.json`, `crates/protocol/schema/*.schema.json`).
//!
//! Each crate with schemas owns a test named `schema_is_fresh` that compares the committed
//! file with `schemars::schema_for!` output and rewrites it when the environment variable
//! [`UPDATE_ENV`] is exactly `1`. This command runs those tests with the variable set for the
//! child process and lists what changed, so the schema code lives beside the types it describes.

use anyhow::Result;

use crate::process::Cmd;

/// Read (never set) by the `schema_is_fresh` tests.
pub(crate) const UPDATE_ENV: &str = "AGENTCTX_UPDATE_SCHEMAS";
/// Where the crates live; their schema files end with [`SCHEMA_SUFFIX`].
pub(crate) const CRATES_DIR: &str = "crates";
pub(crate) const SCHEMA_SUFFIX: &str = ".schema.json";

pub(crate) fn run() -> Result<()> {
    Cmd::cargo(["test", "--workspace", "--all-features", "schema_is_fresh"])
        .env(UPDATE_ENV, "1")
        .run()?;
    let status = Cmd::new("git")
        .args(["status", "--porcelain", "--untracked-files=all", "--"])
        .arg(CRATES_DIR)
        .read_stdout()?;
    let changed = changed_schemas(&status);
    if changed.is_empty() {
        println!("schemas: no changes");
    } else {
        println!("changed schemas (review and commit them):");
        for path in changed {
            println!("  {path}");
        }
    }
    Ok(())
}

/// The schema files among the paths of `git status --porcelain` output; a rename lists its
/// new path.
pub(crate) fn changed_schemas(porcelain: &str) -> Vec<String> {
    porcelain
        .lines()
        .filter_map(|line| line.get(3..))
        .map(|path| {
            path.rsplit_once(" -> ")
                .map_or(path, |(_, new)| new)
                .trim_matches('"')
                .to_owned()
        })
        .filter(|path| path.ends_with(SCHEMA_SUFFIX))
        .collect()
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
