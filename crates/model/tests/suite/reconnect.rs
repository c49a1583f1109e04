//! Streams that drop or stall mid-way, against servers that behave like real ones: a request
//! sent again (`store: false`) is a new sample, with new ids, other items and other text. The
//! consumer's history must equal exactly one of the server's answers, never a splice of two.

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::Value;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::method;

use super::support::Loopback;
use super::support::client;
use super::support::collect;
use super::support::cut_after;
use super::support::done_items;
use super::support::fixture;
use super::support::loopback;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::text_deltas;

/// What a consumer that honours the stream's contract ends up with after one turn.
#[derive(Debug, Default)]
struct Turn {
    /// The completed items, in order: what goes into the conversation history.
    history: Vec<Value>,
    /// The assistant text shown while streaming, after any reset.
    text: String,
    /// The reasoning summary shown while streaming, after any reset.
    summary: String,
    /// Times the whole turn was sent again because the stream asked for it.
    restarts: usize,
    /// Attempts the stream abandoned and reported.
    abandoned: usize,
    /// The error that ended the turn, if any.
    error: Option<ModelError>,
}

/// Runs one turn like an agent loop does: items go to the history, deltas to the screen; an
/// abandoned attempt clears what was shown of it; an error that asks for the turn to be redone
/// throws the turn's items away and sends the prompt again (at most twice).
async fn run_turn(client: &dyn ModelClient, prompt: &Prompt<'_>) -> Turn {
    let mut turn = Turn::default();
    'attempts: for _ in 0..3 {
        turn.history.clear();
        turn.text.clear();
        turn.summary.clear();
        let mut stream = client.stream(prompt).await.unwrap();
        while let Some(event) = stream.next().await {
            match event {
                Ok(ResponseEvent::OutputItemDone(item)) => {
                    turn.history.push(serde_json::to_value(item).unwrap());
                }
                Ok(ResponseEvent::OutputTextDelta(piece)) => turn.text.push_str(&piece),
                Ok(ResponseEvent::ReasoningSummaryDelta(piece)) => turn.summary.push_str(&piece),
                Ok(ResponseEvent::AttemptAbandoned { .. }) => {
                    turn.abandoned += 1;
                    turn.text.clear();
                    turn.summary.clear();
                }
                Ok(_) => {}
                Err(error) if error.requires_turn_restart() => {
                    turn.restarts += 1;
                    continue 'attempts;
                }
                Err(error) => {
                    turn.error = Some(error);
                    return turn;
                }
            }
        }
        return turn;
    }
    turn
}

/// The completed items of `body` served whole.
async fn items_of(wire_api: WireApi, body: &str) -> Vec<Value> {
    let server = loopback(vec![Loopback::Full(body.to_string())]).await;
    let (events, error) = collect(
        &client(provider(wire_api, &server.base_url), "model"),
        &rich_prompt(wire_api),
    )
    .await;
    assert_eq!(error, None);
    done_items(&events)
}

