use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn the_ledger_lists_files_most_recently_read_first() {
    let mut ledger = ReadLedger::new();
    ledger.record_read("src/a.rs", "a");
    ledger.record_read("src/b.rs", "b");
    ledger.record_read("src/a.rs", "a2");
    insta::assert_snapshot!(ledger.render().expect("files were read"));
}

#[test]
fn an_empty_ledger_renders_nothing() {
    assert_eq!(ReadLedger::new().render(), None);
}

#[test]
fn a_changed_file_is_detected_by_its_hash() {
    let mut ledger = ReadLedger::new();
    ledger.record_read("a.rs", "fn main() {}");
    assert!(ledger.is_unchanged(Path::new("a.rs"), "fn main() {}"));
    assert!(!ledger.is_unchanged(Path::new("a.rs"), "fn main() { }"));
    assert!(!ledger.is_unchanged(Path::new("b.rs"), "fn main() {}"));
}

#[test]
fn the_content_hash_is_fnv1a_64() {
    // Published FNV-1a 64 test vectors.
    assert_eq!(content_hash(""), "cbf29ce484222325");
    assert_eq!(content_hash("a"), "af63dc4c8601ec8c");
}
