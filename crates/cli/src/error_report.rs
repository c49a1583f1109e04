//! How the binary prints an error: its cause chain on one line.
//!
//! Our library errors follow codex's habit of writing their cause into their own message
//! (`cannot create directory {path}: {source}`) and also returning it as `source()`, so a chain
//! printed whole (anyhow's `{:#}`) shows each such cause twice. The printer drops a cause whose
//! text the message already holds, for every error at once, instead of each command unwrapping
//! the variants it knows.

/// `outer: cause: cause`, each cause once.
pub(crate) fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
#[path = "error_report_tests.rs"]
mod tests;
