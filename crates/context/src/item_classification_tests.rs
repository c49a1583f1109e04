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
