use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn json_len(item: &ResponseItem) -> u64 {
    serde_json::to_string(item).unwrap().len() as u64
}

#[test]
fn text_is_bytes_over_four_rounded_up() {
    assert_eq!(approx_token_count(""), 0);
    assert_eq!(approx_token_count("a"), 1);
    assert_eq!(approx_token_count("abcd"), 1);
    assert_eq!(approx_token_count("abcde"), 2);
    // Multi-byte characters count by bytes: "é" is 2 bytes.
    assert_eq!(approx_token_count("éé"), 1);
    assert_eq!(approx_token_count("ééé"), 2);
    assert_eq!(ApproxTokenEstimator.estimate_text("abcdefgh"), 2);
    assert_eq!(approx_bytes_for_tokens(3), 12);
}

#[test]
fn plain_item_is_its_json_length() {
    let item = ResponseItem::user_text("hello world");
    assert_eq!(estimate_item_model_visible_bytes(&item), json_len(&item));
    assert_eq!(
        ApproxTokenEstimator.estimate_item(&item),
        json_len(&item).div_ceil(4)
    );
}

#[test]
fn unknown_item_is_its_json_length() {
    let item = ResponseItem::Other(json!({"type": "future_thing", "payload": "abc"}));
    assert_eq!(estimate_item_model_visible_bytes(&item), json_len(&item));
}

#[test]
fn ghost_snapshot_is_free() {
    let item = ResponseItem::GhostSnapshot {
        ghost_commit: json!({"id": "abc", "parent": "def", "preexisting_untracked_files": []}),
        extra: ExtraFields::new(),
    };
    assert_eq!(ApproxTokenEstimator.estimate_item(&item), 0);
}

#[test]
fn encrypted_reasoning_uses_the_length_rule() {
    let blob = "x".repeat(4000);
    let item = ResponseItem::Reasoning {
        id: None,
        summary: Vec::new(),
        content: None,
        encrypted_content: Some(blob),
        extra: ExtraFields::new(),
    };
    // 4000 * 3 / 4 - 650 = 2350 bytes -> 588 tokens.
    assert_eq!(estimate_item_model_visible_bytes(&item), 2350);
    assert_eq!(ApproxTokenEstimator.estimate_item(&item), 588);

    let small = ResponseItem::Compaction {
        encrypted_content: "short".to_string(),
        extra: ExtraFields::new(),
    };
    assert_eq!(estimate_item_model_visible_bytes(&small), 0);
}

#[test]
fn reasoning_without_blob_is_its_json_length() {
    let item = ResponseItem::Reasoning {
        id: None,
        summary: Vec::new(),
        content: None,
        encrypted_content: None,
        extra: ExtraFields::new(),
    };
    assert_eq!(estimate_item_model_visible_bytes(&item), json_len(&item));
}

#[test]
fn inline_images_count_a_fixed_size() {
    let payload = "A".repeat(100_000);
    let url = format!("data:image/png;base64,{payload}");
    let item = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![
            ContentItem::input_text("look"),
            ContentItem::InputImage {
                image_url: url.clone(),
                detail: None,
            },
        ],
        extra: ExtraFields::new(),
    };
    assert_eq!(
        estimate_item_model_visible_bytes(&item),
        json_len(&item) - 100_000 + IMAGE_BYTES_ESTIMATE
    );

    let output = ResponseItem::FunctionCallOutput {
        call_id: "c1".to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::ContentItems(vec![
                FunctionCallOutputContentItem::InputImage {
                    image_url: url.clone(),
                    detail: None,
                },
                FunctionCallOutputContentItem::InputImage {
                    image_url: url,
                    detail: None,
                },
            ]),
            success: Some(true),
        },
        extra: ExtraFields::new(),
    };
    assert_eq!(
        estimate_item_model_visible_bytes(&output),
        json_len(&output) - 200_000 + 2 * IMAGE_BYTES_ESTIMATE
    );
}

#[test]
fn remote_image_urls_count_as_text() {
    let item = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![ContentItem::InputImage {
            image_url: "https://example.com/cat.png".to_string(),
            detail: None,
        }],
        extra: ExtraFields::new(),
    };
    assert_eq!(estimate_item_model_visible_bytes(&item), json_len(&item));
    // A non-image data URL is not an image either.
    assert_eq!(
        inline_image_payload_len("data:text/plain;base64,QUJD"),
        None
    );
    assert_eq!(inline_image_payload_len("data:image/png,raw"), None);
    assert_eq!(
        inline_image_payload_len("data:IMAGE/jpeg;base64,QUJD"),
        Some(4)
    );
}

#[test]
fn an_inline_image_counts_as_codex_resized_image_estimate() {
    // codex-rs `RESIZED_IMAGE_BYTES_ESTIMATE`: 7,373 bytes, about 1,844 tokens per image.
    assert_eq!(IMAGE_BYTES_ESTIMATE, 7_373);
    assert_eq!(approx_tokens_from_byte_count(IMAGE_BYTES_ESTIMATE), 1_844);
}

#[test]
fn image_data_urls_are_recognised_whatever_the_case_of_their_markers() {
    for url in [
        "DATA:image/png;base64,QUJD",
        "Data:Image/PNG;BASE64,QUJD",
        "data:image/png;charset=utf-8;base64,QUJD",
    ] {
        assert_eq!(inline_image_payload_len(url), Some(4), "{url}");
    }
    assert_eq!(
        inline_image_payload_len("data:image/png;base64x,QUJD"),
        None
    );
    assert_eq!(inline_image_payload_len("dat"), None);
}

#[test]
fn estimate_items_sums() {
    let items = vec![
        ResponseItem::user_text("one"),
        ResponseItem::assistant_text("two"),
        ResponseItem::function_call("c1", "shell", "{}"),
    ];
    let sum: u64 = items
        .iter()
        .map(|item| ApproxTokenEstimator.estimate_item(item))
        .sum();
    assert_eq!(ApproxTokenEstimator.estimate_items(&items), sum);
}

#[test]
fn the_injected_mark_is_not_counted() {
    let plain = ResponseItem::user_text("Base directory for this skill: /s");
    let mut marked = plain.clone();
    marked.set_injected(true);
    assert_eq!(
        estimate_item_model_visible_bytes(&marked),
        estimate_item_model_visible_bytes(&plain)
    );
}
