//! OpenAI-compatible Chat Completions (vLLM / DeepSeek `reasoning_content`, Ollama `reasoning`)
//! against a wiremock server serving real SSE bodies.

use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::body_partial_json;
use wiremock::matchers::header;
use wiremock::matchers::method;
use wiremock::matchers::path;

use super::support::client;
use super::support::collect;
use super::support::done_items;
use super::support::fixture;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::trace;

#[tokio::test]
async fn tool_calls_accumulate_by_index_with_reasoning_and_usage() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test-123"))
        .and(body_partial_json(
            json!({ "stream": true, "stream_options": { "include_usage": true } }),
        ))
        .respond_with(sse(fixture("chat_tool_call.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "qwen3-32b",
    );

    let (events, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "created",
            "added:reasoning",
            "thinking:The user wants ",
            "thinking:the files in src.",
            "added:message",
            "text:Listing ",
            "text:src.",
            "done:reasoning",
            "done:message",
            "added:function_call",
            "done:function_call",
            "added:function_call",
            "done:function_call",
            "completed:chatcmpl-1",
        ]
    );
    assert_eq!(
        done_items(&events),
        vec![
            json!({
                "type": "reasoning",
                "summary": [],
                "content": [{ "type": "reasoning_text", "text": "The user wants the files in src." }],
            }),
            json!({
                "type": "message",
                "role": "assistant",
                "content": [{ "type": "output_text", "text": "Listing src." }],
            }),
            json!({
                "type": "function_call",
                "name": "shell",
                "arguments": "{\"command\": [\"ls\", \"src\"]}",
                "call_id": "call_1",
            }),
            json!({
                "type": "function_call",
                "name": "read_file",
                "arguments": "{\"path\": \"README.md\"}",
                "call_id": "call_2",
            }),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "chatcmpl-1".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 310,
                cached_input_tokens: 256,
                output_tokens: 42,
                reasoning_output_tokens: 12,
                total_tokens: 352,
            }),
        })
    );

    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    insta::assert_json_snapshot!("chat_request_body", body);
}

#[tokio::test]
async fn ollama_reasoning_field_and_plain_text() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(sse(fixture("chat_ollama_reasoning.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut ollama = agentctx_model::ProviderConfig::ollama();
    ollama.base_url = format!("{}/v1", server.uri());
    let client = agentctx_model::HttpModelClient::new(ollama, "qwen3:8b", &|_| None).unwrap();

    let (events, error) = collect(&client, &Prompt::system_and_user("Be brief.", "hello")).await;

    assert_eq!(error, None);
    assert_eq!(
        done_items(&events),
        vec![
            json!({
                "type": "reasoning",
                "summary": [],
                "content": [{ "type": "reasoning_text", "text": "Okay, the user says hello." }],
            }),
            json!({
                "type": "message",
                "role": "assistant",
                "content": [{ "type": "output_text", "text": "Hello! How can I help?" }],
            }),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "chatcmpl-431".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 20,
                cached_input_tokens: 0,
                output_tokens: 15,
                reasoning_output_tokens: 0,
                total_tokens: 35,
            }),
        })
    );
    // Keyless provider: no authorization header.
    let requests = server.received_requests().await.unwrap();
    assert!(requests[0].headers.get("authorization").is_none());
}

#[tokio::test]
async fn error_chunk_mid_stream_is_classified() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("chat_error.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Chat, &server.uri()), "qwen3-32b");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(trace(&events), vec!["created", "added:message", "text:Hi"]);
    assert!(
        matches!(&error, Some(ModelError::ContextWindowExceeded { message }) if message.starts_with("This model's maximum context length is 4096")),
        "{error:?}"
    );
}
