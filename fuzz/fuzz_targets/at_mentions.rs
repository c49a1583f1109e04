//! Any prompt through the `@` mention parser: every mention is a non-empty path written in the
//! prompt, with a sane line range, and no panic.
#![no_main]

use agentctx_reminders::fuzzing::parse_mentions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(prompt) = std::str::from_utf8(data) else {
        return;
    };
    for (path, start, end) in parse_mentions(prompt) {
        assert!(!path.is_empty());
        if let (Some(start), Some(end)) = (start, end) {
            assert!(start <= end, "range {start}-{end} in {prompt:?}");
        }
    }
});
