//! The replay of recorded sessions through the engine: turns, sidechains, the records that
//! mark turns, recorded compactions and rollbacks, the window a session is judged against, the
//! lazy and two-pass readings of the samples, and the reminders the engine fires on a session
//! another agent recorded. Ported from the unit tests of the CLI's own replay pipeline (gone
//! since the replay runs the engine); every figure is now what the engine decided, its
//! estimates those of its estimator (`ApproxTokenEstimator`) instead of the old tests' flat
//! 100 tokens per item.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;
use std::path::PathBuf;

use agentctx_compact::CompactConfig;
use agentctx_compact::ThresholdLevel;
use agentctx_compact::summary_text;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_model::Prompt;
use agentctx_protocol::ResponseItem;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::ReminderTier;
use agentctx_reminders::SystemReminderConfig;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use crate::StopPoint;
use crate::read_recorded_session;
use crate::replay::PredictionBasis;
use crate::replay::RecordedCompaction;
use crate::replay::RecordedTokens;
use crate::replay::ReplayOptions;
use crate::replay::ReplayTurn;
use crate::replay::RequestSink;
use crate::replay::RequestUsage;
use crate::replay::SessionReplay;
use crate::replay::SessionReplayBuilder;
use crate::replay::replay_file;
use crate::replay::replay_reader;

// ---------------------------------------------------------------------------------------------
// Helpers.

/// The engine's estimate of `items` (its history manager measures every item so).
fn tokens(items: &[ResponseItem]) -> u64 {
    ApproxTokenEstimator.estimate_items(items)
}

/// The item a `response_item` line records.
fn item_of(line: &str) -> ResponseItem {
    let value: Value = serde_json::from_str(line).unwrap();
    serde_json::from_value(value["payload"].clone()).unwrap()
}

fn line(kind: &str, payload: Value) -> String {
    json!({"timestamp": "t", "type": kind, "payload": payload}).to_string()
}

fn item(item: &ResponseItem) -> String {
    line("response_item", serde_json::to_value(item).unwrap())
}

/// Options without reminders (the old tests replayed without them unless they were about
/// them).
fn without_reminders() -> ReplayOptions {
    ReplayOptions {
        reminders: None,
        ..ReplayOptions::default()
    }
}

fn replay_with(text: &str, options: &ReplayOptions) -> SessionReplay {
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(text.to_string()));
    replay_reader(reader, options, None).unwrap()
}

fn replay_text(text: &str) -> SessionReplay {
    replay_with(text, &without_reminders())
}

fn turn_lines(replay: &SessionReplay) -> Vec<(usize, String)> {
    replay
        .turns
        .iter()
        .map(|turn| (turn.line, turn.user_message.clone()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Turns, requests, compactions and prompt estimates.

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
    let lines: Vec<&str> = SESSION.lines().collect();
    // The items of lines 2 to 4 are the history of request 1 (line 5), those of lines 2 to 7
    // that of request 2 (line 9); the replacement history of line 12 and the item of line 13
    // that of request 3 (line 14).
    let items = |numbers: &[usize]| -> Vec<ResponseItem> {
        numbers.iter().map(|&n| item_of(lines[n - 1])).collect()
    };
    let replacement = vec![
        ResponseItem::user_text("first task"),
        ResponseItem::user_text("summary"),
    ];
    let instructions = ApproxTokenEstimator.estimate_text("0123456789");
    let first_history = items(&[2, 3, 4]);
    let second_history = items(&[2, 3, 4, 5, 6, 7]);
    let mut third_history = replacement;
    third_history.extend(items(&[13]));

    // Compaction of our own off: the session's 1,000-token window fills at request 2, where the
    // engine would compact and the replay go on from its own history (request_usage_tests.rs,
    // `the_replay_compacts_where_the_engine_decides_and_goes_on_from_it`); here the requests
    // stay on the recorded history.
    let replay = replay_with(
        SESSION,
        &ReplayOptions {
            compact: CompactConfig {
                enabled: false,
                ..CompactConfig::default()
            },
            ..without_reminders()
        },
    );
    let decisions =
        |turn: usize, request: usize| replay.turns[turn].request_usage[request].decisions.clone();
    // Request 2 is over the blocking limit, and with compaction off nothing can make room: a
    // live session would fail the turn there.
    assert!(matches!(
        decisions(0, 1).last().map(|decision| decision.action),
        Some(crate::Action::Fail(_))
    ));
    assert_eq!(replay.format, RolloutFormat::Codex);
    assert_eq!(replay.session_id.as_deref(), Some("s1"));
    assert!(!replay.recorded_by_agentctx);
    assert_eq!(replay.instructions_tokens, instructions);
    assert_eq!(replay.items, 9);
    assert_eq!(replay.preamble_items, 2);
    assert_eq!(replay.skipped.len(), 1);
    assert_eq!(replay.skipped[0].line_number, 11);
    assert_eq!(replay.compactions, 2);
    assert_eq!(replay.tool_calls, 1);
    assert_eq!(replay.max_recorded_prompt_tokens, Some(950));
    assert_eq!(replay.model_context_window, Some(1000));
    assert_eq!(replay.thresholds.window, 1000);

    // Request 2's prediction: the 900 request 1 recorded plus what came after it (the
    // reasoning, the call and its output).
    let second_predicted = 900 + tokens(&items(&[5, 6, 7]));
    let thresholds = replay.thresholds;
    assert!(
        second_predicted >= thresholds.blocking,
        "{second_predicted} under {thresholds:?}"
    );
    // Request 3 right after the compaction: the replacement history, the new user message
    // and the instructions, all estimated.
    let third_predicted = tokens(&third_history) + instructions;
    let third_level = thresholds_level(&replay, third_predicted);

    let first_prompt = tokens(&first_history) + instructions;
    let second_prompt = tokens(&second_history) + instructions;
    assert_eq!(
        replay.max_prompt_tokens,
        second_prompt.max(tokens(&third_history) + instructions)
    );
    assert!(first_prompt < second_prompt);
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
                estimated_prompt_tokens: second_prompt,
                max_estimated_prompt_tokens: second_prompt,
                recorded_prompt_tokens: Some(950),
                recorded_output_tokens: Some(5),
                model_context_window: Some(1000),
                reminders: None,
                reminder_evaluations: None,
                request_usage: vec![
                    RequestUsage {
                        request: 1,
                        line: 5,
                        predicted_tokens: first_prompt,
                        basis: PredictionBasis::WholeHistory,
                        recorded_tokens: Some(900),
                        recorded_usage: Some(RecordedTokens {
                            input: 900,
                            cached_input: 0,
                            cache_write: 0,
                            output: 20,
                        }),
                        recorded_billing: Some(crate::replay::RecordedBilling {
                            timestamp: Some("t".to_string()),
                            ..Default::default()
                        }),
                        after_compaction: false,
                        micro_compact: None,
                        micro_cost: None,
                        // Before the first token count the window is the default 200,000.
                        level: ThresholdLevel::Normal,
                        auto_compact: None,
                        recorded_offset: 0,
                        decisions: decisions(0, 0),
                    },
                    RequestUsage {
                        request: 2,
                        line: 9,
                        predicted_tokens: second_predicted,
                        basis: PredictionBasis::PreviousRequest,
                        recorded_tokens: Some(950),
                        recorded_usage: Some(RecordedTokens {
                            input: 950,
                            cached_input: 0,
                            cache_write: 0,
                            output: 5,
                        }),
                        recorded_billing: Some(crate::replay::RecordedBilling {
                            timestamp: Some("t".to_string()),
                            ..Default::default()
                        }),
                        after_compaction: false,
                        micro_compact: None,
                        micro_cost: None,
                        // A 1,000-token window keeps a quarter for the output and scales the
                        // levels down with it: request 2 is over the blocking limit, and
                        // auto-compacts.
                        level: ThresholdLevel::Blocking,
                        // Compaction is off.
                        auto_compact: None,
                        recorded_offset: 0,
                        decisions: decisions(0, 1),
                    },
                ],
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
                estimated_prompt_tokens: third_predicted,
                max_estimated_prompt_tokens: third_predicted,
                recorded_prompt_tokens: None,
                recorded_output_tokens: None,
                model_context_window: None,
                reminders: None,
                reminder_evaluations: None,
                request_usage: vec![RequestUsage {
                    request: 3,
                    line: 14,
                    predicted_tokens: third_predicted,
                    basis: PredictionBasis::WholeHistory,
                    recorded_tokens: None,
                    recorded_usage: None,
                    recorded_billing: None,
                    after_compaction: true,
                    micro_compact: None,
                    micro_cost: None,
                    level: third_level,
                    auto_compact: None,
                    recorded_offset: 0,
                    decisions: decisions(1, 0),
                }],
            },
        ]
    );
    assert!(third_predicted < thresholds.auto_compact);
}

