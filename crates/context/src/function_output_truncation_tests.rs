use agentctx_protocol::ExtraFields;
use pretty_assertions::assert_eq;

use super::*;

fn text(text: &str) -> FunctionCallOutputContentItem {
    FunctionCallOutputContentItem::InputText {
        text: text.to_string(),
    }
}

fn image(url: &str) -> FunctionCallOutputContentItem {
    FunctionCallOutputContentItem::InputImage {
        image_url: url.to_string(),
        detail: None,
    }
}

#[test]
fn items_share_one_budget_and_images_are_kept() {
    let items = vec![
        text(&"a".repeat(10)),
        image("data:image/png;base64,AAAA"),
        text(&"b".repeat(10)),
        text(""),
        text(&"c".repeat(10)),
        image("https://example.com/x.png"),
        text("d"),
    ];
    let out = truncate_function_output_items_with_policy(&items, TruncationPolicy::Bytes(15));
    assert_eq!(
        out,
        vec![
            text(&"a".repeat(10)),
            image("data:image/png;base64,AAAA"),
            text("bb…5 chars truncated…bbb"),
            image("https://example.com/x.png"),
            text("[omitted 2 text items ...]"),
        ]
    );
}

#[test]
fn token_policy_counts_tokens() {
    let items = vec![
        text(&"a".repeat(8)),
        text(&"b".repeat(8)),
        text(&"c".repeat(8)),
    ];
    let out = truncate_function_output_items_with_policy(&items, TruncationPolicy::Tokens(4));
    assert_eq!(
        out,
        vec![
            text(&"a".repeat(8)),
            text(&"b".repeat(8)),
            text("[omitted 1 text items ...]"),
        ]
    );
}

#[test]
fn everything_fits_unchanged() {
    let items = vec![text("one"), image("data:image/png;base64,AA"), text("two")];
    assert_eq!(
        truncate_function_output_items_with_policy(&items, TruncationPolicy::Tokens(100)),
        items
    );
}

#[test]
fn recorded_tool_outputs_get_twenty_percent_more() {
    // Tokens(10) * 1.2 = Tokens(12) = 48 bytes.
    let item = ResponseItem::function_call_output("c", "x".repeat(48));
    assert_eq!(
        truncate_tool_output_item(item.clone(), TruncationPolicy::Tokens(10)),
        item
    );
    let over = ResponseItem::CustomToolCallOutput {
        call_id: "c".to_string(),
        output: FunctionCallOutputPayload::text("x".repeat(49)),
        extra: ExtraFields::new(),
    };
    let ResponseItem::CustomToolCallOutput { output, .. } =
        truncate_tool_output_item(over, TruncationPolicy::Tokens(10))
    else {
        panic!("custom output stays a custom output");
    };
    assert_eq!(
        output.text_content(),
        format!("{}…1 tokens truncated…{}", "x".repeat(24), "x".repeat(24))
    );
}

#[test]
fn other_items_are_not_touched() {
    let item = ResponseItem::user_text("y".repeat(1000));
    assert_eq!(
        truncate_tool_output_item(item.clone(), TruncationPolicy::Bytes(1)),
        item
    );
}

#[test]
fn success_flag_survives() {
    let payload = FunctionCallOutputPayload {
        body: FunctionCallOutputBody::Text("z".repeat(100)),
        success: Some(false),
    };
    let out = truncate_function_output_payload(&payload, TruncationPolicy::Bytes(10));
    assert_eq!(out.success, Some(false));
}

#[test]
fn omitted_marker_text() {
    let items = vec![text("a"), text("b"), text("c")];
    let out = truncate_function_output_items_with_policy(&items, TruncationPolicy::Bytes(1));
    let rendered: Vec<String> = out
        .iter()
        .filter_map(|item| match item {
            FunctionCallOutputContentItem::InputText { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    insta::assert_snapshot!("omitted_text_items_marker", rendered.join("\n"));
}

#[test]
fn the_legacy_object_output_has_its_texts_truncated_and_keeps_its_other_fields() {
    let long = "x".repeat(100);
    let output: FunctionCallOutputPayload = serde_json::from_value(serde_json::json!({
        "content": long,
        "content_items": [{"type": "input_text", "text": long}],
        "success": true,
    }))
    .unwrap();
    let truncated = truncate_function_output_payload(&output, TruncationPolicy::Bytes(10));
    let expected: FunctionCallOutputPayload = serde_json::from_value(serde_json::json!({
        "content": "xxxxx…90 chars truncated…xxxxx",
        "content_items": [{"type": "input_text", "text": "xxxxx…90 chars truncated…xxxxx"}],
        "success": true,
    }))
    .unwrap();
    assert_eq!(truncated, expected);
    assert_eq!(truncated.success, Some(true));
}
