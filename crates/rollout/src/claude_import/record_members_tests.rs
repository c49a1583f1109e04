use std::collections::BTreeMap;
use std::collections::VecDeque;

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::super::ClaudeImporter;
use super::read_record;

/// Every member the import reads, each where it changes the result: an `isMeta` prompt in plain
/// text, a plan-mode `permissionMode`, parts of one response known only by `requestId`, a
/// compact boundary reached through `logicalParentUuid` with its metadata and summary, a
/// sidechain, and a `toolUseResult` the import must not need.
const EVERY_MEMBER: &str = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","cwd":"/w","version":"2.0.1","gitBranch":"main","timestamp":"t1","permissionMode":"plan","message":{"role":"user","content":"plan the change"}}
{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","isMeta":true,"timestamp":"t2","message":{"role":"user","content":"skill body"}}
{"type":"assistant","uuid":"a1","parentUuid":"u2","sessionId":"s","requestId":"r1","timestamp":"t3","message":{"role":"assistant","content":[{"type":"text","text":"part one"}],"usage":{"input_tokens":5,"output_tokens":1}}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","requestId":"r1","timestamp":"t4","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"p":1}}],"usage":{"input_tokens":5,"output_tokens":9}}}
{"type":"user","uuid":"r1","parentUuid":"a2","sessionId":"s","timestamp":"t5","toolUseResult":{"stdout":"x"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x","is_error":true}]}}
{"type":"user","uuid":"s1","parentUuid":null,"isSidechain":true,"sessionId":"s","timestamp":"t6","message":{"role":"user","content":"sub-agent task"}}
{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"r1","sessionId":"s","timestamp":"t7","compactMetadata":{"trigger":"auto","preTokens":900}}
{"type":"user","uuid":"c1","parentUuid":"b1","sessionId":"s","isCompactSummary":true,"timestamp":"t8","message":{"role":"user","content":"summary"}}
{"type":"user","uuid":"u3","parentUuid":"c1","sessionId":"s","timestamp":"t9","message":{"role":"user","content":"go on"}}
"#;

const TRANSCRIPTS: [&str; 5] = [
    EVERY_MEMBER,
    include_str!("../../tests/fixtures/claude_1x.jsonl"),
    include_str!("../../tests/fixtures/claude_2x.jsonl"),
    include_str!("../../tests/fixtures/claude_rewind.jsonl"),
    include_str!("../../tests/fixtures/claude_odd_lines.jsonl"),
];

/// Imports every object line of `transcript`, each parsed by `parse`.
fn import(
    transcript: &str,
    parse: fn(&str) -> Option<Value>,
) -> (Vec<String>, BTreeMap<String, usize>) {
    let mut importer = ClaudeImporter::default();
    let mut ignored = BTreeMap::new();
    for (index, line) in transcript.lines().enumerate() {
        if let Some(value @ Value::Object(_)) = parse(line) {
            importer.decode(index + 1, value, &mut ignored);
        }
    }
    let mut out = VecDeque::new();
    importer.finish(&mut out, &mut ignored);
    let events = out.into_iter().map(|event| format!("{event:?}")).collect();
    (events, ignored)
}

/// The import reads nothing but the members the pruned tree keeps: a member it starts to read
/// and the list misses shows here as a difference on the fixtures.
#[test]
fn the_import_of_the_read_members_is_the_import_of_the_whole_record() {
    for transcript in TRANSCRIPTS {
        let whole = import(transcript, |line| serde_json::from_str(line).ok());
        assert!(!whole.0.is_empty());
        assert_eq!(import(transcript, read_record), whole);
    }
}

#[test]
fn lines_that_are_not_objects_are_left_to_the_whole_parse() {
    for line in ["[1]", "\"text\"", "{", "{\"type\":\"user\"} x", "not json"] {
        assert_eq!(read_record(line), None, "{line}");
    }
    let record = read_record(
        r#"{"type":"user","toolUseResult":{"stdout":"big"},"userType":"external","type":"assistant"}"#,
    )
    .unwrap();
    assert_eq!(record, serde_json::json!({"type": "assistant"}));
}
