use pretty_assertions::assert_eq;

use super::*;

#[test]
fn defaults_are_the_documented_ones() {
    let config = SystemReminderConfig::default();
    assert!(config.enabled);
    assert_eq!(config.timeout_ms, Some(1_000));
    assert_eq!(config.changed_files_token_cap, 5_000);
    assert_eq!(config.placement, ReminderPlacement::Tail);
    assert!(!config.is_type_enabled(AttachmentType::TokenUsage));
}
