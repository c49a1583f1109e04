//! Anthropic Messages API against a wiremock server serving real SSE bodies.

use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient as _;
use agentctx_model::ModelError;
use agentctx_model::ProviderConfig;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use agentctx_model::owned_items;
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
            "prompt_cache",
            "completed:msg_01XFDUDYJgAACzvnptvVoYEL",
        ]
    );
    assert_eq!(
        done_items(&events),
        vec![
            json!({
                "type": "reasoning",
                "id": "anthropic_thinking_msg_01XFDUDYJgAACzvnptvVoYEL_0",
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
async fn a_1m_model_id_sends_the_model_without_its_suffix_and_the_1m_beta_header() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_tool_use.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Anthropic, &server.uri());
    // The user's own betas stay; ours is added once.
    provider.http_headers.insert(
        "anthropic-beta".to_string(),
        "interleaved-thinking-2025-05-14".to_string(),
    );
    let client = client(provider, "claude-opus-4-6[1m]");
    assert_eq!(
        agentctx_model::ModelClient::context_window(&client),
        1_000_000
    );

    let (_, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    let betas: Vec<&str> = requests[0]
        .headers
        .get_all("anthropic-beta")
        .iter()
        .map(|value| value.to_str().unwrap())
        .collect();
    assert_eq!(
        betas,
        vec!["interleaved-thinking-2025-05-14,context-1m-2025-08-07"]
    );
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["model"], json!("claude-opus-4-6"));
}

#[tokio::test]
async fn a_model_without_the_1m_suffix_sends_no_1m_beta() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_tool_use.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Anthropic, &server.uri()),
        "claude-opus-4-6",
    );

    let (_, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    assert!(requests[0].headers.get("anthropic-beta").is_none());
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
            body: "Overloaded".to_string(),
            retry_after: None,
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
fn long_prompt(bytes: usize) -> agentctx_model::Prompt<'static> {
    let mut prompt = rich_prompt(WireApi::Anthropic);
    prompt.reasoning = None;
    prompt.input.push(std::borrow::Cow::Owned(
        agentctx_protocol::ResponseItem::user_text("x".repeat(bytes)),
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

#[tokio::test]
async fn a_configured_anthropic_beta_header_is_merged_with_ours() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_tool_use.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Anthropic, &server.uri());
    provider.http_headers.insert(
        "anthropic-beta".to_string(),
        "context-1m-2025-08-07, interleaved-thinking-2025-05-14".to_string(),
    );
    let client = client(provider, "claude-sonnet-4-5");
    let mut prompt = rich_prompt(WireApi::Anthropic);
    if let Some(options) = prompt.reasoning.as_mut() {
        options.interleaved = true;
    }

    let (_, error) = collect(&client, &prompt).await;

    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    let betas: Vec<&str> = requests[0]
        .headers
        .get_all("anthropic-beta")
        .iter()
        .map(|value| value.to_str().unwrap())
        .collect();
    assert_eq!(
        betas,
        vec!["context-1m-2025-08-07,interleaved-thinking-2025-05-14"]
    );
}

#[tokio::test]
async fn a_provider_without_cache_breakpoints_sends_strings_and_no_cache_control() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_tool_use.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Anthropic, &server.uri());
    provider.prompt_cache_breakpoints = Some(false);
    let client = client(provider, "claude-sonnet-4-5");

    let (_, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert!(!body.to_string().contains("cache_control"), "{body:#}");
    assert_eq!(body["system"], json!("You are a coding agent. Be concise."));
    assert_eq!(
        body["messages"][0],
        json!({
            "role": "user",
            "content": "<permissions>workspace-write</permissions>\nWhat is in src?"
        })
    );
    // The last user message carries an image: it keeps its blocks.
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"][1]["type"], "image", "{last:#}");
}

#[tokio::test]
async fn a_one_hour_cache_marks_every_breakpoint_with_its_ttl_and_sends_the_beta() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_tool_use.sse")))
        .expect(2)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Anthropic, &server.uri());
    provider.prompt_cache_ttl = Some(agentctx_model::PromptCacheTtl::OneHour);
    let one_hour_client = client(provider.clone(), "claude-sonnet-4-5");
    assert_eq!(
        one_hour_client.prompt_cache_ttl(),
        agentctx_model::PromptCacheTtl::OneHour
    );

    let (_, error) = collect(&one_hour_client, &rich_prompt(WireApi::Anthropic)).await;
    assert_eq!(error, None);
    // The default: no ttl (Anthropic's five minutes), no beta.
    provider.prompt_cache_ttl = None;
    let default = client(provider, "claude-sonnet-4-5");
    let (_, error) = collect(&default, &rich_prompt(WireApi::Anthropic)).await;
    assert_eq!(error, None);

    let requests = server.received_requests().await.unwrap();
    let controls = |body: &serde_json::Value| {
        let mut found = Vec::new();
        collect_cache_controls(body, &mut found);
        found
    };
    let one_hour: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    let marked = controls(&one_hour);
    assert!(marked.len() >= 3, "{one_hour:#}");
    assert!(
        marked
            .iter()
            .all(|control| *control == json!({"type": "ephemeral", "ttl": "1h"})),
        "{marked:?}"
    );
    let betas: Vec<&str> = requests[0]
        .headers
        .get_all("anthropic-beta")
        .iter()
        .map(|value| value.to_str().unwrap())
        .collect();
    assert!(
        betas
            .iter()
            .any(|beta| beta.contains("extended-cache-ttl-2025-04-11")),
        "{betas:?}"
    );
    let five_minutes: serde_json::Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert!(
        controls(&five_minutes)
            .iter()
            .all(|control| *control == json!({"type": "ephemeral"}))
    );
    assert!(
        requests[1]
            .headers
            .get_all("anthropic-beta")
            .iter()
            .all(|value| !value.to_str().unwrap().contains("extended-cache-ttl"))
    );
}

