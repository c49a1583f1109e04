use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::HistoryItemId;

fn history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::user_text("fix the parser"),
        ResponseItem::assistant_text("ok"),
        ResponseItem::function_call("c1", "shell", r#"{"command":["ls"]}"#),
        ResponseItem::function_call_output("c1", "src"),
        ResponseItem::assistant_text("ok"),
    ]
}

#[test]
fn id_round_trips_through_its_text_form() {
    let id = HistoryItemId::of(&history(), 2).unwrap();
    let text = id.to_string();
    assert!(text.starts_with("2:"), "{text}");
    assert_eq!(text.len(), 2 + 16);
    assert_eq!(text.parse::<HistoryItemId>().unwrap(), id);
}

#[test]
fn malformed_ids_are_rejected() {
    for text in [
        "",
        "2",
        "x:0123456789abcdef",
        "2:0123",
        "2:zz23456789abcdef",
    ] {
        assert!(text.parse::<HistoryItemId>().is_err(), "{text:?}");
    }
}

#[test]
fn locate_finds_the_item_where_it_was_named() {
    let items = history();
    let id = HistoryItemId::of(&items, 4).unwrap();
    // Two items say "ok"; the index tells them apart.
    assert_eq!(id.locate(&items), Some(4));
    assert_eq!(
        HistoryItemId::of(&items, 1).unwrap().locate(&items),
        Some(1)
    );
}

#[test]
fn locate_follows_a_unique_item_after_the_front_was_shortened() {
    let items = history();
    let id = HistoryItemId::of(&items, 3).unwrap();
    let shortened = items[2..].to_vec();
    assert_eq!(id.locate(&shortened), Some(1));
}

#[test]
fn locate_refuses_to_guess_between_duplicates_or_a_missing_item() {
    let items = history();
    let ok = HistoryItemId::of(&items, 4).unwrap();
    let shortened = items[1..].to_vec();
    assert_eq!(
        ok.locate(&shortened),
        None,
        "two \"ok\" messages, none at index 4"
    );
    let gone = HistoryItemId::of(&items, 0).unwrap();
    assert_eq!(gone.locate(&items[1..]), None);
}

#[test]
fn the_injected_mark_does_not_change_the_id() {
    let mut items = history();
    let id = HistoryItemId::of(&items, 0).unwrap();
    items[0].set_injected(true);
    assert_eq!(HistoryItemId::of(&items, 0).unwrap(), id);
}
