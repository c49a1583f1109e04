use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;

use agentctx_context::TokenEstimator;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;

use super::ReplayTurn;
use super::replay_reader;

/// Every item is 100 tokens and every text one token per byte: the arithmetic stays readable.
struct FlatEstimator;

impl TokenEstimator for FlatEstimator {
    fn estimate_text(&self, text: &str) -> u64 {
        text.len() as u64
    }

    fn estimate_item(&self, _item: &ResponseItem) -> u64 {
        100
    }
}

const SESSION: &str = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1","base_instructions":{"text":"0123456789"}}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>x</permissions instructions>"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n</environment_context>"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[]}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":900,"output_tokens":20,"total_tokens":920},"model_context_window":1000}}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":950,"output_tokens":5,"total_tokens":955},"model_context_window":1000}}}
not json
{"timestamp":"t","type":"compacted","payload":{"message":"summary","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"summary"}]}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"second task\nwith details"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}}
{"timestamp":"t","type":"compacted","payload":{"message":"legacy summary"}}
"#;

#[test]
fn turns_count_requests_tools_compactions_and_prompt_estimates() {
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(SESSION));
    let replay = replay_reader(reader, &FlatEstimator, None).unwrap();
    assert_eq!(replay.format, RolloutFormat::Codex);
    assert_eq!(replay.session_id.as_deref(), Some("s1"));
    assert_eq!(replay.instructions_tokens, 10);
    assert_eq!(replay.items, 9);
    assert_eq!(replay.preamble_items, 2);
    assert_eq!(replay.skipped.len(), 1);
    assert_eq!(replay.skipped[0].line_number, 11);
    assert_eq!(replay.compactions, 2);
    assert_eq!(replay.tool_calls, 1);
    // Requests: [reasoning, call] after 3 items, [assistant] after 6, [assistant] after the
    // replacement history (2 items) and the new user message.
    assert_eq!(replay.max_prompt_tokens, 10 + 600);
    assert_eq!(replay.max_recorded_prompt_tokens, Some(950));
    assert_eq!(replay.model_context_window, Some(1000));
    assert_eq!(
        replay.turns,
        vec![
            ReplayTurn {
                turn: 1,
                line: 4,
                user_message: "first task".to_string(),
                items: 5,
                requests: 2,
                tool_calls: 1,
                tools: BTreeMap::from([("shell".to_string(), 1)]),
                compactions: 1,
                estimated_prompt_tokens: 610,
                max_estimated_prompt_tokens: 610,
                recorded_prompt_tokens: Some(950),
                recorded_output_tokens: Some(5),
                model_context_window: Some(1000),
                reminders: None,
            },
            ReplayTurn {
                turn: 2,
                line: 13,
                user_message: "second task".to_string(),
                items: 2,
                requests: 1,
                tool_calls: 0,
                tools: BTreeMap::new(),
                // The legacy compaction without a replacement history.
                compactions: 1,
                estimated_prompt_tokens: 310,
                max_estimated_prompt_tokens: 310,
                recorded_prompt_tokens: None,
                recorded_output_tokens: None,
                model_context_window: None,
                reminders: None,
            },
        ]
    );
}

#[test]
fn a_claude_subagent_transcript_is_its_own_main_thread() {
    let transcript = concat!(
        r#"{"type":"user","isSidechain":true,"sessionId":"s","message":{"role":"user","content":"find uses"}}"#,
        "\n",
        r#"{"type":"assistant","isSidechain":true,"sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"found"}],"usage":{"input_tokens":5,"cache_read_input_tokens":95,"output_tokens":3}}}"#,
        "\n",
    );
    let reader = RolloutReader::new(Path::new("agent.jsonl"), Cursor::new(transcript));
    let replay = replay_reader(reader, &FlatEstimator, None).unwrap();
    assert_eq!(replay.sidechain_items, 0);
    assert_eq!(replay.items, 2);
    assert_eq!(replay.turns.len(), 1);
    assert_eq!(replay.turns[0].recorded_prompt_tokens, Some(100));
}

#[test]
fn sidechain_records_of_a_main_transcript_stay_out_of_its_history() {
    let transcript = concat!(
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"main task"}}"#,
        "\n",
        r#"{"type":"user","isSidechain":true,"sessionId":"s","message":{"role":"user","content":"sub task"}}"#,
        "\n",
        r#"{"type":"assistant","isSidechain":true,"sessionId":"s","message":{"id":"m1","role":"assistant","content":"sub done","usage":{"input_tokens":7000,"output_tokens":3}}}"#,
        "\n",
    );
    let reader = RolloutReader::new(Path::new("main.jsonl"), Cursor::new(transcript));
    let replay = replay_reader(reader, &FlatEstimator, None).unwrap();
    assert_eq!(replay.items, 1);
    assert_eq!(replay.sidechain_items, 2);
    assert_eq!(replay.turns.len(), 1);
    assert_eq!(replay.turns[0].recorded_prompt_tokens, None);
    assert_eq!(replay.max_recorded_prompt_tokens, None);
}
