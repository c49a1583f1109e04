//! Completed answers with nothing in them (no text, no tool call), as the LiteLLM proxy sends
//! when its upstream stream failed: reported, asked once more, then an error.

use agentctx_model::ModelClient;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::Value;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::method;

use super::support::client;
use super::support::collect;
use super::support::done_items;
use super::support::fixture;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::trace;

/// A chat completion that finished normally with no content: the role chunk, an empty
/// `content`, `finish_reason: "stop"`, usage and `[DONE]`.
const EMPTY_CHAT: &str = concat!(
    "data: {\"id\":\"chatcmpl-empty\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,",
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},",
    "\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-empty\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,",
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],",
    "\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":0,\"total_tokens\":812}}\n\n",
    "data: [DONE]\n\n",
);

/// An Anthropic message with one empty text block.
const EMPTY_ANTHROPIC: &str = concat!(
    "event: message_start\n",
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_empty\",\"type\":\"message\",",
    "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,",
    "\"usage\":{\"input_tokens\":812,\"output_tokens\":1}}}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: content_block_stop\n",
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: message_delta\n",
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n",
    "event: message_stop\n",
    "data: {\"type\":\"message_stop\"}\n\n",
);

/// A server answering `first` `times` times, then `then` (when given).
async fn server(first: &str, times: u64, then: Option<String>) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(first.to_string()))
        .up_to_n_times(times)
        .expect(times)
        .mount(&server)
        .await;
    if let Some(then) = then {
        Mock::given(method("POST"))
            .respond_with(sse(then))
            .expect(1)
            .mount(&server)
            .await;
    }
    server
}

/// The completed items of `body` served whole.
async fn items_of(wire_api: WireApi, body: &str) -> Vec<Value> {
    let server = server(body, 1, None).await;
    let (events, error) = collect(
        &client(provider(wire_api, &server.uri()), "model"),
        &rich_prompt(wire_api),
    )
    .await;
    assert_eq!(error, None);
    done_items(&events)
}

#[tokio::test(start_paused = true)]
async fn an_empty_answer_is_asked_again_once() {
    let answer = fixture("chat_tool_call.sse");
    let server = server(EMPTY_CHAT, 1, Some(answer.clone())).await;
    let client = client(provider(WireApi::Chat, &server.uri()), "model");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(error, None);
    assert_eq!(done_items(&events), items_of(WireApi::Chat, &answer).await);
    let trace = trace(&events);
    assert_eq!(trace.first().map(String::as_str), Some("created"));
    assert_eq!(trace.get(1).map(String::as_str), Some("abandoned"));
    // The empty attempt's usage is reported with its abandonment: it was billed.
    assert!(events.contains(&ResponseEvent::AttemptAbandoned {
        usage: Some(agentctx_protocol::TokenUsage {
            input_tokens: 812,
            cached_input_tokens: 0,
            output_tokens: 0,
            reasoning_output_tokens: 0,
            total_tokens: 812,
        }),
    }));
}

#[tokio::test(start_paused = true)]
async fn an_answer_empty_twice_is_an_error() {
    let server = server(EMPTY_CHAT, 2, None).await;
    let client = client(provider(WireApi::Chat, &server.uri()), "model");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(trace(&events), vec!["created", "abandoned", "abandoned"]);
    let error = error.expect("an empty answer given twice is an error");
    assert!(!error.is_retryable());
    insta::assert_snapshot!(error.to_string(), @"the server returned an empty answer (no text, no tool call) to 2 requests in a row; a proxy such as LiteLLM does this when the model behind it failed: see the server's log");
}

#[tokio::test(start_paused = true)]
async fn an_empty_text_block_is_an_empty_answer_and_never_reaches_the_history() {
    let server = server(EMPTY_ANTHROPIC, 2, None).await;
    let client = client(provider(WireApi::Anthropic, &server.uri()), "model");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(done_items(&events), Vec::<Value>::new());
    assert!(error.is_some(), "{events:?}");
}

#[tokio::test(start_paused = true)]
async fn complete_gets_the_second_answer_after_an_empty_one() {
    let server = server(EMPTY_CHAT, 1, Some(fixture("chat_ollama_reasoning.sse"))).await;
    let client = client(provider(WireApi::Chat, &server.uri()), "model");

    let reply = client.complete("Be terse.", "Say hi").await;

    assert!(reply.is_ok_and(|text| !text.trim().is_empty()));
}