/// The level of `used` tokens under the replay's thresholds.
fn thresholds_level(replay: &SessionReplay, used: u64) -> ThresholdLevel {
    let thresholds = replay.thresholds;
    if used >= thresholds.blocking {
        ThresholdLevel::Blocking
    } else if used >= thresholds.auto_compact {
        ThresholdLevel::AutoCompact
    } else if used >= thresholds.warning {
        // Warning or error: the test sessions stay under both.
        ThresholdLevel::Warning
    } else {
        ThresholdLevel::Normal
    }
}

#[test]
fn a_claude_subagent_transcript_is_its_own_main_thread() {
    let transcript = concat!(
        r#"{"type":"user","isSidechain":true,"sessionId":"s","message":{"role":"user","content":"find uses"}}"#,
        "\n",
        r#"{"type":"assistant","isSidechain":true,"sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"found"}],"usage":{"input_tokens":5,"cache_read_input_tokens":95,"output_tokens":3}}}"#,
        "\n",
    );
    let replay = replay_text(transcript);
    assert_eq!(replay.format, RolloutFormat::ClaudeCode);
    assert_eq!(replay.sidechain_items, 0);
    assert_eq!(replay.items, 2);
    assert_eq!(replay.turns.len(), 1);
    assert_eq!(replay.turns[0].recorded_prompt_tokens, Some(100));
    assert_eq!(replay.requests.len(), 1);
    assert_eq!(replay.requests[0].recorded_tokens, Some(100));
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
    let replay = replay_text(transcript);
    assert_eq!(replay.items, 1);
    assert_eq!(replay.sidechain_items, 2);
    assert_eq!(replay.turns.len(), 1);
    assert_eq!(replay.turns[0].recorded_prompt_tokens, None);
    assert_eq!(replay.max_recorded_prompt_tokens, None);
    // The sub-agent's response is no request of the main thread.
    assert_eq!(replay.requests, Vec::new());
}

#[test]
fn a_thread_rollback_drops_the_rolled_back_turns_from_the_prompt() {
    let turn_one = [
        ResponseItem::user_text("turn one"),
        ResponseItem::assistant_text("a1"),
    ];
    let model_switch = ResponseItem::developer_text("<model_switch>\nm\n</model_switch>");
    let turn_two = [
        ResponseItem::user_text("turn two"),
        ResponseItem::assistant_text("a2"),
    ];
    let turn_three = [
        ResponseItem::user_text("turn three"),
        ResponseItem::assistant_text("a3"),
    ];
    let session = [
        line("session_meta", json!({"id": "s1"})),
        item(&turn_one[0]),
        item(&turn_one[1]),
        item(&model_switch),
        item(&turn_two[0]),
        item(&turn_two[1]),
        line(
            "event_msg",
            json!({"type": "thread_rolled_back", "num_turns": 1}),
        ),
        item(&turn_three[0]),
        item(&turn_three[1]),
    ]
    .join("\n");
    let replay = replay_text(&session);
    assert_eq!(replay.turns.len(), 3);
    // Turn two's request saw turn one, the model switch and its own message.
    let mut before = turn_one.to_vec();
    before.extend([model_switch, turn_two[0].clone()]);
    assert_eq!(replay.turns[1].estimated_prompt_tokens, tokens(&before));
    // Turn two and the model switch above it are gone: turn one and turn three's message.
    let mut after = turn_one.to_vec();
    after.push(turn_three[0].clone());
    assert_eq!(replay.turns[2].estimated_prompt_tokens, tokens(&after));
    assert_eq!(replay.requests[2].predicted_tokens, tokens(&after));
    assert_eq!(replay.requests[2].basis, PredictionBasis::WholeHistory);
}

const REDACTED: &str = "[REDACTED_TEXT len=42 sha=0f3a]";
const REDACTED_CONTEXT: &str = "[REDACTED_TEXT len=380 sha=77c1]";

fn redacted_user(text: &str) -> String {
    item(&ResponseItem::user_text(text))
}

fn user_event() -> String {
    line(
        "event_msg",
        json!({"type": "user_message", "message": REDACTED}),
    )
}

fn assistant() -> String {
    item(&ResponseItem::assistant_text("ok"))
}

#[test]
fn in_a_redacted_codex_rollout_user_message_events_mark_the_turns() {
    // Current codex records the user's item, then its `user_message` event; the injected
    // context items before it are redacted beyond recognition.
    let meta = line("session_meta", json!({"id": "s1"}));
    let item_then_event = [
        meta.clone(),
        redacted_user(REDACTED_CONTEXT),
        redacted_user(REDACTED),
        user_event(),
        assistant(),
        redacted_user(REDACTED_CONTEXT),
        redacted_user(REDACTED),
        user_event(),
        assistant(),
    ]
    .join("\n");
    let replay = replay_text(&item_then_event);
    assert_eq!(
        turn_lines(&replay),
        vec![(3, REDACTED.to_string()), (7, REDACTED.to_string())]
    );
    assert_eq!(replay.preamble_items, 1);
    assert_eq!(replay.turns[0].items, 3);
    // Each turn's one request carries its user's message.
    assert_eq!(
        replay
            .turns
            .iter()
            .map(|turn| turn.requests)
            .collect::<Vec<_>>(),
        [1, 1]
    );

    // Older builds wrote the event first.
    let event_then_item = [
        meta,
        redacted_user(REDACTED_CONTEXT),
        user_event(),
        redacted_user(REDACTED),
        assistant(),
        redacted_user(REDACTED_CONTEXT),
        user_event(),
        redacted_user(REDACTED),
        assistant(),
    ]
    .join("\n");
    let replay = replay_text(&event_then_item);
    assert_eq!(
        turn_lines(&replay),
        vec![(3, REDACTED.to_string()), (7, REDACTED.to_string())]
    );
    assert_eq!(replay.turns[0].items, 3);
}

