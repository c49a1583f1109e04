use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::RequestSegmenter;
use super::RequestStart;

fn call(id: &str) -> ResponseItem {
    ResponseItem::function_call(id, "shell", "{}")
}

fn output(id: &str) -> ResponseItem {
    ResponseItem::function_call_output(id, "ok")
}

#[test]
fn an_agentic_turn_is_one_request_per_run_of_model_items() {
    let mut segmenter = RequestSegmenter::new();
    segmenter.start_turn();
    let items = [
        ResponseItem::user_text("fix it"),
        call("a"),
        call("b"),
        output("a"),
        output("b"),
        call("c"),
        output("c"),
        ResponseItem::assistant_text("done"),
    ];
    let starts: Vec<(usize, RequestStart)> = items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| segmenter.observe(item).map(|start| (index, start)))
        .collect();
    assert_eq!(
        starts,
        vec![
            (
                1,
                RequestStart {
                    request: 1,
                    request_in_turn: 1,
                    has_user_input: true
                }
            ),
            (
                5,
                RequestStart {
                    request: 2,
                    request_in_turn: 2,
                    has_user_input: false
                }
            ),
            (
                7,
                RequestStart {
                    request: 3,
                    request_in_turn: 3,
                    has_user_input: false
                }
            ),
        ]
    );
    assert_eq!(segmenter.requests(), 3);
}

#[test]
fn a_new_turn_restarts_the_turn_count_and_carries_the_user_input_once() {
    let mut segmenter = RequestSegmenter::new();
    segmenter.start_turn();
    segmenter.observe(&ResponseItem::assistant_text("hi"));
    segmenter.start_turn();
    let first = segmenter.observe(&ResponseItem::assistant_text("again"));
    assert_eq!(
        first,
        Some(RequestStart {
            request: 2,
            request_in_turn: 1,
            has_user_input: true
        })
    );
    segmenter.observe(&output("x"));
    let second = segmenter.observe(&call("y"));
    assert_eq!(second.map(|start| start.has_user_input), Some(false));
}

#[test]
fn a_rewritten_history_ends_the_model_run() {
    let mut segmenter = RequestSegmenter::new();
    assert!(
        segmenter
            .observe(&ResponseItem::assistant_text("a"))
            .is_some()
    );
    assert!(
        segmenter
            .observe(&ResponseItem::assistant_text("b"))
            .is_none()
    );
    segmenter.history_rewritten();
    let start = segmenter.observe(&ResponseItem::assistant_text("c"));
    // Before any turn (a session prefix), no request carries user input.
    assert_eq!(
        start,
        Some(RequestStart {
            request: 2,
            request_in_turn: 2,
            has_user_input: false
        })
    );
}
