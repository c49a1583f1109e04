//! The reader never panics, whatever the bytes: every non-blank line is either part of a
//! record or reported as skipped.

use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use proptest::prelude::*;

const FIXTURES: [&str; 4] = [
    include_str!("../fixtures/codex_current.jsonl"),
    include_str!("../fixtures/codex_legacy.jsonl"),
    include_str!("../fixtures/claude_1x.jsonl"),
    include_str!("../fixtures/claude_2x.jsonl"),
];

fn read_all(bytes: Vec<u8>) -> (usize, usize) {
    let reader = RolloutReader::new(Path::new("fuzz.jsonl"), Cursor::new(bytes));
    let mut records = 0;
    let mut skipped = 0;
    for event in reader {
        match event.unwrap() {
            ReadEvent::Record(_) => records += 1,
            ReadEvent::Skipped(_) => skipped += 1,
        }
    }
    (records, skipped)
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        read_all(bytes);
    }

    #[test]
    fn fixtures_cut_and_spliced_never_panic(
        fixture in 0..FIXTURES.len(),
        cuts in proptest::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..6),
    ) {
        let original = FIXTURES[fixture].as_bytes();
        let mut bytes = original.to_vec();
        // Remove random byte ranges: truncated lines, merged lines, split UTF-8 sequences.
        for (start, len) in cuts {
            if bytes.is_empty() {
                break;
            }
            let start = start.index(bytes.len());
            let end = (start + len.index(64) + 1).min(bytes.len());
            bytes.drain(start..end);
        }
        let (records, skipped) = read_all(bytes);
        prop_assert!(records + skipped > 0 || original.len() < 64);
    }
}
