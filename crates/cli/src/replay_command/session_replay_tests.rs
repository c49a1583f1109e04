use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;

use agentctx_compact::ThresholdLevel;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_protocol::ResponseItem;
use agentctx_reminders::SystemReminderConfig;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;

use super::super::reminder_replay::ReminderReplay;
use super::super::usage_prediction::PredictionBasis;
use super::super::usage_prediction::RequestUsage;
use super::super::usage_prediction::TierTrigger;
use super::super::usage_prediction::UsageOptions;
use super::super::usage_prediction::UsageReplay;
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
                reminder_evaluations: None,
                // A 1,000-token window keeps a quarter for the output: its levels are scaled
                // down with it, so the 1,200 tokens of request 2 are over the blocking limit
                // and it auto-compacts.
                request_usage: vec![
                    RequestUsage {
                        request: 1,
                        line: 5,
                        predicted_tokens: 310,
                        basis: PredictionBasis::WholeHistory,
                        recorded_tokens: Some(900),
                        after_compaction: false,
                        micro_compact: None,
                        // Before the first token count the window is the default 200,000.
                        level: ThresholdLevel::Normal,
                        auto_compact: None,
                    },
                    RequestUsage {
                        request: 2,
                        line: 9,
                        // 900 recorded by request 1 plus the call, its output and nothing else.
                        predicted_tokens: 900 + 300,
                        basis: PredictionBasis::PreviousRequest,
                        recorded_tokens: Some(950),
                        after_compaction: false,
                        micro_compact: None,
                        level: ThresholdLevel::Blocking,
                        // 1,200 less the history (6 items) plus the compacted history: the
                        // user message and the summary.
                        auto_compact: Some(TierTrigger {
                            tokens_before: 1_200,
                            tokens_after: 1_200 - 600 + 200,
                        }),
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
                estimated_prompt_tokens: 310,
                max_estimated_prompt_tokens: 310,
                recorded_prompt_tokens: None,
                recorded_output_tokens: None,
                model_context_window: None,
                reminders: None,
                reminder_evaluations: None,
                request_usage: vec![RequestUsage {
                    request: 3,
                    line: 14,
                    // After the compaction: the replacement (2 items), the new user message
                    // and the instructions, estimated.
                    predicted_tokens: 310,
                    basis: PredictionBasis::WholeHistory,
                    recorded_tokens: None,
                    after_compaction: true,
                    micro_compact: None,
                    // Under blocking, but past the trigger, which sits a summary request's
                    // worth (the flat estimator's 300) below it on this small window.
                    level: ThresholdLevel::AutoCompact,
                    auto_compact: None,
                }],
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

fn replay_text(text: &str) -> super::SessionReplay {
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(text.to_string()));
    replay_reader(reader, &FlatEstimator, None).unwrap()
}

fn turn_lines(replay: &super::SessionReplay) -> Vec<(usize, String)> {
    replay
        .turns
        .iter()
        .map(|turn| (turn.line, turn.user_message.clone()))
        .collect()
}

#[test]
fn a_thread_rollback_drops_the_rolled_back_turns_from_the_prompt() {
    let session = concat!(
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"turn one"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a1"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<model_switch>\nm\n</model_switch>"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"turn two"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a2"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"turn three"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a3"}]}}"#,
        "\n",
    );
    let replay = replay_text(session);
    assert_eq!(replay.turns.len(), 3);
    // Turn two and the model switch above it are gone: turn one (2 items) + turn three's
    // prompt.
    assert_eq!(replay.turns[2].estimated_prompt_tokens, 300);
    assert_eq!(replay.turns[1].estimated_prompt_tokens, 400);
}

const REDACTED: &str = "[REDACTED_TEXT len=42 sha=0f3a]";
const REDACTED_CONTEXT: &str = "[REDACTED_TEXT len=380 sha=77c1]";

fn redacted_user(text: &str) -> String {
    format!(
        r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}}}"#
    )
}

fn user_event() -> String {
    format!(
        r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"user_message","message":"{REDACTED}"}}}}"#
    )
}

fn assistant() -> String {
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}}"#.to_string()
}

