use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::*;

fn run(filter: &mut ResumeFilter, events: Vec<ResponseEvent>) -> Vec<ResponseEvent> {
    filter.new_attempt();
    events
        .into_iter()
        .filter_map(|event| filter.admit(event))
        .collect()
}

fn message(id: &str, text: &str) -> ResponseItem {
    let ResponseItem::Message {
        role,
        content,
        extra,
        ..
    } = ResponseItem::assistant_text(text)
    else {
        unreachable!("assistant_text builds a message")
    };
    ResponseItem::Message {
        id: Some(id.to_string()),
        role,
        content,
        extra,
    }
}

#[test]
fn replayed_items_and_partial_text_are_not_duplicated() {
    let mut filter = ResumeFilter::default();
    let first = run(
        &mut filter,
        vec![
            ResponseEvent::Created,
            ResponseEvent::OutputItemAdded(message("a", "")),
            ResponseEvent::OutputTextDelta("Hel".into()),
            ResponseEvent::OutputTextDelta("lo".into()),
            ResponseEvent::OutputItemDone(message("a", "Hello")),
            ResponseEvent::OutputItemAdded(message("b", "")),
            ResponseEvent::OutputTextDelta("Wor".into()),
        ],
    );
    assert_eq!(first.len(), 7);
    let second = run(
        &mut filter,
        vec![
            ResponseEvent::Created,
            ResponseEvent::OutputItemAdded(message("a2", "")),
            ResponseEvent::OutputTextDelta("Hello".into()),
            ResponseEvent::OutputItemDone(message("a2", "Hello")),
            ResponseEvent::OutputItemAdded(message("b2", "")),
            ResponseEvent::OutputTextDelta("W".into()),
            ResponseEvent::OutputTextDelta("orld".into()),
            ResponseEvent::OutputItemDone(message("b2", "World")),
            ResponseEvent::Completed {
                response_id: "r2".into(),
                token_usage: None,
            },
        ],
    );
    assert_eq!(
        second,
        vec![
            ResponseEvent::OutputTextDelta("ld".into()),
            ResponseEvent::OutputItemDone(message("b2", "World")),
            ResponseEvent::Completed {
                response_id: "r2".into(),
                token_usage: None,
            },
        ]
    );
    assert!(filter.completed());
}

#[test]
fn an_item_whose_id_was_delivered_is_skipped() {
    let mut filter = ResumeFilter::default();
    run(
        &mut filter,
        vec![ResponseEvent::OutputItemDone(message("same", "x"))],
    );
    // A replay that inserts a new item first would shift the count; the id still catches the
    // duplicate.
    let second = run(
        &mut filter,
        vec![
            ResponseEvent::OutputItemDone(message("new", "y")),
            ResponseEvent::OutputItemDone(message("same", "x")),
        ],
    );
    assert_eq!(second, vec![]);
}

#[test]
fn diverging_replay_passes_deltas_on() {
    let mut filter = ResumeFilter::default();
    run(
        &mut filter,
        vec![ResponseEvent::OutputTextDelta("abc".into())],
    );
    let second = run(
        &mut filter,
        vec![
            ResponseEvent::OutputTextDelta("ab".into()),
            ResponseEvent::OutputTextDelta("X".into()),
        ],
    );
    assert_eq!(second, vec![ResponseEvent::OutputTextDelta("X".into())]);
}

#[test]
fn kinds_are_tracked_separately_and_rate_limits_pass() {
    let mut filter = ResumeFilter::default();
    run(
        &mut filter,
        vec![
            ResponseEvent::ReasoningContentDelta("think".into()),
            ResponseEvent::OutputTextDelta("ans".into()),
        ],
    );
    let second = run(
        &mut filter,
        vec![
            ResponseEvent::RateLimits(crate::RateLimitSnapshot::default()),
            ResponseEvent::ReasoningContentDelta("think".into()),
            ResponseEvent::ReasoningSummaryDelta("sum".into()),
            ResponseEvent::OutputTextDelta("answer".into()),
        ],
    );
    assert_eq!(
        second,
        vec![
            ResponseEvent::RateLimits(crate::RateLimitSnapshot::default()),
            ResponseEvent::ReasoningSummaryDelta("sum".into()),
            ResponseEvent::OutputTextDelta("wer".into()),
        ]
    );
}
