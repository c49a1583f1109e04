use std::io::Cursor;
use std::path::Path;

use agentctx_compact::SUMMARY_PREFIX;
use agentctx_compact::render_history;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::RecordedSession;
use super::StopPoint;
use super::read_recorded_session;

// ---------------------------------------------------------------------------------------------
// Codex rollout lines, in the current envelope.

fn line(kind: &str, payload: Value) -> String {
    json!({"timestamp": "2025-11-24T09:31:07.412Z", "type": kind, "payload": payload}).to_string()
}

fn meta() -> String {
    line(
        "session_meta",
        json!({
            "id": "019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8",
            "timestamp": "2025-11-24T09:31:07.401Z",
            "cwd": "/home/mira/src/tally",
            "originator": "codex_cli_rs",
            "cli_version": "0.63.0",
            "instructions": null,
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, based on GPT-5."}
        }),
    )
}

fn message(role: &str, text: &str) -> Value {
    let part = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    json!({"type": "message", "role": role, "content": [{"type": part, "text": text}]})
}

fn user(text: &str) -> String {
    line("response_item", message("user", text))
}

fn assistant(text: &str) -> String {
    line("response_item", message("assistant", text))
}

fn call(call_id: &str, command: &str) -> String {
    line(
        "response_item",
        json!({
            "type": "function_call",
            "name": "shell",
            "arguments": json!({"command": ["bash", "-lc", command]}).to_string(),
            "call_id": call_id
        }),
    )
}

fn output(call_id: &str, text: &str) -> String {
    line(
        "response_item",
        json!({"type": "function_call_output", "call_id": call_id, "output": text}),
    )
}

fn turn_context(model: &str, turn_id: Option<&str>) -> String {
    let mut payload = json!({
        "cwd": "/home/mira/src/tally",
        "approval_policy": "on-request",
        "sandbox_policy": {"type": "workspace-write"},
        "model": model,
        "effort": "medium",
        "summary": "auto"
    });
    if let Some(turn_id) = turn_id {
        payload["turn_id"] = json!(turn_id);
    }
    line("turn_context", payload)
}

fn event(payload: Value) -> String {
    line("event_msg", payload)
}

fn token_count() -> String {
    event(json!({
        "type": "token_count",
        "info": {
            "total_token_usage": {"input_tokens": 5210, "cached_input_tokens": 4096, "output_tokens": 180, "reasoning_output_tokens": 64, "total_tokens": 5390},
            "last_token_usage": {"input_tokens": 5210, "cached_input_tokens": 4096, "output_tokens": 180, "reasoning_output_tokens": 64, "total_tokens": 5390},
            "model_context_window": 272000
        },
        "rate_limits": null
    }))
}

fn rollback(num_turns: u32) -> String {
    event(json!({"type": "thread_rolled_back", "num_turns": num_turns}))
}

fn compacted(message: &str, replacement: Option<Vec<Value>>) -> String {
    let mut payload = json!({"message": message});
    if let Some(items) = replacement {
        payload["replacement_history"] = Value::Array(items);
    }
    line("compacted", payload)
}

const ENVIRONMENT: &str = "<environment_context>\n  <cwd>/home/mira/src/tally</cwd>\n  <approval_policy>on-request</approval_policy>\n  <shell>bash</shell>\n</environment_context>";

const AGENTS_MD: &str = "# AGENTS.md instructions for /home/mira/src/tally\n\n<INSTRUCTIONS>\nRun `cargo test` before you say you are done.\n</INSTRUCTIONS>";

fn read_text(text: &str, stop: StopPoint) -> Result<RecordedSession, RolloutError> {
    read_recorded_session(
        RolloutReader::new(Path::new("rollout.jsonl"), Cursor::new(text.to_string())),
        stop,
    )
}

fn read(lines: &[String], stop: StopPoint) -> RecordedSession {
    read_text(&(lines.join("\n") + "\n"), stop).unwrap()
}

