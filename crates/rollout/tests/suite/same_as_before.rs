//! Every fixture reads to exactly what the reader gave before lazy lines and the two-pass
//! Claude Code import: the snapshots were taken with the one-pass reader that typed every line
//! and held a whole Claude Code transcript (its `Debug` output, fidelity records included).
//! Since then an imported `token_count` also keeps the model that answered (`model`), the bytes
//! of the output its response shows and whether its lines repeated one output count
//! (`visible_output_bytes`, `output_tokens_repeated`).

use std::fmt::Write as _;
use std::io::BufReader;
use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

const FIXTURES: [&str; 6] = [
    "claude_1x.jsonl",
    "claude_2x.jsonl",
    // claude_rewind.jsonl with lines that are not JSON, not objects, without a type or a
    // message, and an orphan record whose parent is not in the file.
    "claude_odd_lines.jsonl",
    "claude_rewind.jsonl",
    "codex_current.jsonl",
    "codex_legacy.jsonl",
];

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Everything a read of `path` yields, one record per line: through [`read_rollout`] (a file,
/// so a Claude Code transcript is read in two passes), and the same from a source that cannot
/// seek (one pass, every record held), which must agree.
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
    let bytes = std::fs::read(path).unwrap();
    let mut one_pass = RolloutReader::new(path, BufReader::new(Cursor::new(bytes)));
    let mut records = Vec::new();
    let mut one_pass_skipped = Vec::new();
    for event in one_pass.by_ref() {
        match event.unwrap() {
            ReadEvent::Record(record) => records.push(record),
            ReadEvent::Skipped(line) => one_pass_skipped.push(line),
        }
    }
    one_pass_skipped.sort_by_key(|line| line.line_number);
    assert_eq!(records, file.records, "{}", path.display());
    assert_eq!(one_pass_skipped, skipped, "{}", path.display());
    assert_eq!(one_pass.ignored(), &file.ignored, "{}", path.display());
    assert_eq!(one_pass.lines_read(), file.lines, "{}", path.display());
    out
}

#[test]
fn every_fixture_reads_as_before() {
    for name in FIXTURES {
        insta::assert_snapshot!(name, describe(&fixture(name)));
    }
}

/// The lazy records of every fixture type to the typed reader's records, with or without the
/// fidelity record, and their cheap peeks (kind, payload type, timestamp) agree with the types.
#[test]
fn lazy_records_type_to_the_typed_records() {
    for name in FIXTURES {
        let path = fixture(name);
        let typed = read_rollout(&path).unwrap();
        let mut reader = RolloutReader::open(&path).unwrap();
        let mut lazy = Vec::new();
        for event in reader.lazy() {
            if let LazyReadEvent::Record(record) = event.unwrap() {
                lazy.push(record);
            }
        }
        assert_eq!(lazy.len(), typed.records.len(), "{name}");
        for (record, expected) in lazy.into_iter().zip(&typed.records) {
            assert_eq!(record.kind(), expected.line.item.kind(), "{name}");
            assert_eq!(record.timestamp(), expected.line.timestamp, "{name}");
            let payload = expected.line.item.payload_value().unwrap();
            let payload_type = payload.get("type").and_then(serde_json::Value::as_str);
            if record.lazy_line().is_some() || payload_type.is_some() {
                assert_eq!(record.payload_type(), payload_type, "{name}");
            }
            assert_eq!(record.item().as_ref(), &expected.line.item, "{name}");
            let read_only = record.clone().into_read_only_record();
            assert_eq!(read_only.line.item, expected.line.item, "{name}");
            assert_eq!(read_only.line.extra, expected.line.extra, "{name}");
            assert_eq!(&record.into_record(), expected, "{name}");
        }
    }
}

/// A reader typing payloads as it reads them yields the same events, which type to the same
/// records (`RolloutReader::typing_as_read`).
#[test]
fn typing_payloads_as_they_are_read_changes_no_record() {
    fn every_payload(_kind: &str, _payload_type: &str) -> bool {
        true
    }
    for path in FIXTURES.map(fixture) {
        let events = |typing: bool| {
            let mut reader = RolloutReader::open(&path).unwrap();
            if typing {
                reader = reader.typing_as_read(every_payload);
            }
            let events: Vec<LazyReadEvent> = reader.lazy().map(Result::unwrap).collect::<Vec<_>>();
            (events, reader.ignored().clone(), reader.lines_read())
        };
        let (plain, typing) = (events(false), events(true));
        assert_eq!(typing, plain, "{}", path.display());
        assert!(plain.0.len() > 5, "{}", path.display());
        for (typing, plain) in typing.0.into_iter().zip(plain.0) {
            let (LazyReadEvent::Record(typing), LazyReadEvent::Record(plain)) = (typing, plain)
            else {
                continue;
            };
            assert_eq!(typing.item(), plain.item(), "{}", path.display());
            assert_eq!(
                typing.clone().into_read_only_record(),
                plain.clone().into_read_only_record(),
                "{}",
                path.display()
            );
            assert_eq!(
                typing.into_record(),
                plain.into_record(),
                "{}",
                path.display()
            );
        }
    }
}

/// Records, sorted skips, ignored counts, and line and byte counts of a read.
type ReadOutcome = (
    Vec<agentctx_rollout::RolloutRecord>,
    Vec<agentctx_rollout::SkippedLine>,
    std::collections::BTreeMap<String, usize>,
    (usize, u64),
);

/// What a read gives ([`ReadOutcome`]).
fn read_with(mut reader: RolloutReader<Cursor<Vec<u8>>>) -> ReadOutcome {
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for event in reader.by_ref() {
        match event.unwrap() {
            ReadEvent::Record(record) => records.push(record),
            ReadEvent::Skipped(line) => skipped.push(line),
        }
    }
    skipped.sort_by_key(|line| line.line_number);
    (
        records,
        skipped,
        reader.ignored().clone(),
        (reader.lines_read(), reader.bytes_read()),
    )
}

proptest! {
    /// Read in two passes or held in one, any mix of Claude Code lines gives the same records,
    /// skips, ignored counts, and line and byte counts.
    #[test]
    fn two_passes_read_any_transcript_as_one_pass_does(
        lines in proptest::collection::vec(super::claude_lines::claude_line(), 1..40),
    ) {
        let bytes = lines.join("\n").into_bytes();
        let one_pass = read_with(RolloutReader::new(Path::new("t.jsonl"), Cursor::new(bytes.clone())));
        let two_passes = read_with(RolloutReader::seekable(Path::new("t.jsonl"), Cursor::new(bytes)));
        prop_assert_eq!(one_pass, two_passes);
    }
}
