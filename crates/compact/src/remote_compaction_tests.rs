use agentctx_context::ApproxTokenEstimator;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::compacted_history::render_history;
use crate::summary_prompt::summary_text;

fn item(value: serde_json::Value) -> ResponseItem {
    serde_json::from_value(value).unwrap()
}

fn compaction(blob: &str) -> ResponseItem {
    item(json!({"type": "compaction", "encrypted_content": blob}))
}

fn ghost(id: &str) -> ResponseItem {
    ResponseItem::GhostSnapshot {
        ghost_commit: json!({ "id": id }),
        extra: ExtraFields::new(),
    }
}

/// What `/responses/compact` may answer: the shape of its `output` as codex-rs reads it (the
/// user messages it kept, then the opaque compaction item), with the items a provider or an
/// older codex also returned that `should_keep_compacted_history_item` drops.
fn provider_history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::developer_text("<permissions instructions>stale</permissions instructions>"),
        ResponseItem::user_text(
            "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
        ),
        ResponseItem::user_text("Fix the flaky test in parser.rs"),
        item(json!({"type": "reasoning", "summary": [], "encrypted_content": "r1"})),
        ResponseItem::function_call("call_1", "shell", r#"{"command":["cargo","test"]}"#),
        ResponseItem::function_call_output("call_1", "ok"),
        ResponseItem::assistant_text("Fixed; the test passes."),
        ResponseItem::text_message("system", "system text"),
        item(json!({"type": "compaction_trigger"})),
        item(json!({"type": "context_compaction", "encrypted_content": "newer"})),
        ResponseItem::user_text("Now add a regression test"),
        compaction("gAAAA-opaque"),
    ]
}

#[test]
fn the_provider_history_is_filtered_as_codex_filters_it() {
    let kept: Vec<ResponseItem> = provider_history()
        .into_iter()
        .filter(should_keep_remote_item)
        .collect();
    insta::assert_snapshot!(render_history(&kept), @r"
    00:message/user:Fix the flaky test in parser.rs
    01:message/assistant:Fixed; the test passes.
    02:context_compaction/-:
    03:message/user:Now add a regression test
    04:compaction/-:
    ");
    // The summary of an earlier local compaction is the user's thread too: kept.
    assert!(should_keep_remote_item(&ResponseItem::user_text(
        summary_text("EARLIER")
    )));
    let mut injected = ResponseItem::user_text("a skill body");
    injected.set_injected(true);
    assert!(!should_keep_remote_item(&injected));
}

#[test]
fn mid_turn_the_initial_context_goes_before_the_last_user_message_and_carried_items_follow() {
    let carried = CarriedItems {
        model_switch: Some(ResponseItem::developer_text(
            "<model_switch>\nNow gpt-5.1\n</model_switch>",
        )),
        ghost_snapshots: vec![ghost("g1")],
    };
    let history = process_remote_history(
        provider_history(),
        vec![
            ResponseItem::developer_text("FRESH_PERMISSIONS"),
            ResponseItem::user_text("FRESH_AGENTS_MD"),
        ],
        InitialContextInjection::BeforeLastUserMessage,
        carried.clone(),
    );
    insta::assert_snapshot!(render_history(&history), @r"
    00:message/user:Fix the flaky test in parser.rs
    01:message/assistant:Fixed; the test passes.
    02:context_compaction/-:
    03:message/developer:FRESH_PERMISSIONS
    04:message/user:FRESH_AGENTS_MD
    05:message/user:Now add a regression test
    06:compaction/-:
    07:message/developer:<model_switch>\nNow gpt-5.1\n</model_switch>
    08:ghost_snapshot/-:
    ");
    // Pre-turn the next turn injects the initial context in full: none is put back.
    let pre_turn = process_remote_history(
        provider_history(),
        vec![ResponseItem::developer_text("FRESH_PERMISSIONS")],
        InitialContextInjection::DoNotInject,
        carried,
    );
    assert_eq!(pre_turn.len(), 7);
    assert!(
        pre_turn
            .iter()
            .all(|item| item.message_text().as_deref() != Some("FRESH_PERMISSIONS"))
    );
}

#[test]
fn the_request_carries_the_model_switch_and_ghosts_apart_and_trims_tool_outputs_to_the_window() {
    let output = "x".repeat(4_000);
    let history = vec![
        ResponseItem::user_text("Run the suite"),
        ghost("g1"),
        ResponseItem::function_call("call_1", "shell", "{}"),
        ResponseItem::function_call_output("call_1", &output),
        ResponseItem::developer_text("<model_switch>\nNow gpt-5.1\n</model_switch>"),
    ];
    let input = RemoteCompactionInput::new(&history, 0, "", &ApproxTokenEstimator);
    assert_eq!(input.trimmed, 0);
    assert_eq!(input.items.len(), 3);
    assert!(input.carried.model_switch.is_some());
    assert_eq!(input.carried.ghost_snapshots, vec![ghost("g1")]);

    // A window the output does not fit: the trailing output goes, the call and the user's
    // message stay (only harness-written items are trimmed, from the end).
    let trimmed = RemoteCompactionInput::new(&history, 200, "", &ApproxTokenEstimator);
    assert_eq!(trimmed.trimmed, 1);
    assert_eq!(
        render_history(&trimmed.items),
        "00:message/user:Run the suite\n01:function_call/-:shell {}"
    );
}

#[test]
fn the_readable_copy_is_the_offline_digest_and_reads_earlier_copies() {
    let mut earlier = compaction("gAAAA-earlier");
    earlier.set_readable_copy("EARLIER_COPY: the lexer was rewritten.");
    let replaced = vec![
        earlier,
        ResponseItem::user_text("Fix the flaky test in parser.rs"),
        ResponseItem::assistant_text("I'll pin the seed instead of retrying."),
    ];
    let copy = readable_copy(&replaced, 2_000);
    assert!(copy.contains("Fix the flaky test in parser.rs"), "{copy}");
    assert!(copy.contains("pin the seed"), "{copy}");
    assert!(
        copy.contains("EARLIER_COPY: the lexer was rewritten."),
        "{copy}"
    );
    assert!(!copy.contains("gAAAA"), "{copy}");
    // Deterministic: the same history gives the same bytes.
    assert_eq!(copy, readable_copy(&replaced, 2_000));
}
