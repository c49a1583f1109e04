//! Keeps the floors table of `docs/architecture.md` and `FLOORS` in xtask in agreement.
//!
//! A table row reads `| 2 | `crates/reminders` | `agentctx-reminders` | ... |`; other lines
//! and tables are ignored.

use crate::finding::Finding;
use crate::floors::FLOORS;

const CHECK: &str = "architecture-doc";

/// `(floor, directory, package)` as written in a row of the floors table.
pub(crate) type Row = (u8, String, String);

pub(crate) fn parse_rows(text: &str) -> Vec<Row> {
    text.lines().filter_map(parse_row).collect()
}

fn parse_row(line: &str) -> Option<Row> {
    let cells: Vec<&str> = line
        .trim()
        .strip_prefix('|')?
        .split('|')
        .map(str::trim)
        .collect();
    let [floor, dir, package, ..] = cells.as_slice() else {
        return None;
    };
    let floor = floor.parse().ok()?;
    let dir = dir.trim_matches('`').strip_prefix("crates/")?;
    let package = package.trim_matches('`');
    package
        .starts_with("agentctx-")
        .then(|| (floor, dir.to_owned(), package.to_owned()))
}

/// `path` is the display path of the document, `text` its contents.
pub(crate) fn check(path: &str, text: &str) -> Vec<Finding> {
    let rows = parse_rows(text);
    let mut findings = Vec::new();
    for entry in FLOORS {
        let expected = (entry.floor, entry.dir.to_owned(), entry.package.to_owned());
        if !rows.contains(&expected) {
            findings.push(Finding::error(
                CHECK,
                path,
                format!(
                    "the floors table lacks the row `| {} | `crates/{}` | `{}` |` that xtask/src/floors.rs has",
                    entry.floor, entry.dir, entry.package
                ),
            ));
        }
    }
    for (floor, dir, package) in &rows {
        let known = FLOORS
            .iter()
            .any(|e| e.floor == *floor && e.dir == dir && e.package == package);
        if !known {
            findings.push(Finding::error(
                CHECK,
                path,
                format!(
                    "the floors table row `{package}` (floor {floor}, crates/{dir}) is not in `FLOORS` of xtask/src/floors.rs"
                ),
            ));
        }
    }
    findings
}

#[cfg(test)]
#[path = "architecture_doc_tests.rs"]
mod tests;
