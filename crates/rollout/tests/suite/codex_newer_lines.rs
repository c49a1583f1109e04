//! The lines Codex 0.12x–0.14x writes beside the conversation: what the reader reads into items
//! and events, and what it passes on untyped and counts.
//!
//! The line types are upstream's `RolloutItem` variants (codex-rs `history/src/rollout_payload.rs`:
//! `session_meta`, `response_item`, `inter_agent_communication`,
//! `inter_agent_communication_metadata`, `compacted`, `turn_context`, `token_usage_record`,
//! `world_state`, `retained_context`, `security_risk_score`, `event_msg`, `realtime_item`).
//! `thread_settings_applied` is an `event_msg` (codex-rs `core/src/session/thread_settings.rs`,
//! `thread_settings_applied_event`), and `spawn_agent` and code mode's `exec` are tool calls of
//! the conversation (a `function_call` of the `collaboration` namespace, a `custom_tool_call`
//! whose input is the script), not line types.

use std::collections::BTreeMap;
use std::io::Write as _;

use agentctx_protocol::EventMsg;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;
use serde_json::Value;

/// A 0.145 session as its rollout holds it (texts shortened). `world_state` is the comparison
/// baseline of what the model was told (codex-rs `core/src/context/world_state/agents_md.rs`
/// keeps the AGENTS.md text in it); what the model saw is the `user` item rendered from it,
/// written as a `response_item` of its own.
const SESSION: &str = r##"{"timestamp":"2026-08-06T12:48:58.100Z","type":"session_meta","payload":{"id":"019f7a2c-1b2e-7d41-9a53-3c0e2f1d8a77","timestamp":"2026-08-06T12:48:58.100Z","cwd":"/work/app","originator":"codex_cli_rs","cli_version":"0.145.0","source":"cli","model_provider":"openai"}}
{"timestamp":"2026-08-06T12:48:58.186Z","type":"world_state","payload":{"full":true,"state":{"agents_md":{"directory":"/work/app","text":"Use pnpm here."},"collaboration_mode":"default","permissions":"32ca25d6"}}}
{"timestamp":"2026-08-06T12:48:58.187Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /work/app\n\n<INSTRUCTIONS>\nUse pnpm here.\n</INSTRUCTIONS>"}]}}
{"timestamp":"2026-08-06T12:48:58.190Z","type":"turn_context","payload":{"turn_id":"019f7a2c-1c00-7000-8000-000000000001","cwd":"/work/app","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write"},"model":"gpt-5.5","effort":"medium","summary":"auto"}}
{"timestamp":"2026-08-06T12:48:58.191Z","type":"event_msg","payload":{"type":"thread_settings_applied","thread_settings":{"model":"gpt-5.5","reasoning_effort":"medium","service_tier":"default","approval_policy":"on-request"}}}
{"timestamp":"2026-08-06T12:48:58.200Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"split the parser work"}]}}
{"timestamp":"2026-08-06T12:48:58.201Z","type":"event_msg","payload":{"type":"user_message","message":"split the parser work","images":[],"local_images":[],"text_elements":[]}}
{"timestamp":"2026-08-06T12:49:02.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_1","call_id":"call_spawn","namespace":"collaboration","name":"spawn_agent","arguments":"{\"task_name\":\"lexer\",\"message\":\"rewrite the lexer\",\"fork_turns\":\"none\"}"}}
{"timestamp":"2026-08-06T12:49:02.100Z","type":"inter_agent_communication_metadata","payload":{"trigger_turn":true}}
{"timestamp":"2026-08-06T12:49:02.200Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_spawn","output":"{\"agent_id\":\"019f7a2d-0000-7000-8000-000000000002\",\"nickname\":\"Boyle\"}"}}
{"timestamp":"2026-08-06T12:49:05.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_NDJ","name":"exec","input":"text(await tools.exec_command({cmd:\"uname -s\",max_output_tokens:1000}));\n"}}
{"timestamp":"2026-08-06T12:49:06.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_NDJ","output":[{"type":"input_text","text":"Script completed\nWall time 0.1 seconds\nOutput:\n"},{"type":"input_text","text":"Linux\n"}]}}
{"timestamp":"2026-08-06T12:49:06.100Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":15200,"cached_input_tokens":12000,"output_tokens":180,"reasoning_output_tokens":64,"total_tokens":15380},"last_token_usage":{"input_tokens":15200,"cached_input_tokens":12000,"output_tokens":180,"reasoning_output_tokens":64,"total_tokens":15380},"model_context_window":258400},"rate_limits":null}}
{"timestamp":"2026-08-06T12:49:08.000Z","type":"world_state","payload":{"full":false,"state":{"collaboration_mode":"default"}}}
"##;

fn read() -> agentctx_rollout::RolloutFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(SESSION.as_bytes()).unwrap();
    read_rollout(file.path()).unwrap()
}

#[test]
fn line_types_codex_adds_are_passed_on_and_counted() {
    let file = read();
    assert!(file.skipped.is_empty(), "{:?}", file.skipped);
    assert_eq!(file.records.len(), SESSION.lines().count());
    assert_eq!(
        file.ignored,
        BTreeMap::from([
            ("inter_agent_communication_metadata".to_string(), 1),
            ("world_state".to_string(), 2),
        ])
    );
    // Passed on as they are, so a host that writes lines back keeps them.
    let world_state = file.records.get(1).map(|record| &record.line.item);
    match world_state {
        Some(RolloutItem::Unknown { kind, payload }) => {
            assert_eq!(kind, "world_state");
            assert_eq!(
                payload.pointer("/state/agents_md/text"),
                Some(&Value::from("Use pnpm here."))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_conversation_items_of_newer_builds_are_read() {
    let file = read();
    let items: Vec<&ResponseItem> = file.items().collect();
    // The AGENTS.md text the model saw is the rendered item, read once.
    assert_eq!(items.len(), 6);
    match items[2] {
        ResponseItem::FunctionCall {
            name,
            call_id,
            extra,
            ..
        } => {
            assert_eq!(
                (name.as_str(), call_id.as_str()),
                ("spawn_agent", "call_spawn")
            );
            assert_eq!(extra.get("namespace"), Some(&Value::from("collaboration")));
        }
        other => panic!("{other:?}"),
    }
    match items[4] {
        ResponseItem::CustomToolCall { name, input, .. } => {
            assert_eq!(name, "exec");
            assert!(input.contains("tools.exec_command"));
        }
        other => panic!("{other:?}"),
    }
    match items[5] {
        ResponseItem::CustomToolCallOutput { output, .. } => {
            assert!(matches!(
                output.body,
                FunctionCallOutputBody::ContentItems(ref parts) if parts.len() == 2
            ));
            assert!(output.text_content().contains("Linux"));
        }
        other => panic!("{other:?}"),
    }
    // `thread_settings_applied` is an event of its own type, its settings kept.
    let settings = file
        .records
        .iter()
        .find_map(|record| match &record.line.item {
            RolloutItem::EventMsg(EventMsg::Other(value))
                if value.get("type") == Some(&Value::from("thread_settings_applied")) =>
            {
                value.pointer("/thread_settings/model").cloned()
            }
            _ => None,
        });
    assert_eq!(settings, Some(Value::from("gpt-5.5")));
}
