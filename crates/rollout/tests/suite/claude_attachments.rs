//! Claude Code 2.1.x `attachment` records: the context the harness added to the next request
//! becomes injected user messages, as the model saw it.
//!
//! The lines are written as Claude Code writes them: the record's envelope as 2.1.123 wrote it
//! (a real transcript's `task_reminder` record after a tool result, with `userType`,
//! `entrypoint`, `cwd`, `sessionId`, `version` and `gitBranch`), and, for the later builds that
//! record what they sent, `rendered` and `renderedRole` as 2.1.293 wrote them for a
//! `hook_additional_context` of the `UserPromptSubmit` hook. What the text of each kind is
//! comes from Claude Code's `normalizeAttachmentForAPI` (`src/utils/messages.ts`, 2.1.88).

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::RolloutRecord;
use pretty_assertions::assert_eq;

use super::render;

const ENVELOPE: &str = r#""userType":"external","entrypoint":"cli","cwd":"/work/app","sessionId":"0ab3352c","version":"2.1.123","gitBranch":"main""#;

fn line(body: &str) -> String {
    format!("{{{body},{ENVELOPE}}}")
}

fn transcript() -> Vec<String> {
    vec![
        line(
            r#""parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"fix the parser"},"uuid":"u1","timestamp":"2026-05-01T02:45:00.000Z","permissionMode":"default""#,
        ),
        // A hook's context delivered at the start of the turn, recorded with what was sent.
        line(
            r#""parentUuid":"u1","isSidechain":false,"attachment":{"type":"hook_additional_context","content":["the repo uses pnpm"],"hookName":"UserPromptSubmit","toolUseID":"hook-a9c01229","hookEvent":"UserPromptSubmit"},"type":"attachment","uuid":"x1","timestamp":"2026-05-01T02:45:00.100Z","rendered":[{"content":"<system-reminder>\nUserPromptSubmit hook additional context: the repo uses pnpm\n</system-reminder>"}],"renderedRole":"system""#,
        ),
        line(
            r#""parentUuid":"x1","isSidechain":false,"message":{"model":"claude-opus-4-7","id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"cache_creation_input_tokens":1315,"cache_read_input_tokens":20000,"output_tokens":40}},"requestId":"req_1","type":"assistant","uuid":"a1","timestamp":"2026-05-01T02:45:05.000Z""#,
        ),
        line(
            r#""parentUuid":"a1","isSidechain":false,"promptId":"p1","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"src\ntests","is_error":false}]},"uuid":"u2","timestamp":"2026-05-01T02:45:06.000Z","toolUseResult":{"stdout":"src\ntests","stderr":"","interrupted":false},"sourceToolAssistantUUID":"a1""#,
        ),
        // The reminders Claude Code adds before the next request (no `rendered` in 2.1.123).
        line(
            r#""parentUuid":"u2","isSidechain":false,"attachment":{"type":"task_reminder","content":[{"id":"76","subject":"Read the parser","description":"…","activeForm":"Reading the parser","status":"completed","blocks":[],"blockedBy":[]},{"id":"77","subject":"Fix the bug","description":"…","activeForm":"Fixing the bug","status":"in_progress","blocks":[],"blockedBy":[]}],"itemCount":2},"type":"attachment","uuid":"x2","timestamp":"2026-05-01T02:45:06.100Z""#,
        ),
        line(
            r#""parentUuid":"x2","isSidechain":false,"attachment":{"type":"todo_reminder","content":[{"content":"Fix the bug","status":"in_progress","activeForm":"Fixing the bug"}],"itemCount":1},"type":"attachment","uuid":"x3","timestamp":"2026-05-01T02:45:06.110Z""#,
        ),
        // A background task finished while the model worked: handed over from the queue.
        line(
            r#""parentUuid":"x3","isSidechain":false,"attachment":{"type":"queued_command","prompt":"<task-notification>\n<task-id>bgkpah4ly</task-id>\n<status>completed</status>\n</task-notification>","commandMode":"task-notification","origin":{"kind":"task-notification","producer":"session-task"}},"type":"attachment","uuid":"x4","timestamp":"2026-05-01T02:45:06.120Z""#,
        ),
        // Kinds whose text is not known without `rendered`: counted, not read.
        line(
            r#""parentUuid":"x4","isSidechain":false,"attachment":{"type":"deferred_tools_delta","addedNames":["WebFetch"],"addedLines":["WebFetch"],"removedNames":[]},"type":"attachment","uuid":"x5","timestamp":"2026-05-01T02:45:06.130Z""#,
        ),
        line(
            r#""parentUuid":"x5","isSidechain":false,"message":{"model":"claude-opus-4-7","id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"fixed"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"cache_creation_input_tokens":900,"cache_read_input_tokens":21315,"output_tokens":5}},"requestId":"req_2","type":"assistant","uuid":"a2","timestamp":"2026-05-01T02:45:09.000Z""#,
        ),
    ]
}

