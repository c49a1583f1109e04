use agentctx_protocol::ExtraFields;
use serde_json::json;

use super::*;

#[test]
fn api_messages() {
    assert!(is_api_message(&ResponseItem::user_text("x")));
    assert!(is_api_message(&ResponseItem::developer_text("x")));
    assert!(!is_api_message(&ResponseItem::text_message("system", "x")));
    assert!(is_api_message(&ResponseItem::GhostSnapshot {
        ghost_commit: json!({}),
        extra: ExtraFields::new(),
    }));
    assert!(!is_api_message(&ResponseItem::Other(
        json!({"type": "future"})
    )));
}

#[test]
fn model_and_harness_generated() {
    assert!(is_model_generated_item(&ResponseItem::assistant_text("x")));
    assert!(is_model_generated_item(&ResponseItem::function_call(
        "c", "f", "{}"
    )));
    assert!(!is_model_generated_item(&ResponseItem::user_text("x")));
    assert!(!is_model_generated_item(
        &ResponseItem::function_call_output("c", "o")
    ));
}

#[test]
fn user_turn_boundaries_skip_contextual_messages() {
    assert!(is_user_turn_boundary(&ResponseItem::user_text("fix it")));
    assert!(!is_user_turn_boundary(&ResponseItem::user_text(
        "<environment_context>\n  <cwd>/r</cwd>\n</environment_context>"
    )));
    assert!(!is_user_turn_boundary(&ResponseItem::user_text(
        "<system-reminder>\nnote\n</system-reminder>"
    )));
    assert!(!is_user_turn_boundary(&ResponseItem::user_text(
        "# AGENTS.md instructions for /r\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>"
    )));
    assert!(!is_user_turn_boundary(&ResponseItem::assistant_text(
        "fix it"
    )));
}
