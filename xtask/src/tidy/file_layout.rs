//! Checks (d) and (g): no `mod.rs` files, and the file size budget.

use crate::finding::Finding;

/// A file over this many lines gets a warning: it probably holds two ideas.
pub(crate) const WARN_LINES: usize = 800;
/// A file over this many lines fails `tidy`.
pub(crate) const MAX_LINES: usize = 1500;

/// `path` is the display path of any file in a package.
pub(crate) fn check_mod_rs(path: &str) -> Option<Finding> {
    let is_mod_rs = path.rsplit('/').next() == Some("mod.rs");
    is_mod_rs.then(|| {
        Finding::error(
            "mod-rs",
            path,
            "`mod.rs` is not used here; name the module file after the module (`foo.rs` beside `foo/`)"
                .to_owned(),
        )
    })
}

/// `budgeted` is false for unit-test files (`*_tests.rs`) and files under `tests/`, which have
/// no budget.
pub(crate) fn check_size(path: &str, text: &str, budgeted: bool) -> Option<Finding> {
    if !budgeted {
        return None;
    }
    let lines = text.lines().count();
    if lines > MAX_LINES {
        Some(Finding::error(
            "file-size",
            path,
            format!("{lines} lines, over the budget of {MAX_LINES}; split it by idea"),
        ))
    } else if lines > WARN_LINES {
        Some(Finding::warning(
            "file-size",
            path,
            format!("{lines} lines, over {WARN_LINES}; it probably holds two ideas"),
        ))
    } else {
        None
    }
}

#[cfg(test)]
#[path = "file_layout_tests.rs"]
mod tests;
