//! Anthropic Messages API against a wiremock server serving real SSE bodies.

use agentctx_model::HttpModelClient;
use agentctx_model::ModelError;
use agentctx_model::ProviderConfig;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::header;
use wiremock::matchers::method;
use wiremock::matchers::path;

use super::support::client;
use super::support::collect;
use super::support::done_items;
use super::support::env;
use super::support::fixture;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::trace;

#[tokio::test]
async fn thinking_text_and_tool_use_with_usage() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "sk-test-123"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(
            sse(fixture("anthropic_tool_use.sse"))
                .insert_header("anthropic-ratelimit-requests-limit", "50")
                .insert_header("anthropic-ratelimit-tokens-reset", "2026-11-21T23:59:00Z"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Anthropic, &server.uri()),
        "claude-sonnet-4-5",
    );

    let (events, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "rate_limits",
            "created",
            "added:reasoning",
            "thinking:The user wants the files. ",
            "thinking:I'll run ls.",
            "done:reasoning",
            "added:message",
            "text:Let me list ",
            "text:the files.",
            "done:message",
            "added:function_call",
            "done:function_call",
            "completed:msg_01XFDUDYJgAACzvnptvVoYEL",
        ]
    );
    assert_eq!(
        done_items(&events),
        vec![
            json!({
                "type": "reasoning",
                "summary": [],
                "content": [{ "type": "reasoning_text", "text": "The user wants the files. I'll run ls." }],
                "encrypted_content": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
            }),
            json!({
                "type": "message",
                "role": "assistant",
                "content": [{ "type": "output_text", "text": "Let me list the files." }],
            }),
            json!({
                "type": "function_call",
                "name": "shell",
                "arguments": "{\"command\": [\"ls\", \"src\"]}",
                "call_id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            }),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "msg_01XFDUDYJgAACzvnptvVoYEL".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 2520,
                cached_input_tokens: 2048,
                output_tokens: 89,
                reasoning_output_tokens: 0,
                total_tokens: 2609,
            }),
        })
    );

    let requests = server.received_requests().await.unwrap();
    assert!(requests[0].headers.get("anthropic-beta").is_none());
    let body: serde_json::Value = requests[0].body_json().unwrap();
    insta::assert_json_snapshot!("anthropic_request_body", body);
}

#[tokio::test]
async fn interleaved_thinking_sends_the_beta_header() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("anthropic-beta", "interleaved-thinking-2025-05-14"))
        .respond_with(sse(fixture("anthropic_tool_use.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Anthropic, &server.uri()),
        "claude-sonnet-4-5",
    );
    let mut prompt = rich_prompt(WireApi::Anthropic);
    if let Some(options) = prompt.reasoning.as_mut() {
        options.interleaved = true;
    }

    let (_, error) = collect(&client, &prompt).await;

    assert_eq!(error, None);
}

#[tokio::test]
async fn overloaded_error_event_without_retries_left() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_overloaded.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Anthropic, &server.uri());
    provider.stream_max_retries = Some(0);
    let client = client(provider, "claude-sonnet-4-5");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    // message_start reported 472 input tokens and 1 output token before the error.
    assert_eq!(trace(&events), vec!["created", "abandoned"]);
    assert_eq!(
        events[1],
        agentctx_model::ResponseEvent::AttemptAbandoned {
            usage: Some(TokenUsage {
                input_tokens: 472,
                cached_input_tokens: 0,
                output_tokens: 1,
                reasoning_output_tokens: 0,
                total_tokens: 473,
            })
        }
    );
    assert_eq!(
        error,
        Some(ModelError::Server {
            status: 529,
            body: "Overloaded".to_string()
        })
    );
}

#[tokio::test]
async fn prompt_too_long_is_context_window_exceeded() {
    let server = MockServer::start().await;
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_011"}"#;
    Mock::given(method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(400).set_body_raw(body, "application/json"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Anthropic, &server.uri()),
        "claude-sonnet-4-5",
    );

    let error = agentctx_model::ModelClient::stream(&client, &rich_prompt(WireApi::Anthropic))
        .await
        .err();

    assert_eq!(
        error,
        Some(ModelError::ContextWindowExceeded {
            message: "prompt is too long: 208310 tokens > 200000 maximum".to_string()
        })
    );
}

#[test]
fn thinking_budget_leaves_room_for_the_answer() {
    let client = HttpModelClient::new(
        ProviderConfig::anthropic(),
        "claude-opus-4-1",
        &env(&[("ANTHROPIC_API_KEY", "k")]),
    )
    .unwrap();
    let mut prompt = rich_prompt(WireApi::Anthropic);
    if let Some(options) = prompt.reasoning.as_mut() {
        options.budget_tokens = Some(64_000);
    }
    let body = client.request_body(&prompt);
    // claude-opus-4-1 writes at most 32000 tokens: the budget must stay below max_tokens.
    assert_eq!(body["max_tokens"], json!(32_000));
    assert_eq!(
        body["thinking"],
        json!({ "type": "enabled", "budget_tokens": 30_976 })
    );
}
