use agentctx_protocol::ExtraFields;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::summary_prompt::summary_text;

fn ghost(id: &str) -> ResponseItem {
    ResponseItem::GhostSnapshot {
        ghost_commit: json!({ "id": id }),
        extra: ExtraFields::new(),
    }
}

fn initial_context() -> Vec<ResponseItem> {
    vec![
        ResponseItem::developer_text("PERMISSIONS"),
        ResponseItem::user_text("AGENTS_MD"),
    ]
}

#[test]
fn mid_turn_puts_the_initial_context_before_the_last_user_message_and_the_summary_last() {
    let history = build_compacted_history(
        initial_context(),
        &["USER_ONE".to_string(), "USER_TWO".to_string()],
        &summary_text("MID_TURN_SUMMARY"),
        InitialContextInjection::BeforeLastUserMessage,
        CarriedItems::default(),
    );
    insta::assert_snapshot!(render_history(&history));
}

#[test]
fn pre_turn_leaves_the_initial_context_to_the_next_turn() {
    let history = build_compacted_history(
        initial_context(),
        &["USER_ONE".to_string(), "USER_TWO".to_string()],
        &summary_text("PRE_TURN_SUMMARY"),
        InitialContextInjection::DoNotInject,
        CarriedItems::default(),
    );
    insta::assert_snapshot!(render_history(&history));
}

#[test]
fn with_no_user_message_kept_the_initial_context_goes_before_the_summary() {
    let history = build_compacted_history(
        initial_context(),
        &[],
        &summary_text("S"),
        InitialContextInjection::BeforeLastUserMessage,
        CarriedItems::default(),
    );
    assert_eq!(history.len(), 3);
    assert_eq!(history[0], ResponseItem::developer_text("PERMISSIONS"));
    assert_eq!(history[2], ResponseItem::user_text(summary_text("S")));
}

#[test]
fn the_model_switch_and_ghost_snapshots_follow_the_summary() {
    let mut old = vec![
        ResponseItem::user_text("do it"),
        ghost("g1"),
        ResponseItem::assistant_text("ok"),
        ghost("g2"),
        ResponseItem::developer_text("<model_switch>\nnow gpt-5\n</model_switch>"),
    ];
    let carried = CarriedItems::take_from(&mut old);
    assert_eq!(old.len(), 4, "the model switch leaves the summary request");
    let history = build_compacted_history(
        Vec::new(),
        &["do it".to_string()],
        &summary_text("S"),
        InitialContextInjection::DoNotInject,
        carried,
    );
    insta::assert_snapshot!(render_history(&history));
}

#[test]
fn newest_user_messages_are_kept_whole_and_the_first_that_does_not_fit_is_truncated() {
    // 40 bytes = 10 tokens each; a budget of 25 keeps the two newest whole and 5 tokens of
    // the third, and stops.
    let messages: Vec<String> = ["a", "b", "c", "d"]
        .iter()
        .map(|letter| letter.repeat(40))
        .collect();
    let selected = select_recent_user_messages(&messages, 25);
    assert_eq!(selected.len(), 3);
    assert_eq!(selected[1], messages[2]);
    assert_eq!(selected[2], messages[3]);
    assert!(selected[0].starts_with("bbbbbbbbbb"), "{}", selected[0]);
    assert!(selected[0].contains("tokens truncated"), "{}", selected[0]);
    assert!(selected[0].len() < 40 + MAX_MARKER_BYTES);
}

const MAX_MARKER_BYTES: usize = agentctx_context::MAX_TRUNCATION_MARKER_BYTES;

#[test]
fn user_messages_within_the_budget_are_all_kept_in_order() {
    let messages = vec!["first".to_string(), "second".to_string()];
    assert_eq!(
        select_recent_user_messages(&messages, COMPACT_USER_MESSAGE_MAX_TOKENS),
        messages
    );
}

#[test]
fn the_user_message_budget_is_twenty_thousand_tokens() {
    // 30,000 tokens of user text in 3 messages: the newest two (20,000) are kept whole.
    let messages: Vec<String> = ["x", "y", "z"].iter().map(|c| c.repeat(40_000)).collect();
    let history = build_compacted_history(
        Vec::new(),
        &messages,
        &summary_text("S"),
        InitialContextInjection::DoNotInject,
        CarriedItems::default(),
    );
    let texts: Vec<String> = history
        .iter()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert_eq!(texts.len(), 3);
    assert_eq!(texts[0], messages[1]);
    assert_eq!(texts[1], messages[2]);
}
