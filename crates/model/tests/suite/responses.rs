//! OpenAI Responses API against a wiremock server serving real SSE bodies.

use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ProviderConfig;
use agentctx_model::RateLimitSnapshot;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::header;
use wiremock::matchers::method;
use wiremock::matchers::path;
use wiremock::matchers::query_param;

use super::support::TEST_KEY;
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
async fn tool_call_reasoning_usage_and_request_body() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .and(header("authorization", "Bearer sk-test-123"))
        .and(header("accept", "text/event-stream"))
        .respond_with(
            sse(fixture("responses_tool_call.sse"))
                .insert_header("x-ratelimit-limit-requests", "500")
                .insert_header("x-ratelimit-remaining-requests", "499")
                .insert_header("x-ratelimit-reset-requests", "120ms")
                .insert_header("x-ratelimit-remaining-tokens", "29000"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Responses, &format!("{}/v1", server.uri())),
        "gpt-5",
    );

    let (events, error) = collect(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "rate_limits",
            "created",
            "added:reasoning",
            "summary:**Listing files**\n\nI should ",
            "summary:look at src first.",
            "done:reasoning",
            "added:message",
            "text:Let me list ",
            "text:the files.",
            "done:message",
            "added:function_call",
            "done:function_call",
            "completed:resp_123",
        ]
    );
    assert_eq!(
        events[0],
        ResponseEvent::RateLimits(RateLimitSnapshot {
            requests_limit: Some(500),
            requests_remaining: Some(499),
            requests_reset: Some("120ms".to_string()),
            tokens_limit: None,
            tokens_remaining: Some(29_000),
            tokens_reset: None,
        })
    );
    assert_eq!(
        done_items(&events),
        vec![
            json!({
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{ "type": "summary_text", "text": "**Listing files**\n\nI should look at src first." }],
                "encrypted_content": "gAAAAABo-encrypted-reasoning",
            }),
            json!({
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{ "type": "output_text", "text": "Let me list the files." }],
            }),
            json!({
                "type": "function_call",
                "id": "fc_1",
                "status": "completed",
                "name": "shell",
                "arguments": "{\"command\":[\"ls\",\"src\"]}",
                "call_id": "call_abc",
            }),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "resp_123".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 1200,
                cached_input_tokens: 1024,
                output_tokens: 85,
                reasoning_output_tokens: 40,
                total_tokens: 1285,
            }),
        })
    );

    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    insta::assert_json_snapshot!("responses_request_body", body);
}

#[tokio::test]
async fn response_failed_event_is_context_window_exceeded() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("responses_failed.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Responses, &server.uri()), "gpt-5");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(trace(&events), vec!["created"]);
    assert_eq!(
        error,
        Some(ModelError::ContextWindowExceeded {
            message: "Your input exceeds the context window of this model. Please adjust your input and try again."
                .to_string()
        })
    );
}

#[tokio::test]
async fn error_event_is_classified_and_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("responses_error_event.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Responses, &server.uri()), "gpt-5");

    let (_, error) = collect(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(
        error,
        Some(ModelError::BadRequest {
            status: 400,
            body: "invalid_prompt: Invalid prompt: your prompt was flagged.".to_string()
        })
    );
}

#[tokio::test]
async fn http_400_context_length_fails_the_request() {
    let server = MockServer::start().await;
    let body = r#"{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_raw(body, "application/json"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Responses, &server.uri()), "gpt-5");

    let error = client.stream(&rich_prompt(WireApi::Responses)).await.err();

    assert_eq!(
        error,
        Some(ModelError::ContextWindowExceeded {
            message: "Your input exceeds the context window of this model.".to_string()
        })
    );
}

#[tokio::test]
async fn configured_headers_env_headers_and_query_params_are_sent() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/openai/responses"))
        .and(query_param("api-version", "2025-04-01-preview"))
        .and(header("x-team", "agents"))
        .and(header("x-org", "org-9"))
        .respond_with(sse(fixture("responses_tool_call.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Responses, &format!("{}/openai", server.uri()));
    provider
        .http_headers
        .insert("x-team".to_string(), "agents".to_string());
    provider
        .env_http_headers
        .insert("x-org".to_string(), "ORG_ID".to_string());
    provider
        .env_http_headers
        .insert("x-unset".to_string(), "NOT_SET".to_string());
    provider
        .query_params
        .insert("api-version".to_string(), "2025-04-01-preview".to_string());
    let client = HttpModelClient::new(provider, "gpt-5", &env(&[("ORG_ID", "org-9")])).unwrap();

    let (_, error) = collect(&client, &rich_prompt(WireApi::Responses)).await;

    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    assert!(requests[0].headers.get("x-unset").is_none());
}

#[test]
fn debug_output_does_not_show_the_key() {
    let client = client(provider(WireApi::Responses, "http://127.0.0.1:9"), "gpt-5");
    let debug = format!("{client:?}");
    assert!(!debug.contains(TEST_KEY), "{debug}");
    assert!(debug.contains("Sensitive"), "{debug}");
}

#[test]
fn missing_key_names_the_variable() {
    let error = HttpModelClient::new(ProviderConfig::openai(), "gpt-5", &|_| None).unwrap_err();
    assert_eq!(
        error,
        ModelError::MissingApiKey {
            provider: "OpenAI".to_string(),
            env_key: "OPENAI_API_KEY".to_string()
        }
    );
}

#[tokio::test]
async fn reasoning_is_stripped_for_models_that_cannot_reason() {
    let client = HttpModelClient::new(
        ProviderConfig::openai(),
        "gpt-4.1",
        &env(&[("OPENAI_API_KEY", "k")]),
    )
    .unwrap();
    let body = client.request_body(&rich_prompt(WireApi::Responses));
    assert_eq!(body.get("reasoning"), None);
    assert_eq!(body.get("include"), None);
    assert_eq!(client.context_window(), 1_047_576);
    assert_eq!(client.slug(), "gpt-4.1");
}
