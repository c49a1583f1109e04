use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn counts_real_tokens() {
    let estimator = O200kTokenEstimator::new();
    assert_eq!(estimator.estimate_text(""), 0);
    assert_eq!(estimator.estimate_text("hello world"), 2);
    // Repetitive text compresses far below the byte heuristic.
    let repeated = "=".repeat(4000);
    assert!(estimator.estimate_text(&repeated) < crate::approx_token_count(&repeated) / 2);
}

#[test]
fn items_count_their_visible_text_plus_framing() {
    let estimator = O200kTokenEstimator::default();
    assert_eq!(
        estimator.estimate_item(&ResponseItem::user_text("hello world")),
        2 + ITEM_OVERHEAD_TOKENS
    );
    let call = ResponseItem::function_call("c", "shell", "{}");
    assert_eq!(
        estimator.estimate_item(&call),
        estimator.estimate_text("shell") + estimator.estimate_text("{}") + ITEM_OVERHEAD_TOKENS
    );
}

#[test]
fn opaque_content_follows_the_heuristic_rules() {
    let estimator = O200kTokenEstimator::new();
    assert_eq!(
        estimator.estimate_item(&ResponseItem::GhostSnapshot {
            ghost_commit: json!({"id": "x"}),
            extra: ExtraFields::new(),
        }),
        0
    );
    let compaction = ResponseItem::Compaction {
        encrypted_content: "e".repeat(4000),
        extra: ExtraFields::new(),
    };
    assert_eq!(estimator.estimate_item(&compaction), 588);
    let image = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![ContentItem::InputImage {
            image_url: format!("data:image/png;base64,{}", "A".repeat(10_000)),
            detail: None,
        }],
        extra: ExtraFields::new(),
    };
    assert_eq!(
        estimator.estimate_item(&image),
        1_844 + ITEM_OVERHEAD_TOKENS
    );
}
