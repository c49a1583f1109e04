use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::*;

#[test]
fn summarization_prompt_is_the_handoff_prompt() {
    insta::assert_snapshot!(SUMMARIZATION_PROMPT);
}

#[test]
fn summary_prefix_is_the_handoff_frame() {
    insta::assert_snapshot!(SUMMARY_PREFIX);
}

#[test]
fn summary_text_puts_the_prefix_and_a_newline_before_the_summary() {
    assert_eq!(
        summary_text("  did X\n"),
        format!("{SUMMARY_PREFIX}\ndid X\n\n{SUMMARY_RECALL_NOTE}")
    );
}

#[test]
fn the_summary_message_ends_with_the_way_back_through_recall() {
    insta::assert_snapshot!(summary_text("did X"));
    // A summary that already carries the note (a summary message summarised again) keeps one.
    assert_eq!(
        summary_text(&format!("did X\n\n{SUMMARY_RECALL_NOTE}")),
        summary_text("did X")
    );
}

#[test]
fn the_body_is_what_the_summariser_wrote() {
    assert_eq!(
        summary_body(&summary_text("did X\nthen Y")),
        "did X\nthen Y"
    );
    // A message without the note (an older recording) loses only the prefix.
    assert_eq!(summary_body(&format!("{SUMMARY_PREFIX}\ndid X")), "did X");
    assert_eq!(summary_body("not a summary"), "not a summary");
}

#[test]
fn an_empty_summary_says_none_is_available() {
    assert_eq!(
        summary_text(" \n"),
        format!("{SUMMARY_PREFIX}\n(no summary available)\n\n{SUMMARY_RECALL_NOTE}")
    );
    assert_eq!(summary_text(SUMMARY_RECALL_NOTE), summary_text(""));
}

#[test]
fn summary_messages_are_recognised_by_their_prefix_and_newline() {
    assert!(is_summary_message(&ResponseItem::user_text(summary_text(
        "s"
    ))));
    assert!(!is_summary_message(&ResponseItem::user_text(
        SUMMARY_PREFIX
    )));
    assert!(!is_summary_message(&ResponseItem::assistant_text(
        summary_text("s")
    )));
    assert!(!is_summary_message(&ResponseItem::user_text("hello")));
}