fn texts(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(ResponseItem::message_text)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Stop points, compactions and rollbacks (moved from `agentctx compact`'s own copy).

const SESSION: &str = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1","base_instructions":{"text":"be brief"}}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done first"}]}}
{"timestamp":"t","type":"compacted","payload":{"message":"summary one","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"summary one"}]}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"second task"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done second"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"third task"}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}
{"timestamp":"t","type":"compacted","payload":{"message":"summary two"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fourth task"}]}}
"#;

fn session(stop: StopPoint) -> RecordedSession {
    read_text(SESSION, stop).unwrap()
}

#[test]
fn before_the_first_compaction_the_history_is_the_items_so_far() {
    let recorded = session(StopPoint::BeforeCompaction(1));
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:first task\n01:message/assistant:done first"
    );
    assert_eq!(recorded.session_id.as_deref(), Some("s1"));
    assert_eq!(recorded.base_instructions.as_deref(), Some("be brief"));
    assert_eq!(recorded.compactions_applied, 0);
    assert_eq!(recorded.compactions_in_file, None);
    assert_eq!(recorded.last_line, 3);
    assert_eq!(recorded.format, RolloutFormat::Codex);
}

#[test]
fn a_recorded_replacement_history_replaces_the_items_and_a_rollback_drops_the_last_turn() {
    let recorded = session(StopPoint::BeforeCompaction(2));
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:first task\n01:message/user:summary one\n\
         02:message/user:second task\n03:message/assistant:done second"
    );
    assert_eq!(recorded.compactions_applied, 1);
    assert_eq!(recorded.last_line, 8);
}

#[test]
fn a_compaction_without_replacement_keeps_the_user_messages_and_the_summary() {
    let recorded = session(StopPoint::End);
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:first task\n01:message/user:summary one\n\
         02:message/user:second task\n03:message/user:summary two\n\
         04:message/user:fourth task"
    );
    assert_eq!(recorded.compactions_applied, 2);
    assert_eq!(recorded.compactions_in_file, Some(2));
    assert_eq!(recorded.last_line, 10);
}

#[test]
fn at_line_stops_after_that_line() {
    let recorded = session(StopPoint::AfterLine(5));
    assert_eq!(recorded.last_line, 5);
    assert_eq!(recorded.compactions_applied, 1);
    assert_eq!(recorded.compactions_in_file, None);
    assert_eq!(recorded.items.len(), 3);
}

#[test]
fn asking_for_a_compaction_past_the_last_reads_to_the_end() {
    let recorded = session(StopPoint::BeforeCompaction(3));
    assert_eq!(recorded.compactions_in_file, Some(2));
    assert_eq!(recorded.last_line, 10);
}

// ---------------------------------------------------------------------------------------------
// Rollbacks: codex's rule for where a user turn starts.

#[test]
fn a_rollback_cuts_at_a_message_the_user_typed_and_takes_the_context_updates_above_it() {
    let reminder = "<system-reminder>\nThe todo list is empty.\n</system-reminder>";
    let recorded = read(
        &[
            meta(),
            user(AGENTS_MD),
            user(ENVIRONMENT),
            user("why does the monthly report double count transfers?"),
            assistant("monthly_totals sums amount.abs() for every entry."),
            user(reminder),
            user("fix it"),
            user(reminder),
            assistant("Fixed."),
            rollback(1),
        ],
        StopPoint::End,
    );
    // The reminders are not turn starts: the cut falls at "fix it", and the reminder just above
    // it goes with the turn.
    assert_eq!(
        texts(&recorded.items),
        [
            AGENTS_MD,
            ENVIRONMENT,
            "why does the monthly report double count transfers?",
            "monthly_totals sums amount.abs() for every entry.",
        ]
    );
    assert_eq!(recorded.user_turns, 2);
}

#[test]
fn a_rollback_of_more_turns_than_there_are_keeps_the_session_prefix() {
    let recorded = read(
        &[
            meta(),
            user(AGENTS_MD),
            user(ENVIRONMENT),
            user("first"),
            assistant("one"),
            user("second"),
            assistant("two"),
            rollback(99),
        ],
        StopPoint::End,
    );
    assert_eq!(texts(&recorded.items), [AGENTS_MD, ENVIRONMENT]);
}

