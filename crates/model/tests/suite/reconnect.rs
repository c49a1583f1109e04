//! Streams that drop or stall mid-way are re-requested, and the consumer sees every event
//! exactly once: the events equal those of an undisturbed stream.

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::method;

use super::support::Loopback;
use super::support::client;
use super::support::collect;
use super::support::cut_after;
use super::support::fixture;
use super::support::loopback;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::text_deltas;
use super::support::trace;

/// The events of the fixture served whole.
async fn undisturbed(wire_api: WireApi, body: &str) -> Vec<ResponseEvent> {
    let server = loopback(vec![Loopback::Full(body.to_string())]).await;
    let (events, error) = collect(
        &client(provider(wire_api, &server.base_url), "model"),
        &rich_prompt(wire_api),
    )
    .await;
    assert_eq!(error, None);
    events
}

async fn dropped_then_whole(wire_api: WireApi, fixture_name: &str, marker: &str) {
    let body = fixture(fixture_name);
    let expected = undisturbed(wire_api, &body).await;
    // Cut 25 bytes into the event after the marker: a partial event line is lost.
    let server = loopback(vec![
        Loopback::Cut(cut_after(&body, marker, 25)),
        Loopback::Full(body.clone()),
    ])
    .await;
    let client = client(provider(wire_api, &server.base_url), "model");

    let (events, error) = collect(&client, &rich_prompt(wire_api)).await;

    assert_eq!(error, None);
    assert_eq!(trace(&events), trace(&expected));
    assert_eq!(events, expected);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0], requests[1]);
}

#[tokio::test(start_paused = true)]
async fn responses_drop_after_partial_text() {
    dropped_then_whole(
        WireApi::Responses,
        "responses_tool_call.sse",
        r#""delta":"Let me list ""#,
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn responses_drop_after_a_completed_item() {
    dropped_then_whole(
        WireApi::Responses,
        "responses_tool_call.sse",
        "\"sequence_number\":14,",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn chat_drop_while_tool_call_arguments_stream() {
    dropped_then_whole(
        WireApi::Chat,
        "chat_tool_call.sse",
        r#"{\"command\": [\"ls\", "#,
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn anthropic_drop_after_thinking_and_partial_text() {
    dropped_then_whole(
        WireApi::Anthropic,
        "anthropic_tool_use.sse",
        r#""text":"Let me list ""#,
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn stalled_stream_hits_the_idle_timeout_and_reconnects() {
    let body = fixture("responses_tool_call.sse");
    let expected = undisturbed(WireApi::Responses, &body).await;
    let server = loopback(vec![
        Loopback::Stall(cut_after(&body, "\"sequence_number\":7,", 0)),
        Loopback::Full(body.clone()),
    ])
    .await;
    let mut provider = provider(WireApi::Responses, &server.base_url);
    provider.stream_idle_timeout_ms = Some(5_000);
    let client = client(provider, "model");
    let started = tokio::time::Instant::now();

    let (events, error) = collect(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(error, None);
    assert_eq!(events, expected);
    assert!(started.elapsed() >= std::time::Duration::from_secs(5));
}

#[tokio::test(start_paused = true)]
async fn reconnects_are_bounded() {
    let body = fixture("responses_tool_call.sse");
    let partial = cut_after(&body, r#""delta":"Let me list ""#, 0);
    let server = loopback(vec![
        Loopback::Cut(partial.clone()),
        Loopback::Cut(partial.clone()),
        Loopback::Cut(partial),
    ])
    .await;
    // stream_max_retries = 2: three connections, then the error.
    let client = client(provider(WireApi::Responses, &server.base_url), "model");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Responses)).await;

    assert!(
        matches!(error, Some(ModelError::StreamDisconnected { .. })),
        "{error:?}"
    );
    assert_eq!(text_deltas(&events), "Let me list ");
    assert_eq!(
        trace(&events)
            .iter()
            .filter(|kind| *kind == "done:reasoning")
            .count(),
        1
    );
    assert_eq!(server.requests.lock().unwrap().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn anthropic_overloaded_event_mid_stream_is_retried_without_duplicates() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_overloaded.sse")))
        .up_to_n_times(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_tool_use.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let expected = undisturbed(WireApi::Anthropic, &fixture("anthropic_tool_use.sse")).await;
    let client = client(provider(WireApi::Anthropic, &server.uri()), "model");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(error, None);
    assert_eq!(events, expected);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_consumer_causes_no_reconnect() {
    let body = fixture("responses_tool_call.sse");
    let server = loopback(vec![
        Loopback::Cut(cut_after(&body, "response.output_text.delta", 25)),
        Loopback::Full(body.clone()),
    ])
    .await;
    let client = client(provider(WireApi::Responses, &server.base_url), "model");

    let mut stream = client
        .stream(&rich_prompt(WireApi::Responses))
        .await
        .unwrap();
    let first = futures::StreamExt::next(&mut stream).await;
    assert!(matches!(first, Some(Ok(_))), "{first:?}");
    drop(stream);
    // Far past any backoff: a reconnect would have happened by now.
    tokio::time::sleep(std::time::Duration::from_secs(600)).await;

    assert_eq!(server.requests.lock().unwrap().len(), 1);
}
