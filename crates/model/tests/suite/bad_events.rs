//! An event whose payload is not JSON, in the middle of a real stream of each provider: the
//! turn ends with a clear error naming the event, the items completed before it are delivered
//! once, and the request is not sent again (a garbled payload is not a network fault that a new
//! sample would cure, and retrying after an item completed would duplicate it).

use agentctx_model::ModelError;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::support::Loopback;
use super::support::client;
use super::support::collect;
use super::support::done_items;
use super::support::fixture;
use super::support::loopback;
use super::support::provider;
use super::support::rich_prompt;

/// `body` with the payload of its `index`-th event (0-based, counting from the end when
/// negative) replaced by a JSON object cut short.
fn garble_event(body: &str, from_end: usize) -> String {
    let mut events: Vec<String> = body.split("\n\n").map(str::to_owned).collect();
    // The split leaves an empty piece after the last event.
    let last = events
        .iter()
        .rposition(|event| !event.trim().is_empty())
        .unwrap();
    let target = &mut events[last - from_end];
    let data_at = target.find("data: ").unwrap() + "data: ".len();
    target.replace_range(data_at.., r#"{"type":"garbled","#);
    events.join("\n\n")
}

async fn run(
    wire_api: WireApi,
    fixture_name: &str,
    from_end: usize,
) -> (Vec<Value>, ModelError, Vec<Value>, usize) {
    let whole = fixture(fixture_name);
    let full_server = loopback(vec![Loopback::Full(whole.clone())]).await;
    let (events, error) = collect(
        &client(provider(wire_api, &full_server.base_url), "model"),
        &rich_prompt(wire_api),
    )
    .await;
    assert_eq!(error, None);
    let all_items = done_items(&events);

    let server = loopback(vec![
        Loopback::Full(garble_event(&whole, from_end)),
        Loopback::Full(whole),
    ])
    .await;
    let (events, error) = collect(
        &client(provider(wire_api, &server.base_url), "model"),
        &rich_prompt(wire_api),
    )
    .await;
    let requests = server.requests.lock().unwrap().len();
    (
        done_items(&events),
        error.expect("a garbled event is an error"),
        all_items,
        requests,
    )
}

fn assert_clear_error(error: &ModelError) {
    let ModelError::Decode { what, message } = error else {
        panic!("expected a decode error, got {error:?}");
    };
    assert!(what.starts_with("sse event"), "{what}");
    assert!(message.contains(r#"{"type":"garbled","#), "{message}");
}

#[tokio::test(start_paused = true)]
async fn responses_garbled_event_is_a_clear_error_without_duplicates() {
    // The event before `response.completed`: every item has completed by then.
    let (items, error, all_items, requests) =
        run(WireApi::Responses, "responses_tool_call.sse", 1).await;
    assert_clear_error(&error);
    assert_eq!(requests, 1);
    assert!(all_items.starts_with(&items), "{items:?}");
}

#[tokio::test(start_paused = true)]
async fn chat_garbled_chunk_is_a_clear_error_without_duplicates() {
    // The usage chunk after `finish_reason`, before `[DONE]`.
    let (items, error, all_items, requests) = run(WireApi::Chat, "chat_tool_call.sse", 1).await;
    assert_clear_error(&error);
    assert_eq!(requests, 1);
    assert!(all_items.starts_with(&items), "{items:?}");
}

#[tokio::test(start_paused = true)]
async fn anthropic_garbled_event_is_a_clear_error_without_duplicates() {
    // `message_delta`, after every content block stopped.
    let (items, error, all_items, requests) =
        run(WireApi::Anthropic, "anthropic_tool_use.sse", 1).await;
    assert_clear_error(&error);
    assert_eq!(requests, 1);
    assert!(all_items.starts_with(&items), "{items:?}");
}
