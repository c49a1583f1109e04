use std::path::Path;

use pretty_assertions::assert_eq;

use super::page_name;

#[test]
fn page_names_are_numbered_and_safe_in_a_url() {
    assert_eq!(
        page_name(0, Path::new("/s/rollout-2025-11-24T09-31-07-019a.jsonl")),
        "s0001-rollout-2025-11-24T09-31-07-019a"
    );
    assert_eq!(
        page_name(41, Path::new("/p/a b?#<x>\"&.jsonl")),
        "s0042-a_b___x___"
    );
}