#[test]
fn claude_code_harness_records_do_not_start_turns() {
    let transcript = [
        r#"{"type":"user","uuid":"u1","sessionId":"s","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>Caveat</local-command-caveat>"}}"#,
        r#"{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","message":{"role":"user","content":"<command-name>/model</command-name>\n<command-message>model</command-message>"}}"#,
        r#"{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s","message":{"role":"user","content":"<local-command-stdout>Set model</local-command-stdout>"}}"#,
        r#"{"type":"user","uuid":"u4","parentUuid":"u3","sessionId":"s","message":{"role":"user","content":"fix the digest"}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u4","sessionId":"s","message":{"id":"m1","role":"assistant","content":"done"}}"#,
        r#"{"type":"user","uuid":"u5","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":"<task-notification>\n<status>completed</status>\n</task-notification>"}}"#,
        r#"{"type":"assistant","uuid":"a2","parentUuid":"u5","sessionId":"s","message":{"id":"m2","role":"assistant","content":"noted"}}"#,
        r#"{"type":"user","uuid":"u6","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":"<command-name>/mcp</command-name>"}}"#,
        r#"{"type":"user","uuid":"u7","parentUuid":"u6","sessionId":"s","message":{"role":"user","content":"thanks"}}"#,
    ]
    .join("\n");
    let replay = replay_text(&transcript);
    assert_eq!(
        turn_lines(&replay),
        vec![(4, "fix the digest".to_string()), (9, "thanks".to_string())]
    );
    // The notification's response is a request of the first turn.
    assert_eq!(replay.turns[0].requests, 2);
}

#[test]
fn a_recommended_plugins_block_is_not_the_users_request() {
    // Codex 0.12x+ writes the plugins it recommends as a `user` message of its own (codex-rs
    // `core/src/context/recommended_plugins_instructions.rs`); a rollout without
    // `user_message` events decides turns by the text.
    let session = [
        line("session_meta", json!({"id": "s1", "cli_version": "0.128.0"})),
        item(&ResponseItem::user_text(
            "<recommended_plugins>\nHere is a list of plugins that are available but not installed.\n\n- GitHub (github@openai-curated)\n</recommended_plugins>",
        )),
        item(&ResponseItem::user_text("fix the parser")),
        assistant(),
    ]
    .join("\n");
    let replay = replay_text(&session);
    assert_eq!(turn_lines(&replay), vec![(3, "fix the parser".to_string())]);
    assert_eq!(replay.preamble_items, 1);
}

// ---------------------------------------------------------------------------------------------
// The window a session is judged against.

#[test]
fn the_window_of_the_recorded_model_is_used_when_the_session_records_none() {
    // No `model_context_window` in the counts: the model of the `turn_context` names it.
    let count = line(
        "event_msg",
        json!({"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 900, "total_tokens": 900},
            "last_token_usage": {"input_tokens": 900, "total_tokens": 900}
        }}),
    );
    let session = |context: &str| {
        [
            line("session_meta", json!({"id": "s1"})).as_str(),
            context,
            item(&ResponseItem::user_text("fix it")).as_str(),
            assistant().as_str(),
            count.as_str(),
        ]
        .join("\n")
    };
    let turn_context = line("turn_context", json!({"cwd": "/w", "model": "gpt-5-codex"}));
    assert_eq!(
        replay_text(&session(&turn_context)).thresholds.window,
        272_000
    );
    // A later model choice (`/model`) is a `thread_settings_applied` event in codex 0.12x+.
    let settings = format!(
        "{turn_context}\n{}",
        line(
            "event_msg",
            json!({"type": "thread_settings_applied", "thread_settings": {"model": "gpt-4.1", "reasoning_effort": "medium"}}),
        )
    );
    assert_eq!(
        replay_text(&session(&settings)).thresholds.window,
        1_047_576
    );
    // A model the table does not know: the default.
    let unknown = line("turn_context", json!({"cwd": "/w", "model": "qwen3:8b"}));
    assert_eq!(replay_text(&session(&unknown)).thresholds.window, 200_000);
    // A window given for the replay comes before the model table.
    let given = ReplayOptions {
        context_window: Some(64_000),
        ..without_reminders()
    };
    assert_eq!(
        replay_with(&session(&turn_context), &given)
            .thresholds
            .window,
        64_000
    );
}

#[test]
fn a_claude_code_model_with_the_1m_suffix_is_judged_against_a_million_tokens() {
    let transcript = [
        r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"read the whole repo"}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"model":"claude-opus-4-6[1m]","id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}],"usage":{"input_tokens":2,"cache_creation_input_tokens":1000,"cache_read_input_tokens":300000,"output_tokens":30}}}"#,
        r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"A"}]}}"#,
        r#"{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s","message":{"model":"claude-opus-4-6[1m]","id":"m2","role":"assistant","content":[{"type":"text","text":"read"}],"usage":{"input_tokens":2,"cache_creation_input_tokens":200,"cache_read_input_tokens":301002,"output_tokens":5}}}"#,
    ]
    .join("\n");
    let replay = replay_text(&transcript);
    assert_eq!(replay.thresholds.window, 1_000_000);
    // The second request, 301,002 + 200 tokens in: far below a million's levels (over a
    // 200,000 window's blocking limit).
    let second = &replay.requests[1];
    assert_eq!(second.recorded_tokens, Some(301_204));
    assert!(second.predicted_tokens > 301_002, "{second:?}");
    assert_eq!(second.level, ThresholdLevel::Normal);
    assert_eq!(second.auto_compact, None);
}

#[test]
fn recorded_compactions_keep_their_summary_and_what_the_history_kept() {
    let replay = replay_text(SESSION);
    assert_eq!(
        replay.recorded_compactions,
        vec![
            RecordedCompaction {
                turn: Some(1),
                after_request: 2,
                summary: "summary".to_string(),
                kept: vec!["user: first task".to_string()],
                replacement_items: Some(2),
            },
            RecordedCompaction {
                turn: Some(2),
                after_request: 3,
                summary: "legacy summary".to_string(),
                kept: Vec::new(),
                replacement_items: None,
            },
        ]
    );
}