fn import(lines: &[String]) -> (Vec<RolloutRecord>, BTreeMap<String, usize>) {
    let mut reader = RolloutReader::new(Path::new("t.jsonl"), Cursor::new(lines.join("\n")));
    let records = reader
        .by_ref()
        .map(|event| match event.unwrap() {
            ReadEvent::Record(record) => record,
            ReadEvent::Skipped(skipped) => panic!("skipped {skipped}"),
        })
        .collect();
    (records, reader.ignored().clone())
}

#[test]
fn attachments_are_injected_user_messages_as_the_model_saw_them() {
    let (records, ignored) = import(&transcript());
    assert_eq!(
        render::records(&records),
        vec![
            "L1 -- session_meta 0ab3352c claude_code 2.1.123",
            "L1 -- message/user: fix the parser",
            "L2 M- message/user: <system-reminder>⏎UserPromptSubmit hook addition…",
            "L3 -- function_call Bash toolu_1 {\"command\":\"ls\"}",
            "L3 -- token_count last_input=21316 cached=20000 output=40 total_input=21316 window=None",
            "L4 -- function_call_output toolu_1 success=Some(true) text: src⏎tests",
            "L5 M- message/user: <system-reminder>⏎The task tools haven't been us…",
            "L6 M- message/user: <system-reminder>⏎The TodoWrite tool hasn't been…",
            "L7 M- message/user: <system-reminder>⏎A background agent completed a…",
            "L9 -- message/assistant: fixed",
            "L9 -- token_count last_input=22216 cached=21315 output=5 total_input=43532 window=None",
        ]
    );
    // Each is marked on the item too, so rollback and compaction never cut at it.
    let injected: Vec<bool> = records
        .iter()
        .filter_map(RolloutRecord::response_item)
        .filter(|item| item.role() == Some("user"))
        .map(ResponseItem::is_injected)
        .collect();
    assert_eq!(injected, vec![false, true, true, true, true]);
    assert_eq!(
        ignored,
        BTreeMap::from([("attachment:deferred_tools_delta".to_string(), 1)])
    );
}

#[test]
fn an_attachment_written_inside_a_split_response_follows_it() {
    // Claude Code 2.x writes one response as one record per block; an attachment written
    // between two parts (here after the first call's result) reached the model after the
    // whole response and its results.
    let lines = [
        line(
            r#""parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"read both"},"uuid":"u1","timestamp":"t""#,
        ),
        line(
            r#""parentUuid":"u1","isSidechain":false,"message":{"model":"claude-opus-4-7","id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}],"usage":{"input_tokens":100,"output_tokens":12}},"requestId":"req_1","type":"assistant","uuid":"a1","timestamp":"t""#,
        ),
        line(
            r#""parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"A"}]},"uuid":"u2","timestamp":"t""#,
        ),
        line(
            r#""parentUuid":"u2","isSidechain":false,"attachment":{"type":"hook_additional_context","content":["read twice"],"hookName":"PostToolUse:Read","toolUseID":"t1","hookEvent":"PostToolUse"},"type":"attachment","uuid":"x1","timestamp":"t""#,
        ),
        line(
            r#""parentUuid":"x1","isSidechain":false,"message":{"model":"claude-opus-4-7","id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"b"}}],"usage":{"input_tokens":100,"output_tokens":60}},"requestId":"req_1","type":"assistant","uuid":"a2","timestamp":"t""#,
        ),
        line(
            r#""parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"B"}]},"uuid":"u3","timestamp":"t""#,
        ),
    ];
    let (records, _) = import(&lines);
    assert_eq!(
        render::records(&records),
        vec![
            "L1 -- session_meta 0ab3352c claude_code 2.1.123",
            "L1 -- message/user: read both",
            "L2 -- function_call Read t1 {\"file_path\":\"a\"}",
            "L2 -- function_call Read t2 {\"file_path\":\"b\"}",
            "L2 -- token_count last_input=100 cached=0 output=60 total_input=100 window=None",
            "L3 -- function_call_output t1 success=Some(true) text: A",
            "L4 M- message/user: <system-reminder>⏎PostToolUse:Read hook addition…",
            "L6 -- function_call_output t2 success=Some(true) text: B",
        ]
    );
}

#[test]
fn the_model_that_answered_is_kept_on_the_token_count() {
    let (records, _) = import(&transcript());
    let models: Vec<Option<String>> = records
        .iter()
        .filter_map(|record| match &record.line.item {
            RolloutItem::EventMsg(agentctx_protocol::EventMsg::TokenCount(event)) => Some(
                event
                    .extra
                    .get("model")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        models,
        vec![
            Some("claude-opus-4-7".to_string()),
            Some("claude-opus-4-7".to_string())
        ]
    );
}
