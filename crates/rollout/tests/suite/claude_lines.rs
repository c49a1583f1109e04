//! Claude Code lines for property tests of the reader: the fixtures' lines, records of generated
//! trees, and lines the reader handles itself. Shared by the integration suite and the reader's
//! unit tests (which include this file).

use proptest::prelude::*;

/// A Claude Code line: one of the fixtures' (odd lines included), one of a generated tree (links
/// between a dozen uuids, split responses, tool results, slash commands, sidechains), or one the
/// reader handles itself.
pub(crate) fn claude_line() -> impl Strategy<Value = String> {
    let fixture_lines: Vec<String> = [
        include_str!("../fixtures/claude_1x.jsonl"),
        include_str!("../fixtures/claude_2x.jsonl"),
        include_str!("../fixtures/claude_rewind.jsonl"),
        include_str!("../fixtures/claude_odd_lines.jsonl"),
    ]
    .iter()
    .flat_map(|fixture| fixture.lines())
    .map(str::to_string)
    .collect();
    let generated = (0u8..6, 0usize..12, 0usize..12, any::<bool>()).prop_map(
        |(kind, uuid, parent, sidechain)| {
            let head = format!(
                r#""sessionId":"s","uuid":"u{uuid}","parentUuid":"u{parent}","isSidechain":{sidechain}"#
            );
            let message = parent % 3;
            match kind {
                0 => format!(
                    r#"{{"type":"user",{head},"message":{{"role":"user","content":"prompt {uuid}"}}}}"#
                ),
                1 => format!(
                    r#"{{"type":"assistant",{head},"message":{{"id":"m{message}","role":"assistant","content":[{{"type":"text","text":"answer"}}],"usage":{{"input_tokens":5,"output_tokens":{uuid}}}}}}}"#
                ),
                2 => format!(
                    r#"{{"type":"assistant",{head},"message":{{"id":"m{message}","role":"assistant","content":[{{"type":"tool_use","id":"t{uuid}","name":"Read","input":{{}}}}]}}}}"#
                ),
                3 => format!(
                    r#"{{"type":"user",{head},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{parent}","content":"ok"}}]}}}}"#
                ),
                4 => format!(
                    r#"{{"type":"user",{head},"message":{{"role":"user","content":"<command-name>/model</command-name>"}}}}"#
                ),
                _ => format!(r#"{{"type":"progress",{head}}}"#),
            }
        },
    );
    let odd = ["not json", "[1]", "", r#"{"type":7}"#].map(str::to_string);
    prop_oneof![
        3 => prop::sample::select(fixture_lines),
        4 => generated,
        1 => prop::sample::select(odd.to_vec()),
    ]
}
