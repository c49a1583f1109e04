//! Claude Code transcripts: one API response split around tool results, and harness text that
//! travels as `user` records.

use std::io::Cursor;
use std::path::Path;

use agentctx_protocol::EventMsg;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::TokenUsage;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::RolloutRecord;
use pretty_assertions::assert_eq;

use super::render;

fn import(lines: &[&str]) -> Vec<RolloutRecord> {
    let text = lines.join("\n");
    RolloutReader::new(Path::new("t.jsonl"), Cursor::new(text))
        .map(|event| match event.unwrap() {
            ReadEvent::Record(record) => record,
            ReadEvent::Skipped(skipped) => panic!("skipped {skipped}"),
        })
        .collect()
}

fn usages(records: &[RolloutRecord]) -> Vec<(TokenUsage, TokenUsage)> {
    records
        .iter()
        .filter_map(|record| match &record.line.item {
            RolloutItem::EventMsg(EventMsg::TokenCount(event)) => event
                .info
                .as_ref()
                .map(|info| (info.last_token_usage, info.total_token_usage)),
            _ => None,
        })
        .collect()
}

fn usage(input: i64, output: i64) -> TokenUsage {
    TokenUsage {
        input_tokens: input,
        cached_input_tokens: 0,
        output_tokens: output,
        reasoning_output_tokens: 0,
        total_tokens: input + output,
    }
}

const SPLIT_AROUND_TOOL_RESULTS: [&str; 6] = [
    r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"read both files"}}"#,
    r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","requestId":"req_1","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}],"usage":{"input_tokens":100,"output_tokens":12}}}"#,
    r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"A"}]}}"#,
    r#"{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s","requestId":"req_1","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"b"}}],"usage":{"input_tokens":100,"output_tokens":60}}}"#,
    r#"{"type":"user","uuid":"u3","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"B"}]}}"#,
    r#"{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"s","requestId":"req_2","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"both read"}],"usage":{"input_tokens":130,"output_tokens":5}}}"#,
];

#[test]
fn one_response_split_around_tool_results_is_one_request_with_its_final_usage() {
    let records = import(&SPLIT_AROUND_TOOL_RESULTS);
    // The response's calls come together, before their results, as the model produced them.
    assert_eq!(
        render::records(&records),
        vec![
            "L1 -- session_meta s claude_code -",
            "L1 -- message/user: read both files",
            "L2 -- function_call Read t1 {\"file_path\":\"a\"}",
            "L2 -- function_call Read t2 {\"file_path\":\"b\"}",
            "L2 -- token_count last_input=100 cached=0 output=60 total_input=100 window=None",
            "L3 -- function_call_output t1 success=Some(true) text: A",
            "L5 -- function_call_output t2 success=Some(true) text: B",
            "L6 -- message/assistant: both read",
            "L6 -- token_count last_input=130 cached=0 output=5 total_input=230 window=None",
        ]
    );
    assert_eq!(
        usages(&records),
        vec![
            (usage(100, 60), usage(100, 60)),
            (usage(130, 5), usage(230, 65)),
        ]
    );
}

#[test]
fn records_of_one_request_id_are_one_response_even_without_a_message_id() {
    let lines = [
        r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"go"}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","requestId":"req_1","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"usage":{"input_tokens":10,"output_tokens":1}}}"#,
        r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","requestId":"req_1","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"usage":{"input_tokens":10,"output_tokens":7}}}"#,
    ];
    let records = import(&lines);
    assert_eq!(usages(&records), vec![(usage(10, 7), usage(10, 7))]);
}

fn injected_texts(records: &[RolloutRecord]) -> Vec<(String, bool, bool)> {
    records
        .iter()
        .filter_map(|record| {
            let item = record.response_item()?;
            (item.role() == Some("user")).then(|| {
                let text = item.message_text().unwrap_or_default();
                let head: String = text.chars().take(24).collect();
                (head, record.flags.injected, item.is_injected())
            })
        })
        .collect()
}

#[test]
fn harness_text_and_local_commands_are_injected_on_the_item() {
    let lines = [
        r#"{"type":"user","uuid":"u1","sessionId":"s","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>Caveat: local commands</local-command-caveat>"}}"#,
        r#"{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","message":{"role":"user","content":"<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>"}}"#,
        r#"{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s","message":{"role":"user","content":"<local-command-stdout>Set model to Sonnet</local-command-stdout>"}}"#,
        r#"{"type":"user","uuid":"u4","parentUuid":"u3","sessionId":"s","message":{"role":"user","content":"fix the digest"}}"#,
        r#"{"type":"user","uuid":"u5","parentUuid":"u4","sessionId":"s","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill: /skills/x"}]}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u5","sessionId":"s","requestId":"r1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"on it"}]}}"#,
        r#"{"type":"user","uuid":"u6","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":"<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"}}"#,
        r#"{"type":"user","uuid":"u7","parentUuid":"u6","sessionId":"s","message":{"role":"user","content":"<command-message>review is running</command-message>\n<command-name>/review</command-name>"}}"#,
        r#"{"type":"assistant","uuid":"a2","parentUuid":"u7","sessionId":"s","requestId":"r2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"reviewing"}]}}"#,
        r#"{"type":"user","uuid":"u8","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":"<command-name>/compact</command-name>\n<command-message>compact</command-message>"}}"#,
    ];
    let records = import(&lines);
    let row = |text: &str, injected: bool| (text.to_string(), injected, injected);
    assert_eq!(
        injected_texts(&records),
        vec![
            row("<local-command-caveat>Ca", true),
            // `/model` answered locally: no request followed it.
            row("<command-name>/model</co", true),
            row("<local-command-stdout>Se", true),
            row("fix the digest", false),
            row("Base directory for this ", true),
            row("<task-notification>\n<tas", true),
            // A command that sent a prompt to the model is the user's turn.
            row("<command-message>review ", false),
            row("<command-name>/compact</", true),
        ]
    );
}
