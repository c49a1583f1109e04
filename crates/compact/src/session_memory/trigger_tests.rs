use std::time::Duration;
use std::time::Instant;

use pretty_assertions::assert_eq;

use super::ExtractionTrigger;
use super::TriggerObservation;
use crate::config::SessionMemoryConfig;

fn busy(context_tokens: u64) -> TriggerObservation {
    TriggerObservation {
        context_tokens,
        last_response_had_tool_calls: true,
    }
}

fn quiet(context_tokens: u64) -> TriggerObservation {
    TriggerObservation {
        context_tokens,
        last_response_had_tool_calls: false,
    }
}

/// A trigger whose first extraction has happened at `tokens`, checked `minutes` later.
fn after_first_extraction(tokens: u64) -> (ExtractionTrigger, Instant) {
    let mut trigger = ExtractionTrigger::new(&SessionMemoryConfig::default());
    let start = Instant::now();
    assert!(trigger.should_extract(quiet(tokens), start));
    let ticket = trigger.extraction_started(tokens, start);
    trigger.extraction_finished(ticket, true);
    (trigger, start + Duration::from_secs(61))
}

#[test]
fn nothing_is_extracted_below_5000_tokens() {
    let mut trigger = ExtractionTrigger::new(&SessionMemoryConfig::default());
    trigger.record_tool_calls(50);
    let now = Instant::now();
    assert!(!trigger.should_extract(quiet(4_999), now));
    assert!(!trigger.should_extract(busy(4_999), now));
    assert!(trigger.should_extract(quiet(5_000), now));
}

#[test]
fn the_first_extraction_needs_ten_tool_calls_while_the_model_is_busy() {
    let mut trigger = ExtractionTrigger::new(&SessionMemoryConfig::default());
    let now = Instant::now();
    trigger.record_tool_calls(9);
    assert!(!trigger.should_extract(busy(8_000), now));
    trigger.record_tool_calls(1);
    assert!(trigger.should_extract(busy(8_000), now));
}

#[test]
fn updates_need_5000_new_tokens_and_ten_tool_calls() {
    let (mut trigger, now) = after_first_extraction(6_000);
    trigger.record_tool_calls(10);
    assert!(
        !trigger.should_extract(busy(10_999), now),
        "4,999 new tokens"
    );
    assert!(trigger.should_extract(busy(11_000), now));

    let (mut trigger, now) = after_first_extraction(6_000);
    trigger.record_tool_calls(9);
    assert!(!trigger.should_extract(busy(50_000), now), "9 tool calls");
    trigger.record_tool_calls(1);
    assert!(trigger.should_extract(busy(50_000), now));
}

#[test]
fn a_quiet_point_stands_in_for_the_tool_calls_but_not_the_tokens() {
    let (mut trigger, now) = after_first_extraction(6_000);
    assert!(!trigger.should_extract(quiet(10_999), now));
    assert!(trigger.should_extract(quiet(11_000), now));
}

#[test]
fn never_while_compacting() {
    let (mut trigger, now) = after_first_extraction(6_000);
    trigger.record_tool_calls(100);
    trigger.begin_compaction();
    assert!(trigger.is_compacting());
    assert!(!trigger.should_extract(busy(100_000), now));
    assert!(!trigger.should_extract(quiet(100_000), now));
    trigger.end_compaction(40_000);
    assert!(trigger.should_extract(busy(100_000), now));
}

#[test]
fn growth_is_measured_from_the_compacted_size() {
    let (mut trigger, now) = after_first_extraction(90_000);
    trigger.begin_compaction();
    trigger.end_compaction(20_000);
    trigger.record_tool_calls(10);
    assert!(!trigger.should_extract(busy(24_999), now));
    assert!(trigger.should_extract(busy(25_000), now));
}

#[test]
fn never_while_another_extraction_runs_unless_it_is_stale() {
    let mut trigger = ExtractionTrigger::new(&SessionMemoryConfig::default());
    let start = Instant::now();
    trigger.record_tool_calls(10);
    let stale = trigger.extraction_started(6_000, start);
    trigger.record_tool_calls(10);
    let later = start + Duration::from_secs(59);
    assert!(trigger.is_extracting(later));
    assert!(!trigger.should_extract(busy(20_000), later));
    // After 60 s the extraction counts as abandoned.
    let much_later = start + Duration::from_secs(61);
    assert!(!trigger.is_extracting(much_later));
    assert!(trigger.should_extract(busy(20_000), much_later));
    let fresh = trigger.extraction_started(20_000, much_later);
    // The abandoned one finishing late changes nothing.
    trigger.extraction_finished(stale, true);
    assert!(trigger.is_extracting(much_later));
    assert_eq!(trigger.tool_calls_since_last_extraction(), 20);
    trigger.extraction_finished(fresh, true);
    assert_eq!(trigger.tool_calls_since_last_extraction(), 0);
}

#[test]
fn the_cooldown_spaces_extractions() {
    let mut trigger = ExtractionTrigger::new(&SessionMemoryConfig::default());
    let start = Instant::now();
    let ticket = trigger.extraction_started(6_000, start);
    trigger.extraction_finished(ticket, true);
    trigger.record_tool_calls(10);
    assert!(!trigger.should_extract(busy(20_000), start + Duration::from_secs(59)));
    assert!(trigger.should_extract(busy(20_000), start + Duration::from_secs(60)));
}

#[test]
fn a_failed_extraction_leaves_its_work_counted() {
    let mut trigger = ExtractionTrigger::new(&SessionMemoryConfig::default());
    let start = Instant::now();
    trigger.record_tool_calls(12);
    let ticket = trigger.extraction_started(8_000, start);
    trigger.record_tool_calls(3);
    trigger.extraction_finished(ticket, false);
    assert_eq!(trigger.tool_calls_since_last_extraction(), 15);
    assert!(trigger.should_extract(busy(8_000), start + Duration::from_secs(60)));
}

#[test]
fn tool_calls_made_during_an_extraction_count_for_the_next() {
    let mut trigger = ExtractionTrigger::new(&SessionMemoryConfig::default());
    let start = Instant::now();
    trigger.record_tool_calls(10);
    let ticket = trigger.extraction_started(8_000, start);
    trigger.record_tool_calls(4);
    trigger.extraction_finished(ticket, true);
    assert_eq!(trigger.tool_calls_since_last_extraction(), 4);
}

#[test]
fn disabled_extraction_never_triggers() {
    let config = SessionMemoryConfig {
        extraction_enabled: false,
        ..SessionMemoryConfig::default()
    };
    let mut trigger = ExtractionTrigger::new(&config);
    trigger.record_tool_calls(100);
    assert!(!trigger.should_extract(quiet(1_000_000), Instant::now()));
}
