//! OpenAI Responses API against a wiremock server serving real SSE bodies.

use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ModelInfo;
use agentctx_model::Prompt;
use agentctx_model::ProviderConfig;
use agentctx_model::RateLimitSnapshot;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use agentctx_model::owned_items;
use agentctx_model::thinking::reasoning_options_for;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ResponseItem;
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
use super::support::ultrathink;

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

/// The reasoning efforts the OpenAI API accepts per model, as its 400 errors list them
/// ("Unsupported value: 'xhigh' is not supported with the 'gpt-5-codex' model. Supported values
/// are: 'low', 'medium', and 'high'."; codex-rs `openai_models/model_presets.rs`).
fn accepted_efforts(model: &str) -> &'static [&'static str] {
    match model {
        "gpt-5" => &["minimal", "low", "medium", "high"],
        "gpt-5-codex" | "o3" | "o4-mini" => &["low", "medium", "high"],
        "gpt-5.1-codex-max" => &["low", "medium", "high", "xhigh"],
        _ => &["minimal", "low", "medium", "high", "xhigh"],
    }
}

/// A 400 as the OpenAI API writes it.
fn openai_400(message: &str, param: &str, code: &str) -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({
        "error": { "message": message, "type": "invalid_request_error", "param": param, "code": code }
    }))
}

/// A Responses endpoint that checks a request the way the OpenAI API does with `store: false`:
/// an effort the model does not take, a reasoning item without encrypted content, or any item
/// carrying a server id (nothing is stored, so the id points at nothing) is a 400. It also
/// refuses raw reasoning text: OpenAI models only ever hand out summaries and encrypted state,
/// so raw text in the input is another model's thinking posing as this one's. The reasoning
/// item it answers with carries `encrypted_content` only when the request asked for it in
/// `include`, as the real API does.
struct OpenAiResponses;

impl wiremock::Respond for OpenAiResponses {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: serde_json::Value = request.body_json().unwrap();
        let model = body["model"].as_str().unwrap_or_default();
        if let Some(effort) = body["reasoning"]["effort"].as_str()
            && !accepted_efforts(model).contains(&effort)
        {
            let values: Vec<String> = accepted_efforts(model)
                .iter()
                .map(|value| format!("'{value}'"))
                .collect();
            let (last, rest) = values.split_last().unwrap();
            return openai_400(
                &format!(
                    "Unsupported value: '{effort}' is not supported with the '{model}' model. Supported values are: {}, and {last}.",
                    rest.join(", ")
                ),
                "reasoning.effort",
                "unsupported_value",
            );
        }
        for (index, item) in body["input"].as_array().unwrap().iter().enumerate() {
            if let Some(id) = item.get("id").and_then(|id| id.as_str()) {
                return openai_400(
                    &format!(
                        "Item with id '{id}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."
                    ),
                    "input",
                    "invalid_request_error",
                );
            }
            if item["type"] == "reasoning" {
                if item
                    .get("content")
                    .is_some_and(|content| !content.is_null())
                {
                    return openai_400(
                        &format!(
                            "Invalid 'input[{index}].content': raw reasoning text cannot be sent back."
                        ),
                        &format!("input[{index}].content"),
                        "invalid_value",
                    );
                }
                if item["encrypted_content"].as_str().is_none_or(str::is_empty) {
                    return openai_400(
                        &format!("Missing required parameter: 'input[{index}].encrypted_content'."),
                        &format!("input[{index}].encrypted_content"),
                        "missing_required_parameter",
                    );
                }
            }
        }
        let encrypted = body["store"] == json!(false)
            && body["include"]
                .as_array()
                .is_some_and(|include| include.contains(&json!("reasoning.encrypted_content")));
        let mut reasoning = json!({ "id": "rs_new", "type": "reasoning", "summary": [] });
        if encrypted {
            reasoning["encrypted_content"] = json!("gAAAAABo-new-state");
        }
        let message = json!({
            "id": "msg_new", "type": "message", "status": "completed", "role": "assistant",
            "content": [{ "type": "output_text", "text": "Done." }],
        });
        let events = [
            json!({ "type": "response.created", "response": { "id": "resp_new" } }),
            json!({ "type": "response.output_item.done", "output_index": 0, "item": reasoning }),
            json!({ "type": "response.output_item.done", "output_index": 1, "item": message }),
            json!({ "type": "response.completed", "response": { "id": "resp_new", "usage": { "input_tokens": 10, "output_tokens": 5, "total_tokens": 15 } } }),
        ];
        sse(events
            .iter()
            .map(|event| {
                format!(
                    "event: {}\ndata: {event}\n\n",
                    event["type"].as_str().unwrap()
                )
            })
            .collect())
    }
}

