use pretty_assertions::assert_eq;

use super::*;

#[test]
fn unthrottled_types_fire_every_turn() {
    let manager = ThrottleManager::new();
    let config = default_throttle_config(AttachmentType::ChangedFiles);
    for turn in 1..4 {
        assert!(manager.should_generate(AttachmentType::ChangedFiles, &config, turn, None));
        manager.mark_generated(AttachmentType::ChangedFiles, turn);
    }
    assert_eq!(manager.session_count(AttachmentType::ChangedFiles), 3);
}
