use std::collections::VecDeque;
use std::io::Cursor;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::DEFAULT_MAX_LINE_BYTES;
use super::Helper;
use super::RolloutReader;
use super::overlap::Overlap;
use super::overlap::ReadOnce;
use crate::claude_import::ConversationTree;
use crate::record::LazyReadEvent;
use crate::record::ReadEvent;

#[path = "../tests/suite/claude_lines.rs"]
mod claude_lines;

/// The rewind fixture written `copies` times, each copy's uuids its own (one tree of many
/// conversations, with abandoned branches), with `every` put after each copy.
fn transcript(copies: usize, every: &str) -> Vec<u8> {
    let fixture = include_str!("../tests/fixtures/claude_rewind.jsonl");
    let mut out = String::new();
    for copy in 0..copies {
        out.push_str(&fixture.replace("\"r-", &format!("\"c{copy}-")));
        out.push_str(every);
    }
    out.into_bytes()
}

/// Everything a read gives: its events, what it ignored, and the lines it read.
type Read = (Vec<ReadEvent>, Vec<(String, usize)>, usize);

/// How the start of a transcript is read in a test.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// Not read once: each pass reads every line.
    ReadTwice,
    /// Read once, its first this many bytes at most, on the reader's thread alone.
    Here(usize),
    /// Read once, its first this many bytes at most, with the helper thread.
    Helper(usize),
}

/// Reads `bytes` in two passes, the start read as `start` says (whatever its size and the
/// machine's cores).
fn read(bytes: &[u8], start: Start) -> Read {
    read_lines_of_at_most(bytes, start, DEFAULT_MAX_LINE_BYTES)
}

/// [`read`], lines longer than `max_line_bytes` skipped.
fn read_lines_of_at_most(bytes: &[u8], start: Start, max_line_bytes: usize) -> Read {
    let mut reader = RolloutReader::seekable(Path::new("t.jsonl"), Cursor::new(bytes.to_vec()))
        .with_max_line_bytes(max_line_bytes);
    (reader.ahead_bytes, reader.helper) = match start {
        Start::ReadTwice => (None, Helper::Never),
        Start::Here(bytes) => (Some(bytes), Helper::Never),
        Start::Helper(bytes) => (Some(bytes), Helper::Always),
    };
    let events = reader.by_ref().map(Result::unwrap).collect();
    let ignored = reader.ignored().clone().into_iter().collect();
    (events, ignored, reader.lines_read())
}

/// The start read once, with the helper or without, for starts of every size: the same read as
/// each pass reading every line.
fn assert_helper_changes_nothing(bytes: &[u8]) {
    let without = read(bytes, Start::ReadTwice);
    assert!(without.0.len() > 1);
    for ahead in [
        1,
        200,
        4_000,
        40_000,
        bytes.len() / 2,
        bytes.len(),
        bytes.len() + 1,
    ] {
        assert_eq!(
            read(bytes, Start::Helper(ahead)),
            without,
            "helper, {ahead}"
        );
        assert_eq!(read(bytes, Start::Here(ahead)), without, "here, {ahead}");
    }
}

#[test]
fn a_line_too_long_to_hold_changes_nothing_with_the_helper_either() {
    let long = format!(
        "{{\"type\":\"user\",\"uuid\":\"long\",\"message\":{{\"content\":\"{}\"}}}}\n",
        "x".repeat(2_000)
    );
    let bytes = transcript(10, &long);
    let without = read_lines_of_at_most(&bytes, Start::ReadTwice, 1_500);
    assert!(
        without
            .0
            .iter()
            .any(|event| matches!(event, ReadEvent::Skipped(_)))
    );
    for helper_bytes in [5_000, 40_000, bytes.len()] {
        for start in [Start::Helper(helper_bytes), Start::Here(helper_bytes)] {
            let with = read_lines_of_at_most(&bytes, start, 1_500);
            assert_eq!(with, without, "{start:?}");
        }
    }
}

#[test]
fn the_helper_thread_changes_nothing_of_the_read() {
    assert_helper_changes_nothing(&transcript(40, ""));
}

#[test]
fn a_line_the_reader_skips_itself_changes_nothing_with_the_helper_either() {
    for odd in [
        "not json\n",
        "[1,2]\n",
        "\n\n",
        "{\"type\":\"user\",\"uuid\":\"x\",\"message\":{\"content\":\"\\ud800\"}}\n",
    ] {
        assert_helper_changes_nothing(&transcript(12, odd));
    }
    let mut not_utf8 = transcript(6, "");
    not_utf8.extend_from_slice(b"{\"type\":\"user\",\"x\":\"\xff\"}\n");
    not_utf8.extend(transcript(6, ""));
    assert_helper_changes_nothing(&not_utf8);
}

/// What both passes over the start of a transcript give: the tree, and the import's events
/// once the tree is complete (with the records it ignored).
type BothPasses = (
    ConversationTree,
    Option<(Vec<LazyReadEvent>, Vec<(String, usize)>)>,
);

fn both_passes(ReadOnce { tree, imported, .. }: ReadOnce) -> BothPasses {
    let Some((mut importer, mut ignored)) = imported else {
        return (tree, None);
    };
    importer.start_streaming_with(tree);
    let mut events = VecDeque::new();
    importer.finish(&mut events, &mut ignored);
    let imported = (events.into(), ignored.into_iter().collect());
    (ConversationTree::default(), Some(imported))
}

/// On the reader's thread alone (the start too short for a helper, one core, no thread could
/// be started, or the helper failed), both passes give what the helper gives.
#[test]
fn without_a_helper_thread_both_passes_give_the_same() {
    for (bytes, imported) in [
        (transcript(20, ""), true),
        (transcript(8, "\n"), true),
        (transcript(8, "not json\n"), false),
    ] {
        let overlap = Overlap {
            bytes: &bytes,
            first_line: 3,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        };
        let with_helper = both_passes(overlap.run());
        assert_eq!(with_helper, both_passes(overlap.run_here()));
        assert_eq!(with_helper.1.is_some(), imported);
    }
}

proptest::proptest! {
    /// Whatever the transcript and wherever its start ends, reading the start once for both
    /// passes gives exactly the read of each pass reading every line: the same events in the
    /// same order, the same ignored records and line count.
    #[test]
    fn any_transcript_reads_the_same_with_the_helper_thread(
        lines in proptest::collection::vec(claude_lines::claude_line(), 1..60),
        cut in proptest::prelude::any::<proptest::sample::Index>(),
    ) {
        let bytes = lines.join("\n").into_bytes();
        let ahead = cut.index(bytes.len() + 2) + 1;
        let without = read(&bytes, Start::ReadTwice);
        proptest::prop_assert_eq!(&read(&bytes, Start::Helper(ahead)), &without);
        proptest::prop_assert_eq!(read(&bytes, Start::Here(ahead)), without);
    }
}
