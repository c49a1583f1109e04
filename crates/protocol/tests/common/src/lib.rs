//! Helpers shared by the integration tests of several agentctx crates.
//!
//! A dev-dependency only (it sits on no floor; `cargo xtask tidy` refuses it anywhere else).
//! It holds what more than one crate's tests need, so no crate writes it again:
//!
//! - [`assert_schema_fresh`]: the `schema_is_fresh` convention of `docs/architecture.md` — the
//!   committed JSON schema of a type under `docs/schema/` must match the code, and
//!   `cargo xtask schema` (which sets `AGENTCTX_UPDATE_SCHEMAS=1`) rewrites it.
//!
//! ```no_run
//! #[derive(schemars::JsonSchema)]
//! struct Example {
//!     name: String,
//! }
//! agentctx_test_support::assert_schema_fresh::<Example>("example");
//! ```

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test support fails the test loudly"
)]

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use schemars::JsonSchema;

/// The environment variable that makes [`assert_schema_fresh`] write instead of compare. Tests
/// only read it; `cargo xtask schema` sets it for its child process.
pub const UPDATE_SCHEMAS_ENV: &str = "AGENTCTX_UPDATE_SCHEMAS";

/// The workspace's `docs/schema/` folder.
pub fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../../docs/schema")
}

/// Asserts that `docs/schema/<name>.schema.json` is the pretty-printed schema of `T` (with a
/// trailing newline); with [`UPDATE_SCHEMAS_ENV`] set, writes it instead.
///
/// # Panics
///
/// When the committed file is missing or stale (the message names the command that regenerates
/// it), or when it cannot be written in update mode.
pub fn assert_schema_fresh<T: JsonSchema>(name: &str) {
    let path = schema_dir().join(format!("{name}.schema.json"));
    let schema = schemars::schema_for!(T);
    let generated = format!(
        "{}\n",
        serde_json::to_string_pretty(&schema).expect("a schema serializes")
    );
    if std::env::var_os(UPDATE_SCHEMAS_ENV).is_some() {
        std::fs::write(&path, &generated)
            .unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        committed,
        generated,
        "{} is stale: run `cargo xtask schema`",
        path.display()
    );
}
