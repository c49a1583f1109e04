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

/// A prompt whose user message is `bytes` long.
fn long_prompt(bytes: usize) -> agentctx_model::Prompt {
    let mut prompt = rich_prompt(WireApi::Anthropic);
    prompt.reasoning = None;
    prompt
        .input
        .push(agentctx_protocol::ResponseItem::user_text(
            "x".repeat(bytes),
        ));
    prompt
}

fn anthropic_client(slug: &str) -> HttpModelClient {
    HttpModelClient::new(
        ProviderConfig::anthropic(),
        slug,
        &env(&[("ANTHROPIC_API_KEY", "k")]),
    )
    .unwrap()
}

#[test]
fn max_tokens_shrinks_so_a_long_input_still_fits_the_window() {
    let client = anthropic_client("claude-sonnet-4-5");
    // About 140k tokens of input: the model's 64k maximum would overflow the 200k window.
    let body = client.request_body(&long_prompt(420_000));

    let max_tokens = body["max_tokens"].as_i64().unwrap();
    let input_bytes = serde_json::to_string(&body["messages"]).unwrap().len()
        + serde_json::to_string(&body["system"]).unwrap().len()
        + serde_json::to_string(&body["tools"]).unwrap().len();
    assert!(max_tokens < 64_000, "{max_tokens}");
    assert!(
        max_tokens + (input_bytes as i64 + 2) / 3 <= 200_000,
        "{max_tokens} + {input_bytes} bytes"
    );
}

#[test]
fn max_tokens_keeps_the_model_maximum_when_the_input_is_short() {
    let client = anthropic_client("claude-sonnet-4-5");
    let body = client.request_body(&long_prompt(1_000));
    assert_eq!(body["max_tokens"], json!(64_000));
}

#[test]
fn max_tokens_never_drops_below_the_floor_and_the_thinking_budget_shrinks_under_it() {
    let client = anthropic_client("claude-sonnet-4-5");
    let mut prompt = long_prompt(900_000);
    prompt.reasoning = rich_prompt(WireApi::Anthropic).reasoning;

    let body = client.request_body(&prompt);

    // The input alone overflows the window: the server's answer is the context error that
    // starts compaction; a floor keeps the request well-formed until then.
    assert_eq!(
        body["max_tokens"],
        json!(agentctx_model::MIN_ANTHROPIC_MAX_TOKENS)
    );
    assert_eq!(
        body["thinking"],
        json!({ "type": "enabled", "budget_tokens": agentctx_model::MIN_ANTHROPIC_MAX_TOKENS - 1_024 })
    );
}

#[tokio::test]
async fn input_and_max_tokens_over_the_limit_is_context_window_exceeded() {
    let server = MockServer::start().await;
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again"},"request_id":"req_011CUB2XUHWkFnQzxcKBbjpF"}"#;
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
        .err()
        .unwrap();

    assert_eq!(
        error,
        ModelError::ContextWindowExceeded {
            message: "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again".to_string()
        }
    );
    assert_eq!(
        error.context_overflow(),
        Some(agentctx_model::ContextOverflow {
            input_tokens: Some(178_959),
            max_tokens: Some(64_000),
            context_window: Some(200_000),
        })
    );
}

#[tokio::test]
async fn request_too_large_is_context_window_exceeded() {
    let server = MockServer::start().await;
    let body = r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#;
    Mock::given(method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(413).set_body_raw(body, "application/json"))
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
            message: "Request exceeds the maximum allowed number of bytes.".to_string()
        })
    );
}