#[test]
fn a_rollback_after_a_compaction_cuts_the_compacted_history() {
    let summary = format!("{SUMMARY_PREFIX}\nThe user asked for a report fix.");
    let recorded = read(
        &[
            meta(),
            user("fix the report"),
            assistant("done"),
            compacted(
                &summary,
                Some(vec![
                    message("user", "fix the report"),
                    message("user", &summary),
                ]),
            ),
            user("and add a test"),
            assistant("added"),
            rollback(1),
        ],
        StopPoint::End,
    );
    assert_eq!(texts(&recorded.items), ["fix the report", summary.as_str()]);
}

// ---------------------------------------------------------------------------------------------
// Compactions without a replacement history: codex's rebuild.

#[test]
fn the_rebuild_keeps_what_codex_takes_for_user_messages() {
    let earlier_summary = format!("{SUMMARY_PREFIX}\nAn earlier summary.");
    let image = json!({
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "<image>"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            {"type": "input_text", "text": "</image>"},
            {"type": "input_text", "text": "this row is wrong"}
        ]
    });
    let two_parts = json!({
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "skip own accounts"},
            {"type": "input_text", "text": " in monthly_totals"}
        ]
    });
    let hook = "<hook_prompt hook_run_id=\"run-7\">Run the linter first.</hook_prompt>";
    let recorded = read(
        &[
            meta(),
            user(AGENTS_MD),
            user(ENVIRONMENT),
            user(&earlier_summary),
            line("response_item", image),
            assistant("I see the Savings row."),
            line("response_item", two_parts),
            user(hook),
            line(
                "response_item",
                json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>\nWorkspace write.\n</permissions instructions>"}]}),
            ),
            compacted("", None),
        ],
        StopPoint::End,
    );
    // Contextual messages, the earlier summary and the hook prompt are not user messages; the
    // image tags are dropped and the parts joined with nothing between them; an empty summary
    // becomes codex's placeholder; no initial context is put back.
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:this row is wrong\n\
         01:message/user:skip own accounts in monthly_totals\n\
         02:message/user:(no summary available)"
    );
}

#[test]
fn the_rebuild_keeps_the_newest_user_messages_within_twenty_thousand_tokens() {
    // 40,000 bytes is 10,000 tokens: the two newest fill the budget.
    let oldest = "a".repeat(40_000);
    let middle = "b".repeat(40_000);
    let newest = "c".repeat(40_000);
    let recorded = read(
        &[
            meta(),
            user(&oldest),
            user(&middle),
            user(&newest),
            compacted("the summary", None),
        ],
        StopPoint::End,
    );
    assert_eq!(
        texts(&recorded.items),
        [middle.as_str(), newest.as_str(), "the summary"]
    );
}

// ---------------------------------------------------------------------------------------------
// Turn contexts, counts and the reference the next turn diffs against.

#[test]
fn turns_and_requests_are_counted_up_to_the_stop_point() {
    let lines = [
        meta(),
        turn_context("gpt-5-codex", None),
        user("first"),
        token_count(),
        assistant("one"),
        turn_context("gpt-5-codex", None),
        user("second"),
        token_count(),
        call("call_1", "cargo test"),
        output("call_1", "ok"),
        token_count(),
        assistant("two"),
    ];
    let recorded = read(&lines, StopPoint::End);
    assert_eq!(
        (recorded.turns, recorded.user_turns, recorded.requests),
        (2, 2, 3)
    );
    let recorded = read(&lines, StopPoint::AfterLine(5));
    assert_eq!(
        (recorded.turns, recorded.user_turns, recorded.requests),
        (1, 1, 1)
    );
}

#[test]
fn a_rolled_back_turn_takes_its_settings_with_it() {
    let recorded = read(
        &[
            meta(),
            turn_context("gpt-5-codex", None),
            user("first"),
            assistant("one"),
            turn_context("gpt-5.1-codex-max", None),
            user("second"),
            assistant("two"),
            rollback(1),
        ],
        StopPoint::End,
    );
    let model = |context: &Option<agentctx_protocol::TurnContextItem>| {
        context.as_ref().and_then(|context| context.model.clone())
    };
    assert_eq!(
        model(&recorded.reference_context_item).as_deref(),
        Some("gpt-5-codex")
    );
    assert_eq!(
        model(&recorded.last_turn_context).as_deref(),
        Some("gpt-5.1-codex-max")
    );
    assert_eq!(recorded.turns, 2);
}