#[tokio::test(start_paused = true)]
async fn responses_drop_after_a_completed_item_redoes_the_turn_whole() {
    let first = fixture("responses_tool_call.sse");
    let second = fixture("responses_second_sample.sse");
    // The first answer breaks inside its message, after its reasoning item completed.
    let server = loopback(vec![
        Loopback::Cut(cut_after(&first, r#""delta":"Let me list ""#, 25)),
        Loopback::Full(second.clone()),
    ])
    .await;
    let client = client(provider(WireApi::Responses, &server.base_url), "model");

    let turn = run_turn(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(turn.error, None);
    assert_eq!(turn.history, items_of(WireApi::Responses, &second).await);
    assert_eq!(turn.text, "Hi there");
    assert_eq!(turn.restarts, 1);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0], requests[1]);
}

#[tokio::test(start_paused = true)]
async fn responses_drop_before_any_item_completed_resumes_with_the_new_sample() {
    let first = fixture("responses_tool_call.sse");
    let second = fixture("responses_second_sample.sse");
    // Half of the first reasoning summary was shown; nothing completed.
    let server = loopback(vec![
        Loopback::Cut(cut_after(&first, "\"sequence_number\":4,", 25)),
        Loopback::Full(second.clone()),
    ])
    .await;
    let client = client(provider(WireApi::Responses, &server.base_url), "model");

    let turn = run_turn(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(turn.error, None);
    assert_eq!(turn.restarts, 0);
    assert_eq!(turn.abandoned, 1);
    assert_eq!(turn.history, items_of(WireApi::Responses, &second).await);
    assert_eq!(
        turn.summary,
        "**Checking hidden files**\n\nList everything, dotfiles too."
    );
    assert_eq!(turn.text, "Hi there");
}

#[tokio::test(start_paused = true)]
async fn chat_drop_while_tool_call_arguments_stream_resumes_with_the_new_sample() {
    let first = fixture("chat_tool_call.sse");
    let second = fixture("chat_ollama_reasoning.sse");
    let server = loopback(vec![
        Loopback::Cut(cut_after(&first, r#"{\"command\": [\"ls\", "#, 25)),
        Loopback::Full(second.clone()),
    ])
    .await;
    let client = client(provider(WireApi::Chat, &server.base_url), "model");

    let turn = run_turn(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(turn.error, None);
    assert_eq!(turn.history, items_of(WireApi::Chat, &second).await);
}

#[tokio::test(start_paused = true)]
async fn anthropic_drop_after_a_completed_block_redoes_the_turn_whole() {
    let first = fixture("anthropic_tool_use.sse");
    let second = fixture("anthropic_second_sample.sse");
    // The thinking block completed, the text block was cut.
    let server = loopback(vec![
        Loopback::Cut(cut_after(&first, r#""text":"Let me list ""#, 25)),
        Loopback::Full(second.clone()),
    ])
    .await;
    let client = client(provider(WireApi::Anthropic, &server.base_url), "model");

    let turn = run_turn(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(turn.error, None);
    assert_eq!(turn.history, items_of(WireApi::Anthropic, &second).await);
    assert_eq!(turn.text, "Hi there");
    assert_eq!(turn.restarts, 1);
}

#[tokio::test(start_paused = true)]
async fn a_stream_that_must_restart_reports_the_abandoned_attempts_usage() {
    let first = fixture("anthropic_tool_use.sse");
    let server = loopback(vec![Loopback::Cut(cut_after(
        &first,
        r#""text":"Let me list ""#,
        25,
    ))])
    .await;
    let client = client(provider(WireApi::Anthropic, &server.base_url), "model");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    // What was shown of the broken text block; the consumer drops it on `AttemptAbandoned`.
    assert_eq!(text_deltas(&events), "Let me list ");
    // message_start reported 472 fresh + 2048 cached input tokens and 2 output tokens so far.
    let abandoned: Vec<&ResponseEvent> = events
        .iter()
        .filter(|event| matches!(event, ResponseEvent::AttemptAbandoned { .. }))
        .collect();
    assert_eq!(
        abandoned,
        vec![&ResponseEvent::AttemptAbandoned {
            usage: Some(agentctx_protocol::TokenUsage {
                input_tokens: 2520,
                cached_input_tokens: 2048,
                output_tokens: 2,
                reasoning_output_tokens: 0,
                total_tokens: 2522,
            }),
        }]
    );
    assert_eq!(
        error,
        Some(ModelError::TurnRestartRequired {
            completed_items: 1,
            reason: "stream disconnected before completion: error decoding response body"
                .to_string(),
        })
    );
    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn stalled_stream_hits_the_idle_timeout_and_resumes_with_the_new_sample() {
    let first = fixture("responses_tool_call.sse");
    let second = fixture("responses_second_sample.sse");
    let server = loopback(vec![
        Loopback::Stall(cut_after(&first, "\"sequence_number\":5,", 0)),
        Loopback::Full(second.clone()),
    ])
    .await;
    let mut provider = provider(WireApi::Responses, &server.base_url);
    provider.stream_idle_timeout_ms = Some(5_000);
    let client = client(provider, "model");
    let started = tokio::time::Instant::now();

    let turn = run_turn(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(turn.error, None);
    assert_eq!(turn.history, items_of(WireApi::Responses, &second).await);
    assert!(started.elapsed() >= std::time::Duration::from_secs(5));
}

#[tokio::test(start_paused = true)]
async fn reconnects_are_bounded() {
    let body = fixture("responses_tool_call.sse");
    // Each break comes at another point, as random network drops do (a stream that breaks the
    // same way every time is not retried that long, see below).
    let server = loopback(vec![
        Loopback::Cut(cut_after(&body, "\"sequence_number\":1,", 0)),
        Loopback::Cut(cut_after(&body, "\"sequence_number\":2,", 0)),
        Loopback::Cut(cut_after(&body, "\"sequence_number\":4,", 0)),
    ])
    .await;
    // stream_max_retries = 2: three connections, then the error.
    let client = client(provider(WireApi::Responses, &server.base_url), "model");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(
        error,
        Some(ModelError::StreamDisconnected {
            reason: "error decoding response body".to_string()
        })
    );
    let abandoned = events
        .iter()
        .filter(|event| matches!(event, ResponseEvent::AttemptAbandoned { usage: None }))
        .count();
    assert_eq!(abandoned, 3);
    assert_eq!(done_items(&events), Vec::<Value>::new());
    assert_eq!(server.requests.lock().unwrap().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn anthropic_overloaded_event_mid_stream_is_retried_with_the_new_sample() {
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
    let client = client(provider(WireApi::Anthropic, &server.uri()), "model");

    let turn = run_turn(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(turn.error, None);
    assert_eq!(turn.abandoned, 1);
    assert_eq!(
        turn.history,
        items_of(WireApi::Anthropic, &fixture("anthropic_tool_use.sse")).await
    );
}

#[tokio::test(start_paused = true)]
async fn a_dropped_consumer_causes_no_reconnect() {
    let body = fixture("responses_tool_call.sse");
    let server = loopback(vec![
        Loopback::Cut(cut_after(&body, "\"sequence_number\":4,", 25)),
        Loopback::Full(fixture("responses_second_sample.sse")),
    ])
    .await;
    let client = client(provider(WireApi::Responses, &server.base_url), "model");

    let mut stream = client
        .stream(&rich_prompt(WireApi::Responses))
        .await
        .unwrap();
    let first = stream.next().await;
    assert_eq!(first, Some(Ok(ResponseEvent::Created)));
    drop(stream);
    // Far past any backoff: a reconnect would have happened by now.
    tokio::time::sleep(std::time::Duration::from_secs(600)).await;

    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_stream_that_breaks_the_same_way_twice_is_not_sent_a_third_time() {
    // A server that dies at the same point on every attempt (a chat template that crashes, a
    // prompt over the window) fails the same way however often it is asked.
    let body = fixture("chat_tool_call.sse");
    let partial = cut_after(&body, "the files in src.", 0);
    let server = loopback(vec![
        Loopback::Cut(partial.clone()),
        Loopback::Cut(partial.clone()),
        Loopback::Cut(partial),
        Loopback::Full(body),
    ])
    .await;
    let mut provider = provider(WireApi::Chat, &server.base_url);
    provider.stream_max_retries = Some(5);
    let client = client(provider, "model");

    let (_, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(
        error,
        Some(ModelError::StreamDisconnected {
            reason: "error decoding response body".to_string()
        })
    );
    assert_eq!(server.requests.lock().unwrap().len(), 2);
}
