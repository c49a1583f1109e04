use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn a_streamed_block_is_recorded_and_goes_back_as_it_came() {
    let mut block = CompactionBlock::start(&json!({ "type": "compaction", "content": null }));
    block.delta(
        &json!({ "type": "compaction_delta", "content": "Summary ", "encrypted_content": "old" }),
    );
    block.delta(
        &json!({ "type": "compaction_delta", "content": "complete", "encrypted_content": "final" }),
    );
    let item = block.into_item(format!("{ANTHROPIC_COMPACTION_ID_PREFIX}msg_1_0"));
    assert!(is_anthropic_compaction(&item));
    assert_eq!(anthropic_summary(&item), Some("Summary complete"));
    assert_eq!(
        compaction_block(&item),
        Some(
            json!({ "type": "compaction", "content": "Summary complete", "encrypted_content": "final" })
        )
    );
}

#[test]
fn a_block_without_opaque_state_goes_back_without_it() {
    let block = CompactionBlock::start(&json!({ "type": "compaction", "content": "All of it." }));
    let item = block.into_item(format!("{ANTHROPIC_COMPACTION_ID_PREFIX}msg_1_0"));
    assert_eq!(
        compaction_block(&item),
        Some(json!({ "type": "compaction", "content": "All of it." }))
    );
}

#[test]
fn an_openai_compaction_item_has_no_anthropic_block() {
    let item: ResponseItem = serde_json::from_value(
        json!({ "type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA" }),
    )
    .unwrap();
    assert!(!is_anthropic_compaction(&item));
    assert_eq!(compaction_block(&item), None);
    assert_eq!(anthropic_summary(&item), None);
}

#[test]
fn compaction_iterations_are_summed_apart_from_the_message() {
    let usage = json!({
        "input_tokens": 23000,
        "output_tokens": 1000,
        "iterations": [
            { "type": "compaction", "input_tokens": 180000, "output_tokens": 3500 },
            { "type": "message", "input_tokens": 23000, "output_tokens": 1000 }
        ]
    });
    assert_eq!(
        compaction_usage(Some(&usage)),
        Some(TokenUsage {
            input_tokens: 180_000,
            output_tokens: 3_500,
            total_tokens: 183_500,
            ..TokenUsage::default()
        })
    );
    assert_eq!(compaction_usage(Some(&json!({ "input_tokens": 5 }))), None);
}

#[test]
fn applied_edits_are_read_in_order() {
    let edits = applied_edits(Some(&json!({ "applied_edits": [
        { "type": "clear_thinking_20251015", "cleared_thinking_turns": 2, "cleared_input_tokens": 1500 },
        { "type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 8240 }
    ]})));
    assert_eq!(
        edits,
        vec![
            AppliedContextEdit {
                kind: "clear_thinking_20251015".to_string(),
                cleared_input_tokens: 1500,
                cleared_tool_uses: 0,
                cleared_thinking_turns: 2,
            },
            AppliedContextEdit {
                kind: "clear_tool_uses_20250919".to_string(),
                cleared_input_tokens: 8240,
                cleared_tool_uses: 3,
                cleared_thinking_turns: 0,
            },
        ]
    );
    assert!(applied_edits(None).is_empty());
}
