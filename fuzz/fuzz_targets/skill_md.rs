//! Any text as a `SKILL.md` (frontmatter YAML and body): a typed error or a skill, no panic.
#![no_main]

use agentctx_skills::fuzzing::parse_skill_md;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_skill_md(text);
    }
});
