use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn config(text: &str) -> ContextManagementConfig {
    toml::from_str(text).unwrap()
}

#[test]
fn nothing_configured_sends_nothing() {
    let config = ContextManagementConfig::default();
    assert_eq!(config.responses_field(), None);
    assert_eq!(config.anthropic_field(true), None);
}

#[test]
fn responses_compaction_is_one_entry_with_its_threshold() {
    let config = config("compact_threshold = 200000");
    assert_eq!(
        config.responses_field(),
        Some(json!([{ "type": "compaction", "compact_threshold": 200000 }]))
    );
    assert_eq!(
        config.anthropic_field(true),
        None,
        "a responses-only setting"
    );
}

#[test]
fn anthropic_edits_list_thinking_first_and_name_their_betas() {
    let config = config(
        r#"
        clear_tool_uses = { trigger = { input_tokens = 30000 }, keep = 3, clear_at_least = 5000, exclude_tools = ["web_search"], clear_tool_inputs = false }
        clear_thinking = { keep = "all" }
        compaction = { trigger = 150000, pause_after_compaction = false, instructions = "Keep file paths." }
        "#,
    );
    let field = config.anthropic_field(true).unwrap();
    assert_eq!(
        field,
        json!({ "edits": [
            { "type": "clear_thinking_20251015", "keep": "all" },
            {
                "type": "clear_tool_uses_20250919",
                "trigger": { "type": "input_tokens", "value": 30000 },
                "keep": { "type": "tool_uses", "value": 3 },
                "clear_at_least": { "type": "input_tokens", "value": 5000 },
                "exclude_tools": ["web_search"],
                "clear_tool_inputs": false
            },
            {
                "type": "compact_20260112",
                "trigger": { "type": "input_tokens", "value": 150000 },
                "pause_after_compaction": false,
                "instructions": "Keep file paths."
            }
        ]})
    );
    let body = json!({ "context_management": field });
    assert_eq!(
        anthropic_betas(&body),
        vec![CONTEXT_MANAGEMENT_BETA, COMPACTION_BETA]
    );
}

#[test]
fn thinking_clearing_is_left_out_of_a_request_that_does_not_think() {
    let config = config("clear_thinking = { keep = 2 }");
    assert_eq!(config.anthropic_field(false), None);
    let field = config.anthropic_field(true).unwrap();
    assert_eq!(
        field,
        json!({ "edits": [{
            "type": "clear_thinking_20251015",
            "keep": { "type": "thinking_turns", "value": 2 }
        }]})
    );
    let body = json!({ "context_management": field });
    assert_eq!(anthropic_betas(&body), vec![CONTEXT_MANAGEMENT_BETA]);
}

#[test]
fn compaction_alone_needs_only_its_own_beta() {
    let config = config("compaction = {}");
    let field = config.anthropic_field(false).unwrap();
    assert_eq!(field, json!({ "edits": [{ "type": "compact_20260112" }] }));
    let body = json!({ "context_management": field });
    assert_eq!(anthropic_betas(&body), vec![COMPACTION_BETA]);
    assert!(anthropic_betas(&json!({ "model": "claude" })).is_empty());
}

#[test]
fn a_tool_use_trigger_and_an_overlay_merge_field_by_field() {
    let base =
        config("compact_endpoint = false\nclear_tool_uses = { trigger = { tool_uses = 10 } }");
    let overlay = config("compact_threshold = 100000");
    let merged = base.merged_with(&overlay);
    assert_eq!(merged.compact_endpoint, Some(false));
    assert_eq!(merged.compact_threshold, Some(100_000));
    assert_eq!(
        merged.clear_tool_uses.unwrap().trigger,
        Some(ClearTrigger::ToolUses(10))
    );
}

#[test]
fn an_unknown_key_is_refused() {
    assert!(toml::from_str::<ContextManagementConfig>("compact_treshold = 1").is_err());
}
