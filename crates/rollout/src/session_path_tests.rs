use pretty_assertions::assert_eq;

use super::*;

#[test]
fn rollout_file_times_parse_only_from_rollout_names() {
    assert_eq!(
        parse_rollout_file_time("rollout-2025-11-02T09-00-00-0199a2b4.jsonl")
            .map(|time| time.to_string()),
        Some("2025-11-02 09:00:00".to_string())
    );
    assert_eq!(parse_rollout_file_time("7f3c9d2e.jsonl"), None);
    assert_eq!(parse_rollout_file_time("rollout-garbage.jsonl"), None);
}
