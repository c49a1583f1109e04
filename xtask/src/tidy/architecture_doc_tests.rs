use pretty_assertions::assert_eq;

use super::check;
use super::parse_rows;
use crate::floors::FLOORS;

fn full_table() -> String {
    let mut text = String::from(
        "# Architecture\n\n| floor | directory | package | owns |\n|---|---|---|---|\n",
    );
    for entry in FLOORS {
        text.push_str(&format!(
            "| {} | `crates/{}` | `{}` | things |\n",
            entry.floor, entry.dir, entry.package
        ));
    }
    text.push_str("| – | `xtask` | `xtask` | tooling |\n\n| other | table |\n");
    text
}

#[test]
fn parses_rows_and_ignores_other_lines() {
    let rows = parse_rows(&full_table());
    assert_eq!(rows.len(), FLOORS.len());
    assert_eq!(
        rows[0],
        (0, "protocol".to_owned(), "agentctx-protocol".to_owned())
    );
}

#[test]
fn a_matching_table_passes() {
    assert_eq!(check("docs/architecture.md", &full_table()), Vec::new());
}

#[test]
fn missing_and_extra_rows_are_both_reported() {
    let text = full_table()
        .replace("| 2 | `crates/memory` | `agentctx-memory` | things |\n", "")
        .replace("| 3 | `crates/loop-driver`", "| 2 | `crates/loop-driver`");
    let messages: Vec<String> = check("docs/architecture.md", &text)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        messages,
        vec![
            "error[architecture-doc] docs/architecture.md: the floors table lacks the row `| 2 | `crates/memory` | `agentctx-memory` |` that xtask/src/floors.rs has",
            "error[architecture-doc] docs/architecture.md: the floors table lacks the row `| 3 | `crates/loop-driver` | `agentctx-loop-driver` |` that xtask/src/floors.rs has",
            "error[architecture-doc] docs/architecture.md: the floors table row `agentctx-loop-driver` (floor 2, crates/loop-driver) is not in `FLOORS` of xtask/src/floors.rs",
        ]
    );
}
