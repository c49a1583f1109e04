use agentctx_context::ApproxTokenEstimator;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::NotApplicable;
use super::SessionMemoryCompacted;
use super::SessionMemoryCompaction;
use super::try_session_memory_compact;
use crate::compacted_history::InitialContextInjection;
use crate::compacted_history::render_history;
use crate::config::CompactConfig;
use crate::session_memory::HistoryItemId;
use crate::session_memory::SessionMemoryMetadata;
use crate::session_memory::SessionMemoryStore;

const SUMMARY: &str = "## Current Task\nMake the lexer accept empty input.\n";

/// A history whose first turn reads three big files (about 6,000 tokens each).
fn history() -> Vec<ResponseItem> {
    let mut items = vec![ResponseItem::user_text(
        "Make the lexer accept empty input.",
    )];
    for n in 0..3 {
        let call = format!("read-{n}");
        items.push(ResponseItem::function_call(
            call.clone(),
            "read_file",
            format!(r#"{{"path":"src/file{n}.rs"}}"#),
        ));
        items.push(ResponseItem::function_call_output(call, "x".repeat(24_000)));
    }
    items.push(ResponseItem::assistant_text(
        "Found it: lex() slices input[0..1].",
    ));
    items.push(ResponseItem::user_text("Go ahead and fix it."));
    items.push(ResponseItem::function_call(
        "patch-1",
        "apply_patch",
        r#"{"path":"src/lexer.rs"}"#,
    ));
    items.push(ResponseItem::function_call_output("patch-1", "patched"));
    items
}

struct Fixture {
    _home: tempfile::TempDir,
    store: SessionMemoryStore,
}

fn fixture() -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "s").unwrap();
    Fixture { _home: home, store }
}

fn summarized_through(store: &SessionMemoryStore, items: &[ResponseItem], index: usize) {
    let metadata = SessionMemoryMetadata {
        last_summarized_id: HistoryItemId::of(items, index).unwrap().to_string(),
        last_extraction: Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap(),
        summary_token_count: 12,
        messages_summarized: index as u64 + 1,
    };
    store.write(SUMMARY, &metadata).unwrap();
}

fn compact_with(
    store: &SessionMemoryStore,
    config: &CompactConfig,
    items: &[ResponseItem],
) -> SessionMemoryCompaction {
    try_session_memory_compact(
        store,
        config,
        items,
        &[],
        InitialContextInjection::DoNotInject,
        &ApproxTokenEstimator,
    )
}

fn applied(result: SessionMemoryCompaction) -> SessionMemoryCompacted {
    match result {
        SessionMemoryCompaction::Applied(compacted) => compacted,
        SessionMemoryCompaction::NotApplicable(reason) => panic!("not applied: {reason:?}"),
    }
}

fn not_applicable(result: SessionMemoryCompaction) -> NotApplicable {
    match result {
        SessionMemoryCompaction::NotApplicable(reason) => reason,
        SessionMemoryCompaction::Applied(compacted) => {
            panic!("applied:\n{}", render_history(&compacted.history))
        }
    }
}

#[test]
fn the_summary_replaces_what_it_covers_and_the_rest_is_kept() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 7);

    let compacted = applied(compact_with(
        &fixture.store,
        &CompactConfig::default(),
        &items,
    ));

    insta::assert_snapshot!(render_history(&compacted.history));
    let outcome = compacted.outcome;
    assert_eq!(outcome.removed_items, 8);
    assert_eq!(outcome.kept_items, 3);
    assert_eq!(
        outcome.saved_tokens,
        outcome.tokens_before - outcome.tokens_after
    );
    assert!(outcome.saved_tokens >= 10_000, "{outcome:?}");
    assert_eq!(
        outcome.loop_event(),
        LoopEvent::SessionMemoryCompactApplied {
            saved_tokens: i32::try_from(outcome.saved_tokens).unwrap(),
            summary_tokens: i32::try_from(outcome.summary_tokens).unwrap(),
        }
    );
}

#[test]
fn the_10000_token_minimum_decides_both_ways() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 7);
    let mut config = CompactConfig::default();
    config.session_memory.min_compact_savings_tokens = 0;
    let saved = applied(compact_with(&fixture.store, &config, &items))
        .outcome
        .saved_tokens;

    config.session_memory.min_compact_savings_tokens = saved;
    applied(compact_with(&fixture.store, &config, &items));
    config.session_memory.min_compact_savings_tokens = saved + 1;
    assert_eq!(
        not_applicable(compact_with(&fixture.store, &config, &items)),
        NotApplicable::InsufficientSavings {
            saved_tokens: saved,
            min_tokens: saved + 1
        }
    );
}

