//! Claude Code transcripts are trees: abandoned branches are dropped, side leaves kept.

use std::path::Path;

use agentctx_rollout::RolloutFormat;
use agentctx_rollout::discover_sessions;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;

use super::render;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn a_rewound_prompt_drops_the_old_branch_and_keeps_parallel_tool_results() {
    let file = read_rollout(&fixture("claude_rewind.jsonl")).unwrap();
    assert_eq!(file.format, RolloutFormat::ClaudeCode);
    assert_eq!(
        render::records(&file.records),
        vec![
            "L1 -- session_meta 9a1b2c3d-0000-4000-8000-00000000000a claude_code 2.0.60",
            "L1 -- message/user: rename Entry::amt to Entry::amount",
            "L2 -- function_call Grep toolu_r1 {\"pattern\":\"amt\"}",
            "L2 -- function_call Glob toolu_r2 {\"pattern\":\"src/*.rs\"}",
            "L2 -- token_count last_input=5010 cached=0 output=40 total_input=5010 window=None",
            "L4 -- function_call_output toolu_r1 success=Some(true) text: src/entry.rs:3: pub amt: i64",
            "L5 -- function_call_output toolu_r2 success=Some(true) text: src/entry.rs⏎src/report.rs",
            "L6 -- message/assistant: Renamed in 2 files.",
            "L6 -- token_count last_input=5210 cached=5000 output=8 total_input=10220 window=None",
            "L9 -- message/user: now also rename it in docs/guide.md",
            "L10 -- message/assistant: Done, docs/guide.md updated.",
            // The session total still counts the abandoned request: it was made.
            "L10 -- token_count last_input=5250 cached=5200 output=9 total_input=20710 window=None",
        ]
    );
    assert_eq!(file.ignored.get("abandoned-branch"), Some(&2));
}

#[test]
fn a_subagent_transcript_in_its_folder_is_found_and_read_as_its_own_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let subagents = dir.path().join("-home-mira-src-tally/9a1b2c3d/subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let lines = [
        r#"{"parentUuid":null,"isSidechain":true,"agentId":"a1","sessionId":"9a1b2c3d","version":"2.0.60","type":"user","message":{"role":"user","content":"list the callers of monthly_totals"},"uuid":"s-u1","timestamp":"2025-12-05T09:00:00.000Z"}"#,
        r#"{"parentUuid":"s-u1","isSidechain":true,"agentId":"a1","sessionId":"9a1b2c3d","version":"2.0.60","type":"assistant","message":{"id":"msg_s1","role":"assistant","content":[{"type":"text","text":"first try"}]},"uuid":"s-a1","timestamp":"2025-12-05T09:00:01.000Z"}"#,
        r#"{"parentUuid":"s-u1","isSidechain":true,"agentId":"a1","sessionId":"9a1b2c3d","version":"2.0.60","type":"assistant","message":{"id":"msg_s2","role":"assistant","content":[{"type":"text","text":"src/report.rs and src/cli.rs"}]},"uuid":"s-a2","timestamp":"2025-12-05T09:00:02.000Z"}"#,
    ];
    std::fs::write(subagents.join("agent-a1.jsonl"), lines.join("\n")).unwrap();
    let sessions = discover_sessions(dir.path()).unwrap();
    assert_eq!(sessions.len(), 1);
    let file = read_rollout(&sessions[0].path).unwrap();
    assert_eq!(
        render::records(&file.records),
        vec![
            "L1 -- session_meta 9a1b2c3d claude_code 2.0.60",
            "L1 -S message/user: list the callers of monthly_totals",
            "L3 -S message/assistant: src/report.rs and src/cli.rs",
        ]
    );
    assert_eq!(file.ignored.get("abandoned-branch"), Some(&1));
}

/// A line the import refuses (here a prompt whose `message.model` is a number out of range,
/// which its JSON tree refuses) never shapes the tree: the answer hanging below it has no known
/// parent, so nothing proves it abandoned, read in two passes as in one.
#[test]
fn a_refused_line_does_not_shape_the_tree() {
    let lines = [
        r#"{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"first prompt"},"uuid":"u1","timestamp":"2025-12-05T09:00:00.000Z"}"#,
        r#"{"parentUuid":"u1","sessionId":"s","type":"user","message":{"model":1e400,"role":"user","content":"refused prompt"},"uuid":"u2","timestamp":"2025-12-05T09:00:01.000Z"}"#,
        r#"{"parentUuid":"u2","sessionId":"s","type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"answer below the refused line"}]},"uuid":"a1","timestamp":"2025-12-05T09:00:02.000Z"}"#,
        r#"{"parentUuid":"u1","sessionId":"s","type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"answer on the path"}]},"uuid":"a2","timestamp":"2025-12-05T09:00:03.000Z"}"#,
    ];
    let text = lines.join("\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, &text).unwrap();
    let two_passes = read_rollout(&path).unwrap();
    let mut one_pass = agentctx_rollout::RolloutReader::new(
        &path,
        std::io::BufReader::new(std::io::Cursor::new(text.into_bytes())),
    );
    let mut records = Vec::new();
    for event in one_pass.by_ref() {
        if let agentctx_rollout::ReadEvent::Record(record) = event.unwrap() {
            records.push(record);
        }
    }
    assert_eq!(records, two_passes.records);
    assert_eq!(one_pass.ignored(), &two_passes.ignored);
    assert_eq!(two_passes.skipped.len(), 1);
    assert_eq!(two_passes.ignored.get("abandoned-branch"), None);
    assert_eq!(
        render::records(&two_passes.records),
        vec![
            "L1 -- session_meta s claude_code -",
            "L1 -- message/user: first prompt",
            "L3 -- message/assistant: answer below the refused line",
            "L4 -- message/assistant: answer on the path",
        ]
    );
}
