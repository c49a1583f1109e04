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
        format!("{SUMMARY_PREFIX}\ndid X")
    );
}

#[test]
fn an_empty_summary_says_none_is_available() {
    assert_eq!(
        summary_text(" \n"),
        format!("{SUMMARY_PREFIX}\n(no summary available)")
    );
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
