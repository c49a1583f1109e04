//! Any text as a `SKILL.toml`: issues or an interface, no panic.
#![no_main]

use std::path::Path;

use agentctx_skills::fuzzing::parse_skill_toml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let (_kept, _issues) = parse_skill_toml(Path::new("/skills/fuzz-skill"), text);
    }
});
