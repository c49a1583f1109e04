//! Every fixture reads to exactly what the reader gave before lazy lines and the two-pass
//! Claude Code import: the snapshots were taken with the one-pass reader that typed every line
//! and held a whole Claude Code transcript (its `Debug` output, fidelity records included).

use std::fmt::Write as _;
use std::io::BufReader;
use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::read_rollout;

const FIXTURES: [&str; 5] = [
    "claude_1x.jsonl",
    "claude_2x.jsonl",
    "claude_rewind.jsonl",
    "codex_current.jsonl",
    "codex_legacy.jsonl",
];

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Everything a read yields, one record per line.
pub(crate) fn describe(path: &Path) -> String {
    let file = read_rollout(path).unwrap();
    let mut out = String::new();
    writeln!(out, "format: {:?}", file.format).unwrap();
    writeln!(out, "lines: {}", file.lines).unwrap();
    writeln!(out, "ignored: {:?}", file.ignored).unwrap();
    // A one-pass Claude Code read reported the importer's skips at the end of the file, after
    // the lines that were not JSON; the two-pass read reports every skip in file order.
    let mut skipped = file.skipped.clone();
    skipped.sort_by_key(|line| line.line_number);
    for skipped in &skipped {
        writeln!(out, "skipped: {skipped:?}").unwrap();
    }
    for record in &file.records {
        writeln!(out, "{record:?}").unwrap();
    }
    out
}

#[test]
fn every_fixture_reads_as_before() {
    for name in FIXTURES {
        insta::assert_snapshot!(name, describe(&fixture(name)));
    }
}

#[test]
fn tmp_dump_examples() {
    for name in ["example_claude.jsonl", "example_subagent.jsonl", "example_codex.jsonl", "rep_claude.jsonl", "odd_claude.jsonl"] {
        let path = Path::new("/tmp/oldgold").join(name);
        std::fs::write(path.with_extension("old.txt"), describe(&path)).unwrap();
    }
}