/// Every `cache_control` object in `value`.
fn collect_cache_controls(value: &serde_json::Value, found: &mut Vec<serde_json::Value>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                if key == "cache_control" {
                    found.push(value.clone());
                } else {
                    collect_cache_controls(value, found);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                collect_cache_controls(item, found);
            }
        }
        _ => {}
    }
}

/// The completed items a provider of `wire_api` streams for `fixture_name`.
async fn streamed_items(
    wire_api: WireApi,
    fixture_name: &str,
) -> Vec<agentctx_protocol::ResponseItem> {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture(fixture_name)))
        .mount(&server)
        .await;
    let client = client(provider(wire_api, &server.uri()), "model");
    let (events, error) = collect(&client, &rich_prompt(wire_api)).await;
    assert_eq!(error, None);
    events
        .into_iter()
        .filter_map(|event| match event {
            ResponseEvent::OutputItemDone(item) => Some(item),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn encrypted_reasoning_of_another_provider_is_dropped_after_a_switch() {
    // A session that ran on OpenAI (reasoning with encrypted_content), then on Anthropic.
    let openai_turn = streamed_items(WireApi::Responses, "responses_tool_call.sse").await;
    let anthropic_turn = streamed_items(WireApi::Anthropic, "anthropic_tool_use.sse").await;
    let mut prompt = agentctx_model::Prompt::system_and_user("s", "list src");
    prompt.input.extend(owned_items(openai_turn));
    prompt.input.push(std::borrow::Cow::Owned(
        agentctx_protocol::ResponseItem::function_call_output("call_abc", "lib.rs"),
    ));
    prompt.input.extend(owned_items(anthropic_turn));
    let client = anthropic_client("claude-sonnet-4-5");

    let body = client.request_body(&prompt);

    let blocks: Vec<&serde_json::Value> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["content"].as_array().unwrap())
        .filter(|block| block["type"] == "thinking" || block["type"] == "redacted_thinking")
        .collect();
    // Only Anthropic's own thinking goes back, with its signature; OpenAI's encrypted
    // reasoning would fail Anthropic's signature check.
    assert_eq!(
        blocks,
        vec![&json!({
            "type": "thinking",
            "thinking": "The user wants the files. I'll run ls.",
            "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
        })]
    );
    assert!(!body.to_string().contains("gAAAAABo-encrypted-reasoning"));
}

/// `value` without its `cache_control` markers: what the cache compares.
fn without_cache_control(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .filter(|(key, _)| *key != "cache_control")
                .map(|(key, value)| (key.clone(), without_cache_control(value)))
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(without_cache_control).collect())
        }
        other => other.clone(),
    }
}