#[test]
fn a_small_saving_falls_through_at_the_default_minimum() {
    let fixture = fixture();
    let items = history();
    // Only the first message and one read are covered: about 6,000 tokens.
    summarized_through(&fixture.store, &items, 2);
    let reason = not_applicable(compact_with(
        &fixture.store,
        &CompactConfig::default(),
        &items,
    ));
    let NotApplicable::InsufficientSavings {
        saved_tokens,
        min_tokens,
    } = reason
    else {
        panic!("{reason:?}");
    };
    assert_eq!(min_tokens, 10_000);
    assert!(
        saved_tokens < 10_000 && saved_tokens > 5_000,
        "{saved_tokens}"
    );
}

#[test]
fn a_call_whose_output_came_after_the_extraction_stays_with_it() {
    let fixture = fixture();
    let items = history();
    // The extraction ran between the patch call (9) and its output (10).
    summarized_through(&fixture.store, &items, 9);
    let compacted = applied(compact_with(
        &fixture.store,
        &CompactConfig::default(),
        &items,
    ));
    let rendered = render_history(&compacted.history);
    assert_eq!(
        rendered.lines().skip(1).collect::<Vec<_>>(),
        vec![
            "01:message/user:Go ahead and fix it.",
            r#"02:function_call/-:apply_patch {"path":"src/lexer.rs"}"#,
            "03:function_call_output/-:patched",
        ],
        "{rendered}"
    );
}

#[test]
fn the_latest_user_request_survives_when_the_summary_covers_it() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 10);
    let compacted = applied(compact_with(
        &fixture.store,
        &CompactConfig::default(),
        &items,
    ));
    let rendered = render_history(&compacted.history);
    assert_eq!(rendered.lines().count(), 2, "{rendered}");
    assert_eq!(
        rendered.lines().nth(1),
        Some("01:message/user:Go ahead and fix it.")
    );
    assert_eq!(compacted.outcome.kept_items, 0);
}

#[test]
fn mid_turn_the_initial_context_goes_before_the_last_user_message_and_carried_items_follow() {
    let fixture = fixture();
    let mut items = history();
    items.insert(
        1,
        ResponseItem::GhostSnapshot {
            ghost_commit: json!({"id": "ghost-1"}),
            extra: serde_json::Map::new(),
        },
    );
    items.push(ResponseItem::developer_text(
        "<model_switch>\nThe user switched the model.\n</model_switch>",
    ));
    // Through "Go ahead and fix it." (9, after the ghost snapshot at 1).
    summarized_through(&fixture.store, &items, 9);
    let initial_context = vec![ResponseItem::developer_text(
        "<permissions>workspace-write</permissions>",
    )];

    let compacted = applied(try_session_memory_compact(
        &fixture.store,
        &CompactConfig::default(),
        &items,
        &initial_context,
        InitialContextInjection::BeforeLastUserMessage,
        &ApproxTokenEstimator,
    ));

    let rendered = render_history(&compacted.history);
    let lines: Vec<&str> = rendered.lines().skip(1).collect();
    assert_eq!(
        lines,
        vec![
            "01:message/developer:<permissions>workspace-write</permissions>",
            "02:message/user:Go ahead and fix it.",
            r#"03:function_call/-:apply_patch {"path":"src/lexer.rs"}"#,
            "04:function_call_output/-:patched",
            r"05:message/developer:<model_switch>\nThe user switched the model.\n</model_switch>",
            "06:ghost_snapshot/-:",
        ],
        "{rendered}"
    );
}

#[test]
fn no_summary_or_no_metadata_falls_through() {
    let fixture = fixture();
    let items = history();
    let config = CompactConfig::default();
    assert_eq!(
        not_applicable(compact_with(&fixture.store, &config, &items)),
        NotApplicable::NoSummary
    );
    std::fs::create_dir_all(fixture.store.dir()).unwrap();
    std::fs::write(fixture.store.summary_path(), SUMMARY).unwrap();
    assert_eq!(
        not_applicable(compact_with(&fixture.store, &config, &items)),
        NotApplicable::NoMetadata
    );
}

#[test]
fn corrupt_metadata_falls_through() {
    let fixture = fixture();
    let items = history();
    let config = CompactConfig::default();
    summarized_through(&fixture.store, &items, 7);
    std::fs::write(fixture.store.metadata_path(), "{\"last_summarized_id\":").unwrap();
    assert!(matches!(
        not_applicable(compact_with(&fixture.store, &config, &items)),
        NotApplicable::CorruptMetadata { .. }
    ));
    std::fs::write(
        fixture.store.metadata_path(),
        r#"{"last_summarized_id":"seven","last_extraction":"2026-11-23T12:00:00Z","summary_token_count":1,"messages_summarized":1}"#,
    )
    .unwrap();
    assert!(matches!(
        not_applicable(compact_with(&fixture.store, &config, &items)),
        NotApplicable::CorruptMetadata { .. }
    ));
}