#[test]
fn a_compaction_clears_the_reference_until_a_turn_records_its_settings() {
    let before = [
        meta(),
        turn_context("gpt-5-codex", None),
        user("first"),
        assistant("one"),
        compacted("summary", Some(vec![message("user", "summary")])),
    ];
    let recorded = read(&before, StopPoint::End);
    assert_eq!(recorded.reference_context_item, None);
    assert!(recorded.last_turn_context.is_some());

    let mut after = before.to_vec();
    after.extend([turn_context("gpt-5-codex", None), user("second")]);
    let recorded = read(&after, StopPoint::End);
    assert!(recorded.reference_context_item.is_some());
}

#[test]
fn after_a_rebuilt_compaction_the_next_turn_sends_the_initial_context_in_full() {
    // The rebuilt history has no initial context, so even the settings a later turn recorded
    // are no reference (codex-rs clears it after replaying such a compaction).
    let lines = [
        meta(),
        turn_context("gpt-5-codex", None),
        user("first"),
        compacted("summary", None),
        turn_context("gpt-5-codex", None),
        user("second"),
    ];
    assert_eq!(read(&lines, StopPoint::End).reference_context_item, None);
    // A later compaction that recorded its replacement history ends that.
    let mut lines = lines.to_vec();
    lines.extend([
        compacted("summary two", Some(vec![message("user", "summary two")])),
        turn_context("gpt-5-codex", None),
        user("third"),
    ]);
    assert!(
        read(&lines, StopPoint::End)
            .reference_context_item
            .is_some()
    );
}

#[test]
fn with_turn_lifecycle_events_a_rolled_back_turn_is_its_span() {
    // As codex's own test `record_initial_history_resumed_rollback_drops_incomplete_user_turn_
    // compaction_metadata`: the rolled-back turn compacted, its compaction goes with it.
    let recorded = read(
        &[
            meta(),
            event(json!({"type": "task_started", "turn_id": "t1", "model_context_window": 272000})),
            event(json!({"type": "user_message", "message": "seed", "images": []})),
            turn_context("gpt-5-codex", Some("t1")),
            user("seed"),
            assistant("seeded"),
            event(
                json!({"type": "task_complete", "turn_id": "t1", "last_agent_message": "seeded"}),
            ),
            event(json!({"type": "task_started", "turn_id": "t2", "model_context_window": 272000})),
            event(json!({"type": "user_message", "message": "rolled back", "images": []})),
            user("rolled back"),
            compacted("", Some(Vec::new())),
            rollback(1),
        ],
        StopPoint::End,
    );
    let reference = recorded.reference_context_item.unwrap();
    assert_eq!(reference.turn_id.as_deref(), Some("t1"));
}

// ---------------------------------------------------------------------------------------------
// Tool outputs are truncated as the live session truncated them.

#[test]
fn codex_tool_outputs_are_truncated_by_the_turns_policy() {
    let long = "x".repeat(20_000);
    let lines = |policy: Option<Value>| {
        let mut context = json!({"cwd": "/repo", "model": "gpt-5-codex"});
        if let Some(policy) = policy {
            context["truncation_policy"] = policy;
        }
        vec![
            meta(),
            line("turn_context", context),
            user("print it"),
            call("call_1", "cat big.log"),
            output("call_1", &long),
        ]
    };
    let output_text = |recorded: &RecordedSession| match recorded.items.last() {
        Some(ResponseItem::FunctionCallOutput { output, .. }) => output.text_content(),
        other => panic!("not an output: {other:?}"),
    };
    // No policy recorded: a writer that truncated nothing when recording (codex before 0.6x
    // wrote outputs already cut for the model), so the output is kept as recorded.
    assert_eq!(output_text(&read(&lines(None), StopPoint::End)), long);
    // codex's default policy as it records it (10,000 bytes, with the envelope allowance).
    let truncated = output_text(&read(
        &lines(Some(json!({"mode": "bytes", "limit": 10_000}))),
        StopPoint::End,
    ));
    assert!(truncated.len() < 13_000, "{}", truncated.len());
    assert!(truncated.contains("truncated"), "{truncated}");
    // The turn's own policy.
    let kept = output_text(&read(
        &lines(Some(json!({"mode": "bytes", "limit": 100_000}))),
        StopPoint::End,
    ));
    assert_eq!(kept, long);
}