async fn openai_responses_server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(OpenAiResponses)
        .mount(&server)
        .await;
    server
}

async fn last_body(server: &MockServer) -> serde_json::Value {
    let requests = server.received_requests().await.unwrap();
    requests.last().unwrap().body_json().unwrap()
}

#[tokio::test]
async fn ultrathink_is_clamped_to_the_highest_effort_the_model_accepts() {
    let server = openai_responses_server().await;
    for (model, sent) in [
        ("gpt-5", "high"),
        ("gpt-5-codex", "high"),
        ("o3", "high"),
        ("o4-mini", "high"),
        ("gpt-5.1-codex-max", "xhigh"),
    ] {
        let client = client(
            provider(WireApi::Responses, &format!("{}/v1", server.uri())),
            model,
        );
        let prompt = Prompt {
            reasoning: reasoning_options_for(&ultrathink(), WireApi::Responses),
            ..Prompt::system_and_user("Be brief.", "ultrathink: why?")
        };

        let (_, error) = collect(&client, &prompt).await;

        assert_eq!(error, None, "{model}");
        assert_eq!(
            last_body(&server).await["reasoning"]["effort"],
            json!(sent),
            "{model}"
        );
    }
}

#[tokio::test]
async fn reasoning_state_is_sent_back_encrypted_and_never_raw() {
    let server = openai_responses_server().await;
    let client = client(
        provider(WireApi::Responses, &format!("{}/v1", server.uri())),
        "gpt-5",
    );
    let prompt = Prompt {
        instructions: "Be brief.".to_string(),
        input: owned_items(vec![
            ResponseItem::user_text("first"),
            // From an earlier OpenAI turn: encrypted state plus raw text.
            ResponseItem::Reasoning {
                id: Some("rs_old".to_string()),
                summary: Vec::new(),
                content: Some(vec![ReasoningContent::ReasoningText {
                    text: "raw chain of thought".to_string(),
                }]),
                encrypted_content: Some("gAAAAABo-old-state".to_string()),
                extra: ExtraFields::new(),
            },
            // From a local server through Chat Completions: raw text only.
            ResponseItem::Reasoning {
                id: None,
                summary: Vec::new(),
                content: Some(vec![ReasoningContent::ReasoningText {
                    text: "local thinking".to_string(),
                }]),
                encrypted_content: None,
                extra: ExtraFields::new(),
            },
            // An item type this crate does not know, carrying a server id.
            ResponseItem::Other(
                json!({ "type": "mcp_list_tools", "id": "mcpl_1", "server_label": "docs", "tools": [] }),
            ),
            ResponseItem::assistant_text("ok"),
            ResponseItem::user_text("second"),
        ]),
        // No thinking asked for: a reasoning model reasons anyway, and its state must survive.
        ..Prompt::default()
    };

    let (events, error) = collect(&client, &prompt).await;

    assert_eq!(error, None);
    let body = last_body(&server).await;
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(body["store"], json!(false));
    assert_eq!(
        body["input"],
        json!([
            { "type": "message", "role": "user", "content": "first" },
            { "type": "reasoning", "summary": [], "encrypted_content": "gAAAAABo-old-state" },
            { "type": "message", "role": "assistant", "content": "ok" },
            { "type": "message", "role": "user", "content": "second" },
        ])
    );
    assert_eq!(
        done_items(&events)[0],
        json!({ "id": "rs_new", "type": "reasoning", "summary": [], "encrypted_content": "gAAAAABo-new-state" })
    );
}