#[test]
fn in_a_redacted_codex_rollout_user_message_events_mark_the_turns() {
    // Current codex records the user's item, then its `user_message` event; the injected
    // context items before it are redacted beyond recognition.
    let item_then_event = [
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1"}}"#.to_string(),
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

    // Older builds wrote the event first.
    let event_then_item = [
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1"}}"#.to_string(),
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

/// The replay of a file with every record typed (fidelity included), as before lazy reading.
fn replay_typed(path: &Path, reminders: bool) -> super::SessionReplay {
    let mut reader = RolloutReader::open(path).unwrap();
    let mut builder = super::SessionReplayBuilder::new(&ApproxTokenEstimator);
    builder.usage = UsageReplay::new(UsageOptions::default());
    builder.reminders =
        reminders.then(|| ReminderReplay::new(SystemReminderConfig::default()).unwrap());
    for event in reader.by_ref() {
        match event.unwrap() {
            ReadEvent::Record(record) => builder.observe(&record),
            ReadEvent::Skipped(skipped) => builder.skipped.push(skipped),
        }
    }
    builder.finish(
        path.to_path_buf(),
        reader.format().unwrap(),
        reader.lines_read(),
        reader.bytes_read(),
        reader.ignored().clone(),
    )
}

/// Replaying lazily, typing only the records the replay reads, gives the replay of every
/// record typed: on the sample sessions (a Codex rollout with turn settings and agent events,
/// a Claude Code transcript and its sub-agent's), with and without reminders.
#[test]
fn the_lazy_replay_equals_the_replay_of_every_record_typed() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sessions");
    let files = [
        samples.join("rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl"),
        samples.join("claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl"),
        samples.join(
            "claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865/subagents/agent-5c1e9a07.jsonl",
        ),
    ];
    for file in &files {
        for reminders in [false, true] {
            let lazy = super::replay_file(
                file,
                &ApproxTokenEstimator,
                reminders.then(|| ReminderReplay::new(SystemReminderConfig::default()).unwrap()),
                UsageOptions::default(),
            )
            .unwrap();
            assert!(!lazy.turns.is_empty(), "{}", file.display());
            assert_eq!(lazy, replay_typed(file, reminders), "{}", file.display());
        }
    }
}

/// The sample sessions read the same from a file (a Claude Code transcript in two passes) as
/// from a source read once (every record held to the end).
#[test]
fn the_samples_read_the_same_in_two_passes_as_in_one() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sessions");
    let files = [
        samples.join("rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl"),
        samples.join("claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl"),
        samples.join(
            "claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865/subagents/agent-5c1e9a07.jsonl",
        ),
    ];
    for file in &files {
        let read = |mut reader: RolloutReader<Box<dyn std::io::BufRead>>| {
            let mut records = Vec::new();
            let mut skipped = Vec::new();
            for event in reader.by_ref() {
                match event.unwrap() {
                    ReadEvent::Record(record) => records.push(record),
                    ReadEvent::Skipped(line) => skipped.push(line),
                }
            }
            (
                records,
                skipped,
                reader.ignored().clone(),
                reader.lines_read(),
            )
        };
        let bytes = std::fs::read(file).unwrap();
        let one_pass = read(RolloutReader::new(file, Box::new(Cursor::new(bytes))));
        let mut two_passes = RolloutReader::open(file).unwrap();
        let mut records = Vec::new();
        let mut skipped = Vec::new();
        for event in two_passes.by_ref() {
            match event.unwrap() {
                ReadEvent::Record(record) => records.push(record),
                ReadEvent::Skipped(line) => skipped.push(line),
            }
        }
        assert!(!records.is_empty());
        assert_eq!(
            one_pass,
            (
                records,
                skipped,
                two_passes.ignored().clone(),
                two_passes.lines_read()
            ),
            "{}",
            file.display()
        );
    }
}

#[test]
fn a_recommended_plugins_block_is_not_the_users_request() {
    // Codex 0.12x+ writes the plugins it recommends as a `user` message of its own (codex-rs
    // `core/src/context/recommended_plugins_instructions.rs`); a rollout without
    // `user_message` events decides turns by the text.
    let session = [
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1","cli_version":"0.128.0"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<recommended_plugins>\nHere is a list of plugins that are available but not installed.\n\n- GitHub (github@openai-curated)\n</recommended_plugins>"}]}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the parser"}]}}"#,
        &assistant(),
    ]
    .join("\n");
    let replay = replay_text(&session);
    assert_eq!(turn_lines(&replay), vec![(3, "fix the parser".to_string())]);
    assert_eq!(replay.preamble_items, 1);
}

#[test]
fn the_window_of_the_recorded_model_is_used_when_the_session_records_none() {
    // No `model_context_window` in the counts: the model of the `turn_context` names it.
    let count = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":900,"total_tokens":900},"last_token_usage":{"input_tokens":900,"total_tokens":900}}}}"#;
    let session = |context: &str| {
        [
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1"}}"#,
            context,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}"#,
            &assistant(),
            count,
        ]
        .join("\n")
    };
    let turn_context =
        r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-codex"}}"#;
    assert_eq!(
        replay_text(&session(turn_context)).thresholds.window,
        272_000
    );
    // A later model choice (`/model`) is a `thread_settings_applied` event in codex 0.12x+.
    let settings = format!(
        "{turn_context}\n{}",
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"thread_settings_applied","thread_settings":{"model":"gpt-4.1","reasoning_effort":"medium"}}}"#
    );
    assert_eq!(
        replay_text(&session(&settings)).thresholds.window,
        1_047_576
    );
    // A model the table does not know: the default.
    let unknown =
        r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w","model":"qwen3:8b"}}"#;
    assert_eq!(replay_text(&session(unknown)).thresholds.window, 200_000);
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
    assert_eq!(second.level, ThresholdLevel::Normal);
    assert_eq!(second.auto_compact, None);
}
