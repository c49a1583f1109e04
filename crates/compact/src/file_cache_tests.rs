use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;

fn paths(cache: &FileCache) -> Vec<PathBuf> {
    cache
        .most_recent_first()
        .map(|entry| entry.path.clone())
        .collect()
}

#[test]
fn the_least_recently_read_file_is_evicted_when_the_budget_is_exceeded() {
    let mut cache = FileCache::new(25, 100);
    cache.record_read("a.rs", &"a".repeat(40)); // 10 tokens
    cache.record_read("b.rs", &"b".repeat(40));
    cache.record_read("a.rs", &"a".repeat(40)); // a is now the newest
    cache.record_read("c.rs", &"c".repeat(40)); // 30 > 25: b goes
    assert_eq!(
        paths(&cache),
        vec![PathBuf::from("c.rs"), PathBuf::from("a.rs")]
    );
    assert_eq!(cache.total_tokens(), 20);
}

#[test]
fn a_file_over_the_per_file_limit_is_cut_and_marked() {
    let mut cache = FileCache::new(1_000, 10);
    cache.record_read("big.rs", &"x".repeat(400));
    let entry = cache.get(Path::new("big.rs")).expect("cached");
    assert!(entry.truncated);
    assert!(
        entry.content.contains("tokens truncated"),
        "{}",
        entry.content
    );
    assert!(entry.tokens < 30, "{}", entry.tokens);
}

#[test]
fn the_newest_file_stays_even_when_it_alone_exceeds_the_budget() {
    let mut cache = FileCache::new(5, 100);
    cache.record_read("a.rs", "aaaa");
    cache.record_read("b.rs", &"b".repeat(80));
    assert_eq!(paths(&cache), vec![PathBuf::from("b.rs")]);
}

#[test]
fn a_forgotten_file_frees_its_tokens() {
    let mut cache = FileCache::default();
    cache.record_read("a.rs", "aaaa");
    cache.forget(Path::new("a.rs"));
    assert!(cache.is_empty());
    assert_eq!(cache.total_tokens(), 0);
}

#[test]
fn the_defaults_are_five_thousand_per_file_and_fifty_thousand_in_all() {
    assert_eq!(MAX_TOKENS_PER_RESTORED_FILE, 5_000);
    assert_eq!(RESTORED_FILES_TOKEN_BUDGET, 50_000);
}