#[tokio::test]
async fn prompt_cache_key_is_the_session_id() {
    let server = openai_responses_server().await;
    let client = client(
        provider(WireApi::Responses, &format!("{}/v1", server.uri())),
        "gpt-5",
    );
    let prompt = Prompt {
        session_id: Some("0199a1b2-session".to_string()),
        ..Prompt::system_and_user("Be brief.", "hello")
    };

    let (_, error) = collect(&client, &prompt).await;

    assert_eq!(error, None);
    assert_eq!(
        last_body(&server).await["prompt_cache_key"],
        json!("0199a1b2-session")
    );
}

/// An answer stopped at `max_output_tokens`, as the Responses API streams it: the message is
/// closed with status `incomplete`, then `response.incomplete` carries the reason and usage.
fn responses_cut_at_the_output_limit() -> String {
    let message = json!({ "id": "msg_cut", "type": "message", "status": "incomplete", "role": "assistant", "content": [{ "type": "output_text", "annotations": [], "text": "The answer is" }] });
    let events = [
        json!({ "type": "response.created", "sequence_number": 0, "response": { "id": "resp_cut", "status": "in_progress", "output": [], "usage": null } }),
        json!({ "type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": { "id": "msg_cut", "type": "message", "status": "in_progress", "role": "assistant", "content": [] } }),
        json!({ "type": "response.output_text.delta", "sequence_number": 2, "item_id": "msg_cut", "output_index": 0, "content_index": 0, "delta": "The answer" }),
        json!({ "type": "response.output_text.delta", "sequence_number": 3, "item_id": "msg_cut", "output_index": 0, "content_index": 0, "delta": " is" }),
        json!({ "type": "response.output_item.done", "sequence_number": 4, "output_index": 0, "item": message }),
        json!({ "type": "response.incomplete", "sequence_number": 5, "response": { "id": "resp_cut", "status": "incomplete", "incomplete_details": { "reason": "max_output_tokens" }, "output": [message], "usage": { "input_tokens": 40, "output_tokens": 2, "total_tokens": 42 } } }),
    ];
    events
        .iter()
        .map(|data| {
            format!(
                "event: {}\ndata: {data}\n\n",
                data["type"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn an_answer_cut_at_max_output_tokens_is_kept_and_marked_truncated() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(sse(responses_cut_at_the_output_limit()))
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
            "created",
            "added:message",
            "text:The answer",
            "text: is",
            "done:message",
            "truncated:max_output_tokens",
            "completed:resp_cut",
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "resp_cut".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 40,
                cached_input_tokens: 0,
                output_tokens: 2,
                reasoning_output_tokens: 0,
                total_tokens: 42,
            }),
        })
    );
}

/// A model whose output limit is unknown (a local model behind a Responses server) gets an
/// output limit sized from its window, as Chat Completions and Anthropic bodies get theirs; a
/// model whose limit is known gets none.
#[tokio::test]
async fn a_model_with_no_known_output_limit_is_sent_one_sized_from_its_window() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(sse(fixture("responses_tool_call.sse")))
        .mount(&server)
        .await;
    let base = format!("{}/v1", server.uri());
    let prompt = Prompt::system_and_user("Be brief.", "hi");
    let local = client(provider(WireApi::Responses, &base), "local-model")
        .with_model_info(ModelInfo::with_context_window(16_384));
    let (_, error) = collect(&local, &prompt).await;
    assert_eq!(error, None);
    let known =
        client(provider(WireApi::Responses, &base), "local-model").with_model_info(ModelInfo {
            max_output_tokens: Some(2_000),
            ..ModelInfo::with_context_window(16_384)
        });
    let (_, error) = collect(&known, &prompt).await;
    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    let bodies: Vec<serde_json::Value> = requests
        .iter()
        .map(|request| request.body_json().unwrap())
        .collect();
    // A quarter of the 16,384-token window.
    assert_eq!(bodies[0]["max_output_tokens"], 4_096);
    assert_eq!(bodies[1].get("max_output_tokens"), None);
}