#[test]
fn stale_metadata_falls_through() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 7);
    // The history was rolled back to before the summarised item.
    let rolled_back = items[..5].to_vec();
    let reason = not_applicable(compact_with(
        &fixture.store,
        &CompactConfig::default(),
        &rolled_back,
    ));
    assert!(
        matches!(reason, NotApplicable::LastSummarizedNotFound { .. }),
        "{reason:?}"
    );
}

#[test]
fn an_empty_or_oversized_summary_falls_through() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 7);
    let mut config = CompactConfig::default();
    config.session_memory.max_summary_tokens = 10;
    assert!(matches!(
        not_applicable(compact_with(&fixture.store, &config, &items)),
        NotApplicable::SummaryTooLarge { max_tokens: 10, .. }
    ));
    std::fs::write(fixture.store.summary_path(), "  \n").unwrap();
    assert_eq!(
        not_applicable(compact_with(
            &fixture.store,
            &CompactConfig::default(),
            &items
        )),
        NotApplicable::InvalidSummary
    );
}

#[test]
fn switched_off_it_does_not_apply() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 7);
    let mut config = CompactConfig::default();
    config.session_memory.compact_enabled = false;
    assert_eq!(
        not_applicable(compact_with(&fixture.store, &config, &items)),
        NotApplicable::Disabled
    );
}

#[test]
fn moving_the_cut_back_for_one_call_keeps_the_calls_it_uncovers_too() {
    let fixture = fixture();
    let mut items = history();
    // Two parallel reads; the extraction ran after the output of `b` and before that of `a`.
    items.extend([
        ResponseItem::function_call("b", "read_file", r#"{"path":"b.rs"}"#),
        ResponseItem::function_call("a", "read_file", r#"{"path":"a.rs"}"#),
        ResponseItem::function_call_output("b", "b body"),
        ResponseItem::function_call_output("a", "a body"),
    ]);
    summarized_through(&fixture.store, &items, 13);
    let compacted = applied(compact_with(
        &fixture.store,
        &CompactConfig::default(),
        &items,
    ));
    let rendered = render_history(&compacted.history);
    assert_eq!(
        rendered.lines().skip(1).collect::<Vec<_>>(),
        vec![
            "01:message/user:Go ahead and fix it.",
            r#"02:function_call/-:read_file {"path":"b.rs"}"#,
            r#"03:function_call/-:read_file {"path":"a.rs"}"#,
            "04:function_call_output/-:b body",
            "05:function_call_output/-:a body",
        ],
        "{rendered}"
    );
}

#[test]
fn rebasing_points_last_summarized_id_into_the_new_history() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 10);
    let compacted = applied(compact_with(
        &fixture.store,
        &CompactConfig::default(),
        &items,
    ));
    // The summary, then the latest request it covers.
    assert_eq!(compacted.summary_covers_through, 1);

    compacted.rebase_store(&fixture.store).unwrap();

    let metadata = fixture.store.read_metadata().unwrap().unwrap();
    let id: HistoryItemId = metadata.last_summarized_id.parse().unwrap();
    assert_eq!(id.locate(&compacted.history), Some(1));
    assert_eq!(metadata.messages_summarized, 11, "only the id moves");
    // Compacting the compacted history again finds its place and has nothing worth saving.
    assert!(matches!(
        not_applicable(compact_with(
            &fixture.store,
            &CompactConfig::default(),
            &compacted.history
        )),
        NotApplicable::InsufficientSavings { .. }
    ));
}

#[test]
fn mid_turn_the_covered_item_is_found_after_the_initial_context() {
    let fixture = fixture();
    let items = history();
    summarized_through(&fixture.store, &items, 10);
    let initial_context = vec![
        ResponseItem::developer_text("<permissions>workspace-write</permissions>"),
        ResponseItem::developer_text("<environment_context>/repo</environment_context>"),
    ];
    let compacted = applied(try_session_memory_compact(
        &fixture.store,
        &CompactConfig::default(),
        &items,
        &initial_context,
        InitialContextInjection::BeforeLastUserMessage,
        &ApproxTokenEstimator,
    ));
    assert_eq!(compacted.summary_covers_through, 3);
    assert_eq!(
        compacted.history[3].message_text().as_deref(),
        Some("Go ahead and fix it.")
    );
}
