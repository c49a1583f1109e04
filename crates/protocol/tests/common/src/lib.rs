//! Helpers shared by the integration tests of several agentctx crates.
//!
//! A dev-dependency only (it sits on no floor; `cargo xtask tidy` refuses it anywhere else).
//! It holds what more than one crate's tests need, so no crate writes it again:
//!
//! - [`assert_schema_fresh`]: the `schema_is_fresh` convention of `docs/architecture.md` — the
//!   JSON schema a crate commits inside itself (e.g. `crates/reminders/config.schema.json`)
//!   must match the code, and `cargo xtask schema` (which sets `AGENTCTX_UPDATE_SCHEMAS=1`)
//!   rewrites it. Paths resolve from the calling crate's manifest directory, so a crate
//!   vendored on its own still finds its schema.
//!
//! - [`child_process`]: the multi-process tests' children (the test binary run again on one
//!   `#[ignore]`d test), their peak memory (`VmHWM`) and a seeded generator for kill delays.
//!
//! ```no_run
//! #[derive(schemars::JsonSchema)]
//! struct Example {
//!     name: String,
//! }
//! agentctx_test_support::assert_schema_fresh::<Example>(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "config.schema.json",
//! );
//! ```

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test support fails the test loudly"
)]

pub mod child_process;

use std::ffi::OsStr;
use std::path::Path;

use pretty_assertions::assert_eq;
use schemars::JsonSchema;

/// The environment variable that makes [`assert_schema_fresh`] write instead of compare when
/// it is exactly `1`. Tests only read it; `cargo xtask schema` sets it for its child process.
pub const UPDATE_SCHEMAS_ENV: &str = "AGENTCTX_UPDATE_SCHEMAS";

/// Asserts that `<manifest_dir>/<relative_path>` is the pretty-printed schema of `T` (with a
/// trailing newline); with [`UPDATE_SCHEMAS_ENV`] set to `1`, writes it instead.
///
/// `manifest_dir` is the calling crate's `env!("CARGO_MANIFEST_DIR")`, so every crate keeps
/// its schemas inside itself.
///
/// # Panics
///
/// When the committed file is missing or stale (the message names the command that regenerates
/// it), or when it cannot be written in update mode.
pub fn assert_schema_fresh<T: JsonSchema>(manifest_dir: &str, relative_path: &str) {
    let path = Path::new(manifest_dir).join(relative_path);
    let update = update_requested(std::env::var_os(UPDATE_SCHEMAS_ENV).as_deref());
    check_schema(&path, &generated_schema::<T>(), update);
}

/// The schema of `T` as it is committed: pretty JSON with a trailing newline.
pub fn generated_schema<T: JsonSchema>() -> String {
    let schema = schemars::schema_for!(T);
    format!(
        "{}\n",
        serde_json::to_string_pretty(&schema).expect("a schema serializes")
    )
}

/// Whether the value of [`UPDATE_SCHEMAS_ENV`] asks for a rewrite.
/// Only exactly `1` does: `AGENTCTX_UPDATE_SCHEMAS=0` left set in a shell must never turn every
/// freshness test into a silent rewrite.
pub fn update_requested(value: Option<&OsStr>) -> bool {
    value == Some(OsStr::new("1"))
}

/// Writes `generated` to `path` when `update`, else asserts the file holds exactly it.
///
/// # Panics
///
/// When the file is stale or missing and `update` is false, or cannot be written.
pub fn check_schema(path: &Path, generated: &str, update: bool) {
    if update {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|err| panic!("create {}: {err}", parent.display()));
        }
        std::fs::write(path, generated)
            .unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        committed,
        generated,
        "{} is stale: run `cargo xtask schema`",
        path.display()
    );
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
