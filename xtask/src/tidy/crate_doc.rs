//! Check (c): every `lib.rs` and `main.rs` crate root opens with a `//!` crate doc.

use crate::finding::Finding;

const CHECK: &str = "crate-doc";

/// Blank lines may precede the doc; anything else (an attribute, `use`, a `//` comment) may not.
pub(crate) fn check(path: &str, text: &str) -> Option<Finding> {
    let first = text.lines().map(str::trim).find(|line| !line.is_empty());
    match first {
        Some(line) if line.starts_with("//!") => None,
        _ => Some(Finding::error(
            CHECK,
            path,
            "the crate root must start with a `//!` doc: what the crate is for, its floor and an example"
                .to_owned(),
        )),
    }
}

#[cfg(test)]
#[path = "crate_doc_tests.rs"]
mod tests;