/// Where the message breakpoints of a request body are: (message index, block index).
fn message_breakpoints(body: &serde_json::Value) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (m, message) in body["messages"].as_array().unwrap().iter().enumerate() {
        for (b, block) in message["content"].as_array().unwrap().iter().enumerate() {
            if block.get("cache_control").is_some() {
                assert_eq!(block["cache_control"], json!({ "type": "ephemeral" }));
                found.push((m, b));
            }
        }
    }
    found
}

/// The Anthropic tool-use answer with these cache figures in its usage.
fn answer_with_cache(created: i64, read: i64) -> String {
    fixture("anthropic_tool_use.sse").replace(
        r#""cache_creation_input_tokens":0,"cache_read_input_tokens":2048"#,
        &format!(r#""cache_creation_input_tokens":{created},"cache_read_input_tokens":{read}"#),
    )
}

#[tokio::test]
async fn prompt_cache_breakpoints_move_forward_while_the_prefix_stays_byte_identical() {
    let server = MockServer::start().await;
    // A real server writes the prefix on the first turn and reads it back on the next ones.
    for (created, read) in [(3_000, 0), (900, 3_000), (700, 3_900)] {
        Mock::given(method("POST"))
            .respond_with(sse(answer_with_cache(created, read)))
            .up_to_n_times(1)
            .expect(1)
            .mount(&server)
            .await;
    }
    let client = client(
        provider(WireApi::Anthropic, &server.uri()),
        "claude-sonnet-4-5",
    );
    let mut prompt = rich_prompt(WireApi::Anthropic);
    prompt.input.truncate(2); // developer text and the first user message
    let mut cache_usage = Vec::new();
    for turn in 1..=3 {
        let (events, error) = collect(&client, &prompt).await;
        assert_eq!(error, None);
        for event in events {
            match event {
                ResponseEvent::OutputItemDone(item) => {
                    prompt.input.push(std::borrow::Cow::Owned(item))
                }
                ResponseEvent::PromptCache {
                    read_input_tokens,
                    creation_input_tokens,
                } => cache_usage.push((creation_input_tokens, read_input_tokens)),
                _ => {}
            }
        }
        prompt.input.push(std::borrow::Cow::Owned(
            agentctx_protocol::ResponseItem::function_call_output(
                "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                format!("lib.rs\nmain.rs (turn {turn})"),
            ),
        ));
    }

    let bodies: Vec<serde_json::Value> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| request.body_json().unwrap())
        .collect();
    assert_eq!(bodies.len(), 3);
    // Tools and system carry one breakpoint each and never change, marker included.
    for body in &bodies {
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(
            tools.last().unwrap()["cache_control"],
            json!({ "type": "ephemeral" })
        );
        assert_eq!(
            body["system"],
            json!([{
                "type": "text",
                "text": "You are a coding agent. Be concise.",
                "cache_control": { "type": "ephemeral" },
            }])
        );
        assert_eq!(body["tools"].to_string(), bodies[0]["tools"].to_string());
        assert_eq!(body["system"].to_string(), bodies[0]["system"].to_string());
    }
    // The message breakpoints sit on the newest two user turns and move forward.
    assert_eq!(message_breakpoints(&bodies[0]), vec![(0, 1)]);
    assert_eq!(message_breakpoints(&bodies[1]), vec![(0, 1), (2, 0)]);
    assert_eq!(message_breakpoints(&bodies[2]), vec![(2, 0), (4, 0)]);
    // Four breakpoints at most.
    for body in &bodies {
        assert!(message_breakpoints(body).len() + 2 <= 4);
    }
    // Each request is the previous one plus new messages, byte for byte once the markers
    // (which the cache does not compare) are set aside.
    for pair in bodies.windows(2) {
        let earlier = pair[0]["messages"].as_array().unwrap();
        let later = pair[1]["messages"].as_array().unwrap();
        assert!(later.len() > earlier.len());
        for (old, new) in earlier.iter().zip(later) {
            assert_eq!(
                without_cache_control(old).to_string(),
                without_cache_control(new).to_string()
            );
        }
    }
    // What the server reported about its cache reaches the consumer.
    assert_eq!(cache_usage, vec![(3_000, 0), (900, 3_000), (700, 3_900)]);
}

