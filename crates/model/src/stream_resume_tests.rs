use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::*;

fn run(state: &mut AttemptState, events: Vec<ResponseEvent>) -> Vec<ResponseEvent> {
    state.new_attempt();
    let mut out = Vec::new();
    for event in events {
        state.admit(event, &mut out);
    }
    out
}

#[test]
fn events_of_a_new_attempt_pass_untouched_except_a_second_created() {
    let mut state = AttemptState::default();
    let first = run(
        &mut state,
        vec![
            ResponseEvent::Created,
            ResponseEvent::OutputItemAdded(ResponseItem::assistant_text("")),
            ResponseEvent::OutputTextDelta("Hello wor".into()),
        ],
    );
    assert_eq!(first.len(), 3);
    assert_eq!(state.items_completed(), 0);

    let second_events = vec![
        ResponseEvent::Created,
        ResponseEvent::OutputItemAdded(ResponseItem::assistant_text("")),
        ResponseEvent::OutputTextDelta("Hi there".into()),
        ResponseEvent::OutputItemDone(ResponseItem::assistant_text("Hi there")),
        ResponseEvent::Completed {
            response_id: "r2".into(),
            token_usage: None,
        },
    ];
    let second = run(&mut state, second_events.clone());

    // Nothing is skipped or cut by position: the new sample arrives whole.
    assert_eq!(second, second_events[1..].to_vec());
    assert_eq!(state.items_completed(), 1);
    assert!(state.completed());
}

#[test]
fn a_new_attempt_forgets_the_usage_and_items_of_the_last() {
    let mut state = AttemptState::default();
    run(
        &mut state,
        vec![ResponseEvent::OutputItemDone(ResponseItem::assistant_text(
            "a",
        ))],
    );
    state.record_usage(Some(agentctx_protocol::TokenUsage {
        input_tokens: 10,
        ..agentctx_protocol::TokenUsage::default()
    }));
    assert_eq!(state.items_completed(), 1);
    assert_eq!(state.usage().map(|usage| usage.input_tokens), Some(10));

    state.new_attempt();

    assert_eq!(state.items_completed(), 0);
    assert_eq!(state.usage(), None);
}

#[test]
fn completed_is_delivered_once() {
    let mut state = AttemptState::default();
    let answer = ResponseEvent::OutputTextDelta("hi".into());
    let completed = ResponseEvent::Completed {
        response_id: "r".into(),
        token_usage: None,
    };
    assert_eq!(
        run(&mut state, vec![answer.clone(), completed.clone()]),
        vec![answer, completed.clone()]
    );
    assert_eq!(run(&mut state, vec![completed]), Vec::new());
}

#[test]
fn an_empty_answer_is_held_back_and_content_releases_it_in_order() {
    let mut state = AttemptState::default();
    let empty = ResponseEvent::OutputItemDone(ResponseItem::assistant_text(" "));
    let completed = ResponseEvent::Completed {
        response_id: "r".into(),
        token_usage: Some(agentctx_protocol::TokenUsage {
            input_tokens: 9,
            ..agentctx_protocol::TokenUsage::default()
        }),
    };
    let delivered = run(
        &mut state,
        vec![ResponseEvent::Created, empty.clone(), completed.clone()],
    );
    assert_eq!(delivered, vec![ResponseEvent::Created]);
    assert!(state.completed());
    assert!(state.answered_nothing());
    assert_eq!(state.items_completed(), 0);
    assert_eq!(state.usage().map(|usage| usage.input_tokens), Some(9));

    let call = ResponseEvent::OutputItemDone(ResponseItem::function_call("c", "shell", "{}"));
    let delivered = run(
        &mut state,
        vec![empty.clone(), call.clone(), completed.clone()],
    );
    assert_eq!(delivered, vec![empty, call, completed]);
    assert!(!state.answered_nothing());
    assert_eq!(state.items_completed(), 2);
}
