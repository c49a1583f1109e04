//! Any bytes as a session file: the reader skips and counts what it cannot use, never panics,
//! and its counters agree with what it returned.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A small line limit so that over-long lines are exercised too.
    let mut reader =
        RolloutReader::new(Path::new("fuzz.jsonl"), Cursor::new(data)).with_max_line_bytes(4096);
    let mut skipped = 0usize;
    for event in reader.by_ref() {
        match event {
            Ok(ReadEvent::Skipped(_)) => skipped += 1,
            Ok(ReadEvent::Record(_)) => {}
            Err(_) => break,
        }
    }
    assert!(skipped <= reader.lines_read());
    assert!(reader.bytes_read() <= data.len() as u64);
});