/// A Messages server with a small window that, as the API does, refuses a request whose input
/// plus `max_tokens` exceed it ("input length and `max_tokens` exceed context limit"). The input
/// is counted as 4 bytes of request JSON per token, about what a tokenizer makes of English.
struct SmallWindow {
    context_window: i64,
}

impl wiremock::Respond for SmallWindow {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let body: serde_json::Value = request.body_json().unwrap();
        let input_bytes = ["system", "messages", "tools"]
            .iter()
            .filter_map(|key| body.get(*key))
            .map(|value| value.to_string().len())
            .sum::<usize>();
        let input_tokens = i64::try_from(input_bytes.div_ceil(4)).unwrap();
        let max_tokens = body["max_tokens"].as_i64().unwrap();
        if input_tokens + max_tokens > self.context_window {
            let message = format!(
                "input length and `max_tokens` exceed context limit: {input_tokens} + {max_tokens} > {}, decrease input length or `max_tokens` and try again",
                self.context_window
            );
            return wiremock::ResponseTemplate::new(400).set_body_json(json!({
                "type": "error",
                "error": { "type": "invalid_request_error", "message": message },
            }));
        }
        sse(anthropic_text_stream("msg_small", "Hello!", "end_turn"))
    }
}

/// The SSE body of an answer of one text block that stops for `stop_reason`.
fn anthropic_text_stream(id: &str, text: &str, stop_reason: &str) -> String {
    let events = [
        (
            "message_start",
            json!({ "type": "message_start", "message": { "id": id, "type": "message", "role": "assistant", "content": [], "usage": { "input_tokens": 12, "output_tokens": 1 } } }),
        ),
        (
            "content_block_start",
            json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "text", "text": "" } }),
        ),
        (
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": text } }),
        ),
        (
            "content_block_stop",
            json!({ "type": "content_block_stop", "index": 0 }),
        ),
        (
            "message_delta",
            json!({ "type": "message_delta", "delta": { "stop_reason": stop_reason, "stop_sequence": null }, "usage": { "output_tokens": 7 } }),
        ),
        ("message_stop", json!({ "type": "message_stop" })),
    ];
    events
        .iter()
        .map(|(event, data)| format!("event: {event}\ndata: {data}\n\n"))
        .collect()
}

#[tokio::test]
async fn hi_fits_a_4096_token_window() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(SmallWindow {
            context_window: 4_096,
        })
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Anthropic, &server.uri()),
        "SmolLM2-135M-Instruct",
    )
    .with_model_info(agentctx_model::ModelInfo::with_context_window(4_096));

    let (events, error) = collect(
        &client,
        &agentctx_model::Prompt::system_and_user("Be brief.", "hi"),
    )
    .await;

    assert_eq!(error, None);
    assert_eq!(
        done_items(&events),
        vec![json!({
            "type": "message",
            "role": "assistant",
            "content": [{ "type": "output_text", "text": "Hello!" }],
        })]
    );
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    assert_eq!(body["max_tokens"], json!(1_024));
}

#[tokio::test]
async fn an_answer_cut_at_max_tokens_is_kept_and_marked_truncated() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(sse(anthropic_text_stream(
            "msg_cut",
            "The answer is",
            "max_tokens",
        )))
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
            "created",
            "added:message",
            "text:The answer is",
            "done:message",
            "truncated:max_tokens",
            "completed:msg_cut",
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "msg_cut".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 12,
                cached_input_tokens: 0,
                output_tokens: 7,
                reasoning_output_tokens: 0,
                total_tokens: 19,
            }),
        })
    );
}
