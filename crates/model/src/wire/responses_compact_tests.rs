use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn the_output_is_the_compacted_history_as_it_came() {
    let body = json!({
        "id": "resp_compact_1",
        "object": "response.compaction",
        "created_at": 1_700_000_000,
        "output": [
            { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "fix the bug" }] },
            { "type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA-opaque" }
        ],
        "usage": { "input_tokens": 15000, "output_tokens": 1200, "total_tokens": 16200 }
    });
    let items = parse_compact_response(body.to_string().as_bytes()).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].message_text().as_deref(), Some("fix the bug"));
    assert_eq!(
        serde_json::to_value(&items[1]).unwrap(),
        json!({ "type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA-opaque" })
    );
}

#[test]
fn a_body_without_output_is_a_decode_error() {
    let error = parse_compact_response(br#"{"object":"response.compaction"}"#).unwrap_err();
    assert!(
        matches!(&error, ModelError::Decode { what, .. } if what == "responses/compact body"),
        "{error:?}"
    );
}
