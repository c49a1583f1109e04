//! Claude Code transcripts: a real first line fixes the format, then any bytes follow, so the
//! importer (branches, tool pairs, sidechains) sees hostile input rather than the detector.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use libfuzzer_sys::fuzz_target;

const FIRST_LINE: &str = concat!(
    r#"{"type":"user","uuid":"u0","parentUuid":null,"sessionId":"s","version":"2.0.1","#,
    r#""timestamp":"2025-01-01T00:00:00Z","cwd":"/w","message":{"role":"user","content":"hi"}}"#,
    "\n"
);

fuzz_target!(|data: &[u8]| {
    let mut input = FIRST_LINE.as_bytes().to_vec();
    input.extend_from_slice(data);
    let mut reader = RolloutReader::new(Path::new("claude.jsonl"), Cursor::new(input));
    for event in reader.by_ref() {
        if event.is_err() {
            break;
        }
    }
    // The first line decides the format; nothing after it may change that.
    assert_eq!(reader.format(), Some(RolloutFormat::ClaudeCode));
});