// ---------------------------------------------------------------------------------------------
// Bad input.

#[test]
fn bad_lines_are_skipped_and_counted_and_nothing_panics() {
    let text = [
        meta(),
        user("first"),
        "{not json".to_string(),
        line("compacted", json!("not an object")),
        line(
            "event_msg",
            json!({"type": "thread_rolled_back", "num_turns": "all"}),
        ),
        line("response_item", json!({"type": "future_item", "data": 1})),
        line("turn_context", json!([1, 2])),
        assistant("one"),
    ]
    .join("\n");
    let recorded = read_text(&text, StopPoint::End).unwrap();
    assert_eq!(texts(&recorded.items), ["first", "one"]);
    assert_eq!(
        recorded
            .skipped
            .iter()
            .map(|skipped| skipped.line_number)
            .collect::<Vec<_>>(),
        [3]
    );
    assert_eq!(recorded.compactions_in_file, Some(0));
    assert_eq!(recorded.turns, 1);
}

#[test]
fn a_file_that_is_no_session_is_an_error() {
    let error = read_text("hello\nworld\n", StopPoint::End).unwrap_err();
    assert!(
        matches!(error, RolloutError::UnrecognizedFormat { lines: 2, .. }),
        "{error:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Claude Code transcripts: compact boundaries and rewinds, as the reader gives them.

/// A Claude Code 2.x transcript: a tool call, an automatic compaction (a boundary whose
/// `parentUuid` is null and `logicalParentUuid` points back, then the summary), a prompt, and a
/// rewind: the user edited that prompt, so the new prompt forks from the summary and the first
/// prompt and its answer are an abandoned branch.
const CLAUDE_TRANSCRIPT: &str = r#"{"type":"file-history-snapshot","messageId":"5d1c0f3a-8b2e-4c7d-9a6f-1e2b3c4d5e6f","snapshot":{"messageId":"5d1c0f3a-8b2e-4c7d-9a6f-1e2b3c4d5e6f","trackedFileBackups":{},"timestamp":"2025-12-08T14:20:11.102Z"},"isSnapshotUpdate":false}
{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","type":"user","message":{"role":"user","content":"add a --dry-run flag to the sync command"},"uuid":"5d1c0f3a-8b2e-4c7d-9a6f-1e2b3c4d5e6f","timestamp":"2025-12-08T14:20:11.105Z","thinkingMetadata":{"level":"high","disabled":false,"triggers":[]},"todos":[],"permissionMode":"default"}
{"parentUuid":"5d1c0f3a-8b2e-4c7d-9a6f-1e2b3c4d5e6f","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01Dq4Rf7Tg0Yh3Uj6Ik9Ol2P","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01Sx5Cv8Bn1Mq4Wz7Ea0Rd3T","name":"Read","input":{"file_path":"/home/mira/src/tally/src/sync.rs"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":8,"cache_creation_input_tokens":3920,"cache_read_input_tokens":14210,"cache_creation":{"ephemeral_5m_input_tokens":3920,"ephemeral_1h_input_tokens":0},"output_tokens":71,"service_tier":"standard"}},"requestId":"req_011CVu2Lm9Np3Qr6St9Uv2Wx","type":"assistant","uuid":"6e2d1a4b-9c3f-4d8e-8b7a-2f3c4d5e6a7b","timestamp":"2025-12-08T14:20:14.330Z"}
{"parentUuid":"6e2d1a4b-9c3f-4d8e-8b7a-2f3c4d5e6a7b","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01Sx5Cv8Bn1Mq4Wz7Ea0Rd3T","type":"tool_result","content":"     1→pub fn sync(args: &SyncArgs) -> Result<()> {\n     2→    copy_all(&args.from, &args.to)\n     3→}"}]},"uuid":"7f3e2b5c-0d4a-4e9f-9c8b-3a4d5e6f7a8b","timestamp":"2025-12-08T14:20:14.402Z","toolUseResult":{"type":"text","file":{"filePath":"/home/mira/src/tally/src/sync.rs","content":"pub fn sync(args: &SyncArgs) -> Result<()> {\n    copy_all(&args.from, &args.to)\n}","numLines":3,"startLine":1,"totalLines":3}}}
{"parentUuid":"7f3e2b5c-0d4a-4e9f-9c8b-3a4d5e6f7a8b","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01Fr6Th9Yj2Uk5Il8Om1Pn4Q","type":"message","role":"assistant","content":[{"type":"text","text":"Added `--dry-run`: `sync` now lists what it would copy and returns."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":6,"cache_creation_input_tokens":402,"cache_read_input_tokens":18130,"cache_creation":{"ephemeral_5m_input_tokens":402,"ephemeral_1h_input_tokens":0},"output_tokens":96,"service_tier":"standard"}},"requestId":"req_011CVu2Pq4Rs7Tu0Vw3Xy6Za","type":"assistant","uuid":"8a4f3c6d-1e5b-4f0a-8d9c-4b5e6f7a8b9c","timestamp":"2025-12-08T14:20:21.877Z"}
{"parentUuid":null,"logicalParentUuid":"8a4f3c6d-1e5b-4f0a-8d9c-4b5e6f7a8b9c","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2025-12-08T14:31:02.560Z","uuid":"9b5a4d7e-2f6c-4a1b-9e0d-5c6f7a8b9c0d","level":"info","compactMetadata":{"trigger":"auto","preTokens":155238}}
{"parentUuid":"9b5a4d7e-2f6c-4a1b-9e0d-5c6f7a8b9c0d","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: the user asked for a --dry-run flag on sync; it was added to src/sync.rs.\nPending: none."},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"0c6b5e8f-3a7d-4b2c-8f1e-6d7a8b9c0d1e","timestamp":"2025-12-08T14:31:02.561Z"}
{"parentUuid":"0c6b5e8f-3a7d-4b2c-8f1e-6d7a8b9c0d1e","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","type":"user","message":{"role":"user","content":"now make it print what it would do"},"uuid":"1d7c6f9a-4b8e-4c3d-9a2f-7e8b9c0d1e2f","timestamp":"2025-12-08T14:32:40.018Z","permissionMode":"default"}
{"parentUuid":"1d7c6f9a-4b8e-4c3d-9a2f-7e8b9c0d1e2f","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01Gs7Ui0Zk3Vl6Jm9Pn2Qo5R","type":"message","role":"assistant","content":[{"type":"text","text":"Print it how: one line per file, or a summary?"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":5120,"cache_read_input_tokens":11830,"cache_creation":{"ephemeral_5m_input_tokens":5120,"ephemeral_1h_input_tokens":0},"output_tokens":15,"service_tier":"standard"}},"requestId":"req_011CVu3Ab5Cd8Ef1Gh4Ij7Kl","type":"assistant","uuid":"2e8d7a0b-5c9f-4d4e-8b3a-8f9c0d1e2f3a","timestamp":"2025-12-08T14:32:43.902Z"}
{"parentUuid":"0c6b5e8f-3a7d-4b2c-8f1e-6d7a8b9c0d1e","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","type":"user","message":{"role":"user","content":"now make it print each file it would copy, one per line"},"uuid":"3f9e8b1c-6d0a-4e5f-9c4b-9a0d1e2f3a4b","timestamp":"2025-12-08T14:33:15.551Z","permissionMode":"default"}
{"parentUuid":"3f9e8b1c-6d0a-4e5f-9c4b-9a0d1e2f3a4b","isSidechain":false,"userType":"external","cwd":"/home/mira/src/tally","sessionId":"c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c","version":"2.0.61","gitBranch":"main","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01Ht8Vj1Al4Wm7Kn0Qo3Rp6S","type":"message","role":"assistant","content":[{"type":"text","text":"Done: `--dry-run` prints `would copy <path>` for each file."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":5160,"cache_read_input_tokens":11830,"cache_creation":{"ephemeral_5m_input_tokens":5160,"ephemeral_1h_input_tokens":0},"output_tokens":22,"service_tier":"standard"}},"requestId":"req_011CVu3Mn6Op9Qr2St5Uv8Wx","type":"assistant","uuid":"4a0f9c2d-7e1b-4f6a-8d5c-0b1e2f3a4b5c","timestamp":"2025-12-08T14:33:19.230Z"}
"#;

const CLAUDE_SUMMARY: &str = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\\nAnalysis: the user asked for a --dry-run flag on sync; it was added to src/sync.rs.\\nPending: none.";

fn claude(stop: StopPoint) -> RecordedSession {
    read_recorded_session(
        RolloutReader::new(
            Path::new("c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c.jsonl"),
            Cursor::new(CLAUDE_TRANSCRIPT),
        ),
        stop,
    )
    .unwrap()
}

#[test]
fn after_a_claude_compaction_and_a_rewind_the_history_is_the_summary_and_the_new_branch() {
    let recorded = claude(StopPoint::End);
    assert_eq!(recorded.format, RolloutFormat::ClaudeCode);
    assert_eq!(
        recorded.session_id.as_deref(),
        Some("c4f2a9e1-7b3d-4e8a-9c1f-2d3e4f5a6b7c")
    );
    assert_eq!(
        render_history(&recorded.items),
        format!(
            "00:message/user:{CLAUDE_SUMMARY}\n\
             01:message/user:now make it print each file it would copy, one per line\n\
             02:message/assistant:Done: `--dry-run` prints `would copy <path>` for each file."
        )
    );
    assert_eq!(recorded.compactions_in_file, Some(1));
    // The abandoned prompt and its answer, and the bookkeeping record.
    assert_eq!(recorded.ignored.get("abandoned-branch"), Some(&2));
    assert_eq!(recorded.ignored.get("file-history-snapshot"), Some(&1));
    // Three requests reached the transcript's path; the abandoned one is not counted here.
    assert_eq!(recorded.requests, 3);
    // No turn_context lines: the turns are the prompts the user typed on the path.
    assert_eq!((recorded.turns, recorded.user_turns), (2, 2));
    assert_eq!(recorded.reference_context_item, None);
}

#[test]
fn before_a_claude_compaction_the_history_is_the_conversation_so_far() {
    let recorded = claude(StopPoint::BeforeCompaction(1));
    assert_eq!(
        render_history(&recorded.items),
        "00:message/user:add a --dry-run flag to the sync command\n\
         01:function_call/-:Read {\"file_path\":\"/home/mira/src/tally/src/sync.rs\"}\n\
         02:function_call_output/-:     1→pub fn sync(args: &SyncArgs) -> Result<()> {\\n     2→    copy_all(&args.from, &args.to)\\n     3→}\n\
         03:message/assistant:Added `--dry-run`: `sync` now lists what it would copy and returns."
    );
    assert_eq!(recorded.last_line, 6);
    assert_eq!(recorded.compactions_applied, 0);
}

#[test]
fn claude_tool_results_are_kept_as_recorded() {
    let long = "y".repeat(30_000);
    let text = CLAUDE_TRANSCRIPT.replace(
        "     1→pub fn sync(args: &SyncArgs) -> Result<()> {\\n     2→    copy_all(&args.from, &args.to)\\n     3→}",
        &long,
    );
    let recorded = read_recorded_session(
        RolloutReader::new(Path::new("t.jsonl"), Cursor::new(text)),
        StopPoint::BeforeCompaction(1),
    )
    .unwrap();
    let kept = recorded.items.iter().find_map(|item| match item {
        ResponseItem::FunctionCallOutput { output, .. } => Some(output.text_content()),
        _ => None,
    });
    assert_eq!(kept, Some(long));
}
