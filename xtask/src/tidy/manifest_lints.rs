//! Check (b): every crate's `Cargo.toml` inherits the workspace lints with `[lints] workspace = true`.

use crate::finding::Finding;

const CHECK: &str = "workspace-lints";

/// `path` is the manifest's display path, `text` its contents.
pub(crate) fn check(path: &str, text: &str) -> Option<Finding> {
    let table: toml::Table = match toml::from_str(text) {
        Ok(table) => table,
        Err(err) => {
            let message = format!("could not parse the manifest: {}", err.message());
            return Some(Finding::error(CHECK, path, message));
        }
    };
    let inherits = table
        .get("lints")
        .and_then(|lints| lints.get("workspace"))
        .and_then(toml::Value::as_bool)
        == Some(true);
    (!inherits).then(|| {
        Finding::error(
            CHECK,
            path,
            "missing `[lints] workspace = true`; every crate inherits the workspace lints"
                .to_owned(),
        )
    })
}

#[cfg(test)]
#[path = "manifest_lints_tests.rs"]
mod tests;