#[test]
fn a_claude_code_request_records_its_cache_reads_and_writes_apart() {
    let transcript = [
        r#"{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2025-11-20T10:00:00.000Z","cwd":"/work/tool","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-11-20T10:00:05.000Z","message":{"model":"claude-sonnet-4-5","id":"m1","role":"assistant","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":7,"cache_creation_input_tokens":1200,"cache_read_input_tokens":15000,"output_tokens":40}}}"#,
    ]
    .join("\n");
    let replay = replay_text(&transcript);
    assert_eq!(replay.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(
        replay.started_at.as_deref(),
        Some("2025-11-20T10:00:00.000Z")
    );
    assert_eq!(
        replay.requests[0].recorded_usage,
        Some(RecordedTokens {
            input: 16_207,
            cached_input: 15_000,
            cache_write: 1_200,
            output: 40,
        })
    );
}

#[test]
fn a_codex_session_names_its_start_folder_model_and_cached_input() {
    let session = [
        r#"{"timestamp":"2025-11-24T09:31:08.100Z","type":"session_meta","payload":{"id":"s1","timestamp":"2025-11-24T09:31:07.000Z","cwd":"/home/dev/ledger"}}"#,
        r#"{"timestamp":"2025-11-24T09:31:09.000Z","type":"turn_context","payload":{"model":"gpt-5.1-codex","cwd":"/home/dev/ledger"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}"#,
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":900,"cached_input_tokens":600,"output_tokens":20,"total_tokens":920},"model_context_window":272000}}}"#,
    ]
    .join("\n");
    let replay = replay_text(&session);
    assert_eq!(
        replay.started_at.as_deref(),
        Some("2025-11-24T09:31:07.000Z")
    );
    assert_eq!(replay.cwd, Some(PathBuf::from("/home/dev/ledger")));
    assert_eq!(replay.model.as_deref(), Some("gpt-5.1-codex"));
    assert_eq!(
        replay.requests[0].recorded_usage,
        Some(RecordedTokens {
            input: 900,
            cached_input: 600,
            cache_write: 0,
            output: 20,
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Recorded compactions.

#[test]
fn a_replacement_history_replaces_everything_but_the_instructions() {
    let instructions = "You are a careful agent.";
    let replacement = vec![
        ResponseItem::user_text("fix the bug"),
        ResponseItem::user_text("summary of the work"),
    ];
    let next = ResponseItem::user_text("go on");
    let session = [
        line(
            "session_meta",
            json!({"id": "s1", "base_instructions": {"text": instructions}}),
        ),
        item(&ResponseItem::user_text("fix the bug")),
        item(&ResponseItem::function_call("c1", "shell", "{}")),
        item(&ResponseItem::function_call_output("c1", "x".repeat(8_000))),
        assistant(),
        line(
            "compacted",
            json!({"message": "summary of the work", "replacement_history": replacement}),
        ),
        item(&next),
        assistant(),
    ]
    .join("\n");
    let replay = replay_text(&session);
    let after = &replay.requests[2];
    assert!(after.after_compaction);
    assert_eq!(after.basis, PredictionBasis::WholeHistory);
    let mut history = replacement;
    history.push(next);
    assert_eq!(
        after.predicted_tokens,
        ApproxTokenEstimator.estimate_text(instructions) + tokens(&history)
    );
}

#[test]
fn a_legacy_compaction_keeps_the_newest_user_messages_within_the_budget() {
    // Three user messages of 12,000 tokens and lots of tool traffic, then a compaction
    // recorded without its replacement history (codex before they were recorded): codex
    // rebuilds it as the newest user messages within 20,000 tokens, then the summary.
    let message = |n: usize| format!("{n}{}", "m".repeat(47_999));
    let mut lines = vec![line("session_meta", json!({"id": "s1"}))];
    for n in 1..=3 {
        let call_id = format!("c{n}");
        lines.extend([
            item(&ResponseItem::user_text(message(n))),
            item(&ResponseItem::function_call(
                call_id.as_str(),
                "shell",
                "{}",
            )),
            item(&ResponseItem::function_call_output(
                call_id.as_str(),
                "o".repeat(120_000),
            )),
        ]);
    }
    // As codex records it: the summary with its prefix.
    let compacted = line("compacted", json!({"message": summary_text("summary")}));
    lines.extend([compacted.clone(), assistant(), compacted, assistant()]);
    let replay = replay_text(&lines.join("\n"));
    let requests = &replay.requests;
    assert_eq!(requests.len(), 5);
    let summary = tokens(&[ResponseItem::user_text(summary_text("summary"))]);
    // The newest message whole, 8,000 tokens of the one before, then the summary (each message
    // with the few tokens of its envelope).
    let first = requests[3].predicted_tokens;
    assert!(requests[3].after_compaction);
    assert!(
        (20_000 + summary..20_000 + summary + 100).contains(&first),
        "{first} for a summary of {summary}"
    );
    // A second compaction keeps what the first kept: the earlier summary is no user message,
    // and the answer in between goes. (The older message, already cut to its share, is cut
    // again with a fresh marker: a token either way.)
    let second = requests[4].predicted_tokens;
    assert!(second.abs_diff(first) <= 2, "{second} after {first}");
}

// ---------------------------------------------------------------------------------------------
// Lazy, typed, one-pass and two-pass readings.

/// The repository's sample sessions (`examples/sessions`), copied into the crate's fixtures so
/// the crate tests alone when vendored.
fn samples() -> Vec<PathBuf> {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/samples");
    vec![
        samples.join("rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl"),
        samples.join("claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl"),
        samples.join(
            "claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865/subagents/agent-5c1e9a07.jsonl",
        ),
    ]
}

fn options(reminders: bool) -> ReplayOptions {
    ReplayOptions {
        reminders: reminders.then(SystemReminderConfig::default),
        ..ReplayOptions::default()
    }
}

/// The replay of a file with every record typed, as before lazy reading.
fn replay_typed(path: &Path, options: &ReplayOptions) -> SessionReplay {
    let mut reader = RolloutReader::open(path).unwrap();
    let mut builder = SessionReplayBuilder::new(options.clone(), None);
    for event in reader.by_ref() {
        match event.unwrap() {
            ReadEvent::Record(record) => builder.observe(&record).unwrap(),
            ReadEvent::Skipped(skipped) => builder.skipped.push(skipped),
        }
    }
    builder
        .finish(
            path.to_path_buf(),
            reader.format().unwrap(),
            reader.lines_read(),
            reader.bytes_read(),
            reader.ignored().clone(),
        )
        .unwrap()
}

/// Replaying lazily, typing only the records the replay reads, gives the replay of every
/// record typed: on the sample sessions (a Codex rollout with turn settings and agent events,
/// a Claude Code transcript and its sub-agent's), with and without reminders.
#[test]
fn the_lazy_replay_equals_the_replay_of_every_record_typed() {
    for file in &samples() {
        for reminders in [false, true] {
            let options = options(reminders);
            let lazy = replay_file(file, &options, None).unwrap();
            assert!(!lazy.turns.is_empty(), "{}", file.display());
            assert!(!lazy.requests.is_empty(), "{}", file.display());
            assert_eq!(
                lazy.reminder_counts.is_some(),
                reminders,
                "{}",
                file.display()
            );
            assert_eq!(lazy, replay_typed(file, &options), "{}", file.display());
        }
    }
}

/// The sample sessions read the same from a file (a Claude Code transcript in two passes) as
/// from a source read once (every record held to the end), and replay the same.
#[test]
fn the_samples_read_the_same_in_two_passes_as_in_one() {
    for file in &samples() {
        let read = |reader: &mut dyn Iterator<
            Item = Result<ReadEvent, agentctx_rollout::RolloutError>,
        >| {
            let mut records = Vec::new();
            let mut skipped = Vec::new();
            for event in reader {
                match event.unwrap() {
                    ReadEvent::Record(record) => records.push(record),
                    ReadEvent::Skipped(line) => skipped.push(line),
                }
            }
            (records, skipped)
        };
        let bytes = std::fs::read(file).unwrap();
        let mut one_pass = RolloutReader::new(file, Cursor::new(bytes.clone()));
        let mut two_passes = RolloutReader::open(file).unwrap();
        let (records, skipped) = read(&mut two_passes);
        assert!(!records.is_empty());
        assert_eq!(
            (
                read(&mut one_pass),
                one_pass.ignored(),
                one_pass.lines_read()
            ),
            (
                (records, skipped),
                two_passes.ignored(),
                two_passes.lines_read()
            ),
            "{}",
            file.display()
        );

        let options = options(true);
        let from_source =
            replay_reader(RolloutReader::new(file, Cursor::new(bytes)), &options, None).unwrap();
        assert_eq!(
            from_source,
            replay_file(file, &options, None).unwrap(),
            "{}",
            file.display()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Reminders on a session another agent recorded: the engine's, fired before every recorded
// request as a live session fires them, their clock the request count.

const NO_SUCH_DIR: &str = "/nonexistent/agentctx-replay-test/project";

/// A session Claude Code recorded (its todo tool is `TodoWrite`, its window the default), in
/// the rollout envelope, built turn by turn.
struct Script {
    lines: Vec<String>,
}

impl Script {
    fn claude_code(cwd: &str) -> Self {
        Self {
            lines: vec![line(
                "session_meta",
                json!({"id": "s", "cwd": cwd, "originator": "claude_code"}),
            )],
        }
    }

    /// A turn: the user's `prompt`, then `items`, the first of which the model wrote (an
    /// answer when there are none); one model request unless `items` holds more.
    fn turn(&mut self, prompt: &str, items: &[ResponseItem]) -> &mut Self {
        self.lines.push(item(&ResponseItem::user_text(prompt)));
        if items.is_empty() {
            self.lines.push(assistant());
        }
        self.items(items)
    }

    fn items(&mut self, items: &[ResponseItem]) -> &mut Self {
        self.lines.extend(items.iter().map(item));
        self
    }

    fn raw(&mut self, line: String) -> &mut Self {
        self.lines.push(line);
        self
    }

    /// A compaction whose replacement history is one user message.
    fn compacted(&mut self) -> &mut Self {
        self.raw(line(
            "compacted",
            json!({"message": "summary", "replacement_history": [ResponseItem::user_text("summary")]}),
        ))
    }

    fn replay(&self, config: SystemReminderConfig) -> SessionReplay {
        let options = ReplayOptions {
            reminders: Some(config),
            ..ReplayOptions::default()
        };
        replay_with(&self.lines.join("\n"), &options)
    }
}

fn call(name: &str, arguments: &str, call_id: &str) -> ResponseItem {
    ResponseItem::function_call(call_id, name, arguments)
}

/// The labels of the reminders of each turn.
fn labels(replay: &SessionReplay) -> Vec<Vec<String>> {
    replay
        .turns
        .iter()
        .map(|turn| {
            turn.reminders
                .iter()
                .flatten()
                .map(|fired| fired.reminder.label())
                .collect()
        })
        .collect()
}

/// The 1-based turns on which a reminder labelled `label` fired.
fn turns_with(replay: &SessionReplay, label: &str) -> Vec<usize> {
    labels(replay)
        .iter()
        .enumerate()
        .filter(|(_, labels)| labels.iter().any(|fired| fired == label))
        .map(|(index, _)| index + 1)
        .collect()
}

#[test]
fn the_todo_reminder_waits_ten_assistant_messages_after_a_write_then_ten_between() {
    let todo_write = call(
        "TodoWrite",
        r#"{"todos":[{"content":"Ship","status":"in_progress","activeForm":"Shipping"}]}"#,
        "c1",
    );
    let mut script = Script::claude_code(NO_SUCH_DIR);
    for number in 1..=30 {
        if number == 2 {
            script.turn(
                "go on",
                &[
                    todo_write.clone(),
                    ResponseItem::function_call_output("c1", "Todos updated"),
                ],
            );
        } else {
            script.turn("go on", &[]);
        }
    }
    let replay = script.replay(SystemReminderConfig::default());
    assert_eq!(replay.requests.len(), 30);
    // One assistant message per request, the list written on request 2: ten messages later
    // (before request 13), then every tenth (Claude Code 2.1's clock and constants).
    assert_eq!(turns_with(&replay, "todo_reminder"), vec![13, 23]);
    // Counted by attachment type.
    assert_eq!(
        replay.reminder_counts,
        Some(BTreeMap::from([("todo_reminder".to_string(), 2)]))
    );
    // The stage ran once before each request, and the reminder is request 1 of its turn.
    assert!(
        replay
            .turns
            .iter()
            .all(|turn| turn.reminder_evaluations == Some(1))
    );
    let thirteenth = replay.turns[12].reminders.as_ref().unwrap();
    assert_eq!(thirteenth[0].request, 1);
    assert_eq!(thirteenth[0].reminder.tier, ReminderTier::Core);
}

#[test]
fn the_reminder_clock_counts_assistant_messages_and_a_turn_does_not_repeat_an_unchanged_list() {
    // One long turn: the todo list written on its first request, then requests of a text and
    // a tool call each (two assistant messages, as Claude Code stores them).
    let mut script = Script::claude_code(NO_SUCH_DIR);
    script.turn(
        "work through the list",
        &[
            call(
                "TodoWrite",
                r#"{"todos":[{"content":"Ship","status":"in_progress","activeForm":"Shipping"}]}"#,
                "c0",
            ),
            ResponseItem::function_call_output("c0", "Todos updated"),
        ],
    );
    for n in 1..=39 {
        let call_id = format!("c{n}");
        script.items(&[
            ResponseItem::assistant_text("Next."),
            call("Read", &format!(r#"{{"file_path":"f{n}.txt"}}"#), &call_id),
            ResponseItem::function_call_output(call_id.as_str(), "text"),
        ]);
    }
    let replay = script.replay(SystemReminderConfig::default());
    assert_eq!(replay.turns.len(), 1);
    let turn = &replay.turns[0];
    assert_eq!(turn.requests, 40);
    assert_eq!(turn.reminder_evaluations, Some(40));
    let todo_requests: Vec<usize> = turn
        .reminders
        .iter()
        .flatten()
        .filter(|fired| fired.reminder.attachment_type == AttachmentType::TodoReminder)
        .map(|fired| fired.request)
        .collect();
    // Ten messages after the write before request 7 (not ten requests); Claude Code would
    // repeat the unchanged list every five requests, this turn only after 30
    // (`todo_restate_after_requests`).
    assert_eq!(todo_requests, vec![7, 37]);
}

#[test]
fn a_completed_todo_list_is_not_reminded() {
    let mut script = Script::claude_code(NO_SUCH_DIR);
    script.turn(
        "plan",
        &[
            call(
                "update_plan",
                r#"{"plan":[{"step":"Ship","status":"completed"}]}"#,
                "c1",
            ),
            ResponseItem::function_call_output("c1", "Plan updated"),
        ],
    );
    for _ in 2..=9 {
        script.turn("more", &[]);
    }
    let replay = script.replay(SystemReminderConfig::default());
    assert_eq!(replay.requests.len(), 9);
    assert_eq!(labels(&replay), vec![Vec::<String>::new(); 9]);
}

#[test]
fn plan_mode_is_full_then_sparse_and_full_again_after_compaction() {
    let mut script = Script::claude_code(NO_SUCH_DIR);
    // One request: plan mode entered, the todo list written (it keeps the todo reminder away
    // for ten assistant messages).
    script.turn(
        "plan it",
        &[
            call("EnterPlanMode", "{}", "c1"),
            call("TodoWrite", r#"{"todos":[]}"#, "c2"),
            ResponseItem::function_call_output("c1", "Entered plan mode."),
            ResponseItem::function_call_output("c2", "Todos updated"),
        ],
    );
    for _ in 2..=8 {
        script.turn("continue", &[]);
    }
    // Compaction clears the throttles: plan mode fires at once, in full; the todo reminder once
    // ten assistant messages followed the write.
    script.compacted();
    // Turn 9 goes on for five more requests without user input.
    script.turn(
        "continue",
        &[
            call("Read", r#"{"file_path":"plan.md"}"#, "r9"),
            ResponseItem::function_call_output("r9", "the plan"),
        ],
    );
    for n in 10..=14 {
        let call_id = format!("r{n}");
        script.items(&[
            call("Read", r#"{"file_path":"plan.md"}"#, &call_id),
            ResponseItem::function_call_output(call_id.as_str(), "the plan"),
        ]);
    }
    let replay = script.replay(SystemReminderConfig::default());
    let labels = labels(&replay);
    assert_eq!(labels.len(), 9);
    assert_eq!(labels[0], Vec::<String>::new());
    assert_eq!(labels[1], vec!["plan_mode:full"]);
    assert_eq!(labels[5], Vec::<String>::new());
    // Five user turns later, the sparse text.
    assert_eq!(labels[6], vec!["plan_mode:sparse"]);
    let sparse = replay.turns[6].reminders.as_ref().unwrap()[0]
        .reminder
        .text
        .clone();
    assert!(
        sparse.starts_with("<system-reminder>\nPlan mode still active"),
        "{sparse}"
    );
    let ninth: Vec<(usize, String, ReminderTier)> = replay.turns[8]
        .reminders
        .iter()
        .flatten()
        .map(|fired| (fired.request, fired.reminder.label(), fired.reminder.tier))
        .collect();
    assert_eq!(
        ninth,
        vec![
            (1, "plan_mode:full".to_string(), ReminderTier::Core),
            // Ten assistant messages after the write (nine before the compaction).
            (4, "todo_reminder".to_string(), ReminderTier::Core),
            // No sparse text within the turn: plan mode's five turns are user turns, as in
            // Claude Code, not the requests of one turn's tool loop.
        ]
    );
}

#[test]
fn leaving_plan_mode_is_announced_once() {
    let mut script = Script::claude_code(NO_SUCH_DIR);
    script
        .turn(
            "plan",
            &[
                call("EnterPlanMode", "{}", "c1"),
                ResponseItem::function_call_output("c1", "Entered plan mode."),
            ],
        )
        .turn(
            "approve",
            &[
                call("ExitPlanMode", r#"{"plan":"p"}"#, "c2"),
                ResponseItem::function_call_output("c2", "User has approved your plan."),
            ],
        )
        .turn("go", &[])
        .turn("go", &[]);
    let replay = script.replay(SystemReminderConfig::default());
    assert_eq!(
        labels(&replay),
        vec![
            Vec::<String>::new(),
            vec!["plan_mode:full".to_string()],
            vec!["plan_mode_exit".to_string()],
            Vec::new(),
        ]
    );
}

/// A Claude Code transcript that starts a shell in the background, then finds it completed;
/// every record on a sidechain when `sidechain` (a sub-agent's own transcript).
fn background_shell_transcript(sidechain: bool) -> String {
    let record = |kind: &str, uuid: &str, parent: Option<&str>, message: Value| {
        let mut record = json!({
            "type": kind,
            "uuid": uuid,
            "sessionId": "s",
            "cwd": NO_SUCH_DIR,
            "isSidechain": sidechain,
            "message": message,
        });
        if let Some(parent) = parent {
            record["parentUuid"] = json!(parent);
        }
        record.to_string()
    };
    let tool_use = |id: &str, name: &str, input: Value| json!({"id": format!("m-{id}"), "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]});
    let tool_result = |id: &str, content: &str| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content}]});
    [
        record(
            "user",
            "u1",
            None,
            json!({"role": "user", "content": "test in the background"}),
        ),
        record(
            "assistant",
            "a1",
            Some("u1"),
            tool_use(
                "t1",
                "Bash",
                json!({"command": "cargo test", "description": "Run tests", "run_in_background": true}),
            ),
        ),
        record(
            "user",
            "u2",
            Some("a1"),
            tool_result("t1", "Command running in background with ID: 3f1a9c"),
        ),
        record(
            "user",
            "u3",
            Some("u2"),
            json!({"role": "user", "content": "how is it going?"}),
        ),
        record(
            "assistant",
            "a2",
            Some("u3"),
            tool_use("t2", "BashOutput", json!({"bash_id": "3f1a9c"})),
        ),
        record(
            "user",
            "u4",
            Some("a2"),
            tool_result("t2", "<status>completed</status>\n<exit_code>0</exit_code>"),
        ),
        record(
            "user",
            "u5",
            Some("u4"),
            json!({"role": "user", "content": "next"}),
        ),
        record(
            "assistant",
            "a3",
            Some("u5"),
            json!({"id": "m-3", "role": "assistant", "content": "ok"}),
        ),
    ]
    .join("\n")
}

#[test]
fn background_shells_are_reported_when_their_status_changes() {
    let options = ReplayOptions::default();
    let replay = replay_with(&background_shell_transcript(false), &options);
    assert_eq!(replay.turns.len(), 3);
    let fired = labels(&replay);
    // Started, then still running when asked: nothing new to report.
    assert_eq!(fired[0], Vec::<String>::new());
    assert_eq!(fired[1], Vec::<String>::new());
    let texts: Vec<&str> = replay.turns[2]
        .reminders
        .iter()
        .flatten()
        .map(|fired| fired.reminder.text.as_str())
        .collect();
    assert_eq!(
        texts,
        vec![
            "<system-reminder>\nBackground Bash 3f1a9c (command: cargo test) (status: completed) (exit code: 0)\n\n</system-reminder>"
        ]
    );
    // A sub-agent's transcript sees no main-agent reminders.
    let sub_agent = replay_with(&background_shell_transcript(true), &options);
    assert_eq!(sub_agent.sidechain_items, 0);
    assert_eq!(sub_agent.turns.len(), 3);
    assert_eq!(labels(&sub_agent), vec![Vec::<String>::new(); 3]);
}

#[test]
fn invoked_skills_are_reported_after_the_invocation_and_again_after_compaction() {
    let mut script = Script::claude_code(NO_SUCH_DIR);
    script
        .turn(
            "use the skill",
            &[
                call("Skill", r#"{"skill":"release-notes"}"#, "c1"),
                ResponseItem::function_call_output("c1", "Launching skill: release-notes"),
            ],
        )
        .turn("go", &[])
        .turn("go", &[])
        .compacted()
        .turn("go", &[]);
    let replay = script.replay(SystemReminderConfig::default());
    assert_eq!(
        labels(&replay),
        vec![
            Vec::<String>::new(),
            vec!["invoked_skills".to_string()],
            Vec::new(),
            vec!["invoked_skills".to_string()],
        ]
    );
}

#[test]
fn token_usage_fires_only_when_the_config_enables_it() {
    let count = line(
        "event_msg",
        json!({"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 30_000, "output_tokens": 500, "total_tokens": 30_500},
            "last_token_usage": {"input_tokens": 30_000, "output_tokens": 500, "total_tokens": 30_500}
        }}),
    );
    let first = ResponseItem::user_text("start");
    let mut script = Script::claude_code(NO_SUCH_DIR);
    script.turn("start", &[]).raw(count).turn("more", &[]);
    let silent = script.replay(SystemReminderConfig::default());
    assert_eq!(labels(&silent), vec![Vec::<String>::new(); 2]);

    let replay = script.replay(SystemReminderConfig {
        enable_token_usage: true,
        ..SystemReminderConfig::default()
    });
    // Changed from the CLI's replay, which reported the recorded count (input plus output,
    // 30500/200000) and only after it: the engine reports its own usage, the one its trigger
    // reads, against the effective window (200,000 less the 20,000 reserved for output), and
    // on every request including the first, as a live session does.
    let effective = replay.thresholds.effective_window;
    assert_eq!(effective, 180_000);
    let first_used = tokens(&[first]);
    let second_used = 30_000
        + tokens(&[
            ResponseItem::assistant_text("ok"),
            ResponseItem::user_text("more"),
        ]);
    let texts: Vec<Vec<String>> = replay
        .turns
        .iter()
        .map(|turn| {
            turn.reminders
                .iter()
                .flatten()
                .map(|fired| fired.reminder.text.clone())
                .collect()
        })
        .collect();
    let reminder = |used: u64| {
        vec![format!(
            "<system-reminder>\nToken usage: {used}/{effective}; {} remaining\n</system-reminder>",
            effective - used
        )]
    };
    assert_eq!(texts, vec![reminder(first_used), reminder(second_used)]);
    assert_eq!(replay.requests[1].predicted_tokens, second_used);
}

#[test]
fn at_mentions_are_read_only_from_a_working_directory_that_exists() {
    let mut missing = Script::claude_code(NO_SUCH_DIR);
    missing.turn("look at @notes.md", &[]);
    assert_eq!(
        labels(&missing.replay(SystemReminderConfig::default())),
        vec![Vec::<String>::new()]
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "remember the milk\n").unwrap();
    let mut script = Script::claude_code(dir.path().to_str().unwrap());
    // The mention is read before the turn's first request, the one that carries the user's
    // message; the requests after it in the turn have no user input.
    script.turn(
        "look at @notes.md",
        &[
            call("Read", r#"{"file_path":"other.md"}"#, "c1"),
            ResponseItem::function_call_output("c1", "other"),
            ResponseItem::assistant_text("read"),
        ],
    );
    let replay = script.replay(SystemReminderConfig::default());
    let turn = &replay.turns[0];
    assert_eq!(turn.requests, 2);
    assert_eq!(turn.reminder_evaluations, Some(2));
    let fired = turn.reminders.as_ref().unwrap();
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0].request, 1);
    assert_eq!(
        fired[0].reminder.attachment_type,
        AttachmentType::AtMentionedFiles
    );
    assert!(
        fired[0].reminder.text.contains("remember the milk"),
        "{}",
        fired[0].reminder.text
    );
}

#[test]
fn the_master_switch_turns_every_reminder_off() {
    let mut script = Script::claude_code(NO_SUCH_DIR);
    script.turn(
        "plan",
        &[
            call(
                "TodoWrite",
                r#"{"todos":[{"content":"Ship","status":"in_progress","activeForm":"Shipping"}]}"#,
                "c1",
            ),
            ResponseItem::function_call_output("c1", "Todos updated"),
        ],
    );
    for _ in 2..=8 {
        script.turn("go", &[]);
    }
    let replay = script.replay(SystemReminderConfig {
        enabled: false,
        ..SystemReminderConfig::default()
    });
    assert_eq!(labels(&replay), vec![Vec::<String>::new(); 8]);
    assert_eq!(replay.reminder_counts, Some(BTreeMap::new()));
    // Replayed without reminders at all: no counts, no per-turn lists.
    let without = replay_with(&script.lines.join("\n"), &without_reminders());
    assert_eq!(without.reminder_counts, None);
    assert!(without.turns.iter().all(|turn| turn.reminders.is_none()));
}

// ---------------------------------------------------------------------------------------------
// The requests the engine would send.

#[derive(Default)]
struct Collect(Vec<(usize, Vec<ResponseItem>)>);

impl RequestSink for Collect {
    fn request(&mut self, request: usize, prompt: &Prompt<'_>) -> std::io::Result<()> {
        self.0.push((request, prompt.items().cloned().collect()));
        Ok(())
    }
}

#[test]
fn the_reminders_of_a_session_another_agent_recorded_ride_on_one_prompt_only() {
    // The invoked-skill reminder of request 2 is on request 2's prompt, at its end, and gone
    // from request 3's: the recorded conversation went on without it.
    let mut script = Script::claude_code(NO_SUCH_DIR);
    script
        .turn(
            "use the skill",
            &[
                call("Skill", r#"{"skill":"release-notes"}"#, "c1"),
                ResponseItem::function_call_output("c1", "Launching skill: release-notes"),
            ],
        )
        .turn("go", &[])
        .turn("go", &[]);
    let options = ReplayOptions::default();
    let mut sink = Collect::default();
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(script.lines.join("\n")));
    let replay = replay_reader(reader, &options, Some(&mut sink)).unwrap();
    assert_eq!(
        sink.0.iter().map(|(number, _)| *number).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let skill_text = replay.turns[1].reminders.as_ref().unwrap()[0]
        .reminder
        .text
        .clone();
    let carries = |items: &[ResponseItem]| {
        items
            .iter()
            .filter(|item| item.message_text().is_some_and(|text| text == skill_text))
            .count()
    };
    assert_eq!(carries(&sink.0[0].1), 0);
    assert_eq!(carries(&sink.0[1].1), 1);
    assert_eq!(
        sink.0[1].1.last().and_then(ResponseItem::message_text),
        Some(skill_text.clone())
    );
    assert_eq!(carries(&sink.0[2].1), 0);
    // The history the prompts are built from holds only what the session recorded: request
    // 3 carries turn 1 (the user's message, the call, its output), turn 2 (its message and
    // answer) and turn 3's message.
    assert_eq!(sink.0[2].1.len(), 6);
}

#[test]
fn micro_compaction_can_be_switched_off_for_a_replay() {
    // The same large results as the usage tests clear, with micro-compaction off: nothing is
    // cleared.
    let mut config = CompactConfig {
        micro_compact: false,
        ..CompactConfig::default()
    };
    config.micro.min_savings_tokens = 0;
    config.micro.target_tool_result_tokens = 0;
    let mut lines = vec![
        line("session_meta", json!({"id": "s1"})),
        line("turn_context", json!({"cwd": "/w", "model": "gpt-5-codex"})),
        item(&ResponseItem::user_text("read the logs")),
    ];
    for n in 1..=5 {
        let call_id = format!("c{n}");
        lines.extend([
            item(&call("shell", r#"{"command":["cat","x.log"]}"#, &call_id)),
            item(&ResponseItem::function_call_output(
                call_id.as_str(),
                "x".repeat(40_000),
            )),
        ]);
    }
    lines.push(assistant());
    let options = ReplayOptions {
        compact: config,
        ..without_reminders()
    };
    let replay = replay_with(&lines.join("\n"), &options);
    assert_eq!(replay.requests.len(), 6);
    assert!(
        replay
            .requests
            .iter()
            .all(|request| request.micro_compact.is_none())
    );
}

// ---------------------------------------------------------------------------------------------
// One reconstruction: every request is built on the history `read_recorded_session` rebuilds
// at that point (the one a resumed session and an offline compaction start from).

#[derive(Default)]
struct Prompts(Vec<(usize, String, Vec<ResponseItem>)>);

impl RequestSink for Prompts {
    fn request(&mut self, request: usize, prompt: &Prompt<'_>) -> std::io::Result<()> {
        self.0.push((
            request,
            prompt.instructions.clone(),
            prompt.items().cloned().collect(),
        ));
        Ok(())
    }
}

/// Replays `bytes` (named `name`) without reminders or compaction of our own (the engine
/// would compact where a small window fills, and go on from its own history), and checks that
/// each request carries the instructions and the prompt view of the history
/// `read_recorded_session` rebuilds just before the request's first line.
fn assert_requests_are_built_on_the_rebuilt_history(name: &str, bytes: &[u8]) {
    let options = ReplayOptions {
        compact: CompactConfig {
            enabled: false,
            ..CompactConfig::default()
        },
        ..without_reminders()
    };
    let reader = |bytes: &[u8]| RolloutReader::new(Path::new(name), Cursor::new(bytes.to_vec()));
    let mut sink = Prompts::default();
    let replay = replay_reader(reader(bytes), &options, Some(&mut sink)).unwrap();
    assert!(!replay.requests.is_empty(), "{name}");
    assert_eq!(sink.0.len(), replay.requests.len(), "{name}");
    for (request, (number, instructions, items)) in replay.requests.iter().zip(&sink.0) {
        assert_eq!(request.request, *number, "{name}");
        let recorded =
            read_recorded_session(reader(bytes), StopPoint::AfterLine(request.line - 1)).unwrap();
        let mut history = agentctx_context::ContextManager::new();
        history.record_items(recorded.items, crate::recorded_session::AS_RECORDED);
        assert_eq!(
            (
                instructions.as_str(),
                &history.for_prompt(&agentctx_context::InputModality::TEXT_AND_IMAGE)
            ),
            (
                recorded.base_instructions.as_deref().unwrap_or_default(),
                items
            ),
            "{name}: request {number} at line {}",
            request.line
        );
    }
}

#[test]
fn every_request_of_the_samples_is_built_on_the_rebuilt_history() {
    for file in samples() {
        let bytes = std::fs::read(&file).unwrap();
        assert_requests_are_built_on_the_rebuilt_history(&file.display().to_string(), &bytes);
    }
}

#[test]
fn every_request_after_a_compaction_or_a_rollback_is_built_on_the_rebuilt_history() {
    assert_requests_are_built_on_the_rebuilt_history("compactions.jsonl", SESSION.as_bytes());
    let rollback = [
        line("session_meta", json!({"id": "s1"})),
        item(&ResponseItem::user_text("turn one")),
        assistant(),
        item(&ResponseItem::user_text("turn two")),
        assistant(),
        line(
            "event_msg",
            json!({"type": "thread_rolled_back", "num_turns": 1}),
        ),
        item(&ResponseItem::user_text("turn three")),
        assistant(),
    ]
    .join("\n");
    assert_requests_are_built_on_the_rebuilt_history("rollback.jsonl", rollback.as_bytes());
}

#[test]
fn a_compaction_without_replacement_history_is_rebuilt_as_codex_rebuilds_it() {
    // codex rebuilds it from its user messages (the text parts of one message joined with
    // nothing between them, an earlier summary left out) and the summary, its placeholder when
    // the summary is empty (codex-rs `core/src/compact.rs`, `collect_user_messages`;
    // `core/src/session/rollout_reconstruction.rs`), as `read_recorded_session` does.
    let two_parts = json!({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "part one"},
        {"type": "input_text", "text": "part two"}
    ]});
    let session = [
        line("session_meta", json!({"id": "s1"})),
        item(&ResponseItem::user_text("first request")),
        assistant(),
        line("response_item", two_parts),
        assistant(),
        line(
            "compacted",
            json!({"message": summary_text("first summary")}),
        ),
        item(&ResponseItem::user_text("after")),
        assistant(),
        line("compacted", json!({"message": ""})),
        item(&ResponseItem::user_text("last")),
        assistant(),
    ]
    .join("\n");
    assert_requests_are_built_on_the_rebuilt_history("legacy.jsonl", session.as_bytes());
}
