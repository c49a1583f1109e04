use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn compaction() -> ResponseItem {
    serde_json::from_value(json!({"type": "compaction", "encrypted_content": "gAAAA-opaque"}))
        .unwrap()
}

#[test]
fn the_copy_and_writer_are_kept_on_the_item_and_left_out_of_a_request() {
    let mut item = compaction();
    assert!(!item.has_harness_fields());
    item.set_readable_copy("The user asked for a fix; tests pass.");
    item.set_compaction_writer(json!({"wire_api": "responses", "host": "api.openai.com"}));
    assert_eq!(
        item.readable_copy(),
        Some("The user asked for a fix; tests pass.")
    );
    assert!(item.has_harness_fields());
    // The rollout keeps both fields ...
    let written = serde_json::to_value(&item).unwrap();
    assert_eq!(
        written[READABLE_COPY_FIELD],
        json!("The user asked for a fix; tests pass.")
    );
    let read: ResponseItem = serde_json::from_value(written).unwrap();
    assert_eq!(read, item);
    // ... and a provider request sends the item as the provider wrote it.
    assert_eq!(item.without_harness_fields(), compaction());
}

#[test]
fn the_copy_message_reads_as_an_earlier_summary() {
    let mut item = compaction();
    assert_eq!(item.readable_copy_message(), None);
    item.set_readable_copy("Done: the parser.");
    let message = item.readable_copy_message().unwrap();
    assert_eq!(message.role(), Some("user"));
    assert_eq!(
        message.message_text().unwrap(),
        format!("{COMPACTION_SUMMARY_PREFIX}\nDone: the parser.")
    );
    // Other items carry no copy.
    let mut user = ResponseItem::user_text("hi");
    user.set_readable_copy("x");
    assert_eq!(user.readable_copy(), None);
    assert!(!user.has_harness_fields());
}

#[test]
fn the_mode_is_spelled_in_snake_case_and_local_by_default() {
    assert_eq!(CompactMode::default(), CompactMode::Local);
    assert_eq!(
        serde_json::to_value([CompactMode::Local, CompactMode::Remote, CompactMode::Auto]).unwrap(),
        json!(["local", "remote", "auto"])
    );
}
