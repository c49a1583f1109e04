//! `complete_structured`: the schema goes out as structured output, the reply is validated.

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ScriptedModelClient;
use agentctx_model::StructuredOutputError;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use schemars::JsonSchema;
use serde::Deserialize;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::body_partial_json;
use wiremock::matchers::method;

use super::support::client;
use super::support::fixture;
use super::support::provider;
use super::support::sse;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Review {
    verdict: String,
    reasons: Vec<String>,
}

#[tokio::test]
async fn scripted_reply_is_parsed_and_schema_is_sent() {
    let model = ScriptedModelClient::new("scripted");
    model.push_text(r#"{"verdict":"pass","reasons":["ok"]}"#);

    let review: Review = model
        .complete_structured("judge", "review this")
        .await
        .unwrap();

    assert_eq!(
        review,
        Review {
            verdict: "pass".to_string(),
            reasons: vec!["ok".to_string()]
        }
    );
    let schema = model.last_prompt().unwrap().output_schema.unwrap();
    insta::assert_json_snapshot!("review_output_schema", schema);
}

#[tokio::test]
async fn missing_required_field_is_a_typed_error() {
    let model = ScriptedModelClient::new("scripted");
    // The first rejected reply is asked for once more; the second one is the error.
    model.push_text(r#"{"verdict":"pass"}"#);
    model.push_text(r#"{"verdict":"pass"}"#);
    let dynamic: &dyn ModelClient = &model;

    let error = agentctx_model::complete_structured::<Review, _>(dynamic, "judge", "review")
        .await
        .unwrap_err();

    assert_eq!(
        error,
        ModelError::StructuredOutput(StructuredOutputError::MissingField {
            path: "$.reasons".to_string()
        })
    );
    assert_eq!(
        error.to_string(),
        "structured reply misses required field `$.reasons`"
    );
}

#[tokio::test]
async fn a_rejected_reply_is_asked_for_once_more_with_the_reason() {
    let model = ScriptedModelClient::new("scripted");
    model.push_text("Sure! The verdict is pass.");
    model.push_text(r#"{"verdict":"pass","reasons":["ok"]}"#);

    let review: Review = model
        .complete_structured("judge", "review this")
        .await
        .unwrap();

    assert_eq!(review.verdict, "pass");
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 2);
    let second = prompts[1].input[0].message_text().unwrap_or_default();
    insta::assert_snapshot!("structured_reask_user_text", second);
}

#[tokio::test]
async fn anthropic_structured_output_arrives_through_the_forced_tool() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("anthropic_structured.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Anthropic, &server.uri()),
        "claude-sonnet-4-5",
    );

    let review: Review = client
        .complete_structured("judge", "review this")
        .await
        .unwrap();

    assert_eq!(
        review,
        Review {
            verdict: "pass".to_string(),
            reasons: vec!["tests green".to_string()]
        }
    );
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    insta::assert_json_snapshot!("anthropic_structured_request_body", body);
}

#[tokio::test]
async fn responses_structured_request_carries_text_format() {
    let body = client(provider(WireApi::Responses, "http://127.0.0.1:9"), "gpt-5").request_body(
        &agentctx_model::Prompt {
            output_schema: Some(agentctx_model::output_schema_for::<Review>()),
            ..agentctx_model::Prompt::system_and_user("judge", "review")
        },
    );
    insta::assert_json_snapshot!("responses_structured_text_format", body["text"]);
    let chat = client(provider(WireApi::Chat, "http://127.0.0.1:9"), "qwen3").request_body(
        &agentctx_model::Prompt {
            output_schema: Some(agentctx_model::output_schema_for::<Review>()),
            ..agentctx_model::Prompt::system_and_user("judge", "review")
        },
    );
    assert_eq!(
        chat["response_format"]["json_schema"]["schema"],
        body["text"]["format"]["schema"]
    );
}

/// A streamed Chat Completions reply whose whole text is `text`.
fn chat_text_sse(text: &str) -> String {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        serde_json::json!({
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1_760_000_000,
            "model": "smollm2",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        })
    };
    let usage = serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_760_000_000,
        "model": "smollm2",
        "choices": [],
        "usage": { "prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140 },
    });
    format!(
        "data: {}\n\ndata: {}\n\ndata: {usage}\n\ndata: [DONE]\n\n",
        chunk(
            serde_json::json!({ "role": "assistant", "content": text }),
            serde_json::Value::Null
        ),
        chunk(serde_json::json!({}), serde_json::json!("stop")),
    )
}

/// What llama-cpp-python answers a `response_format` of type `json_schema`: its request type
/// takes only `text` and `json_object` (`llama_cpp/llama_types.py`,
/// `ChatCompletionRequestResponseFormat`), and its route wrapper turns the request validation
/// error into a 500 carrying the error list (`llama_cpp/server/errors.py`, `RouteErrorHandler`;
/// both in abetlen/llama-cpp-python).
const LLAMA_CPP_PYTHON_REFUSAL: &str = r#"{"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]","type":"internal_server_error","param":null,"code":null}}"#;

/// An OpenAI-style 400 for a `response_format` the server does not take.
fn unsupported_format_400(kind: &str) -> wiremock::ResponseTemplate {
    wiremock::ResponseTemplate::new(400).set_body_json(serde_json::json!({
        "error": {
            "message": format!("Invalid parameter: 'response_format' of type '{kind}' is not supported with this model."),
            "type": "invalid_request_error",
            "param": "response_format",
            "code": null,
        }
    }))
}

/// A chat client on `server` that does not retry (each refusal is one request).
fn chat_client(server: &MockServer) -> agentctx_model::HttpModelClient {
    client(
        agentctx_model::ProviderConfig {
            request_max_retries: Some(0),
            ..provider(WireApi::Chat, &server.uri())
        },
        "smollm2",
    )
}

/// The `response_format.type` of every request the server received (`none` when absent), and
/// the system message of the last one.
async fn formats_sent(server: &MockServer) -> (Vec<String>, String) {
    let requests = server.received_requests().await.unwrap();
    let bodies: Vec<serde_json::Value> = requests.iter().map(|r| r.body_json().unwrap()).collect();
    let formats = bodies
        .iter()
        .map(|body| {
            body["response_format"]["type"]
                .as_str()
                .unwrap_or("none")
                .to_string()
        })
        .collect();
    let system = bodies
        .last()
        .and_then(|body| body["messages"][0]["content"].as_str())
        .unwrap_or_default()
        .to_string();
    (formats, system)
}

const REVIEW_JSON: &str = r#"{"verdict":"pass","reasons":["ok"]}"#;

#[tokio::test]
async fn json_schema_refused_falls_back_to_json_object_and_the_client_remembers() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_partial_json(
            serde_json::json!({ "response_format": { "type": "json_schema" } }),
        ))
        .respond_with(
            wiremock::ResponseTemplate::new(500)
                .set_body_raw(LLAMA_CPP_PYTHON_REFUSAL, "application/json"),
        )
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(sse(chat_text_sse(REVIEW_JSON)))
        .mount(&server)
        .await;
    let client = chat_client(&server);

    let first: Review = client.complete_structured("judge", "review").await.unwrap();
    let second: Review = client.complete_structured("judge", "again").await.unwrap();

    assert_eq!(first, second);
    let (formats, system) = formats_sent(&server).await;
    // The refusal costs one request, once: the second call starts in JSON mode.
    assert_eq!(formats, ["json_schema", "json_object", "json_object"]);
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[1].body_json().unwrap();
    // llama-cpp-python turns a schema given with `json_object` into a grammar.
    assert_eq!(
        body["response_format"]["schema"],
        agentctx_model::output_schema_for::<Review>()
    );
    insta::assert_snapshot!("structured_fallback_system_message", system);
}

#[tokio::test]
async fn a_server_refusing_both_formats_gets_text_and_the_json_is_found_in_the_reply() {
    let server = MockServer::start().await;
    for kind in ["json_schema", "json_object"] {
        Mock::given(method("POST"))
            .and(body_partial_json(
                serde_json::json!({ "response_format": { "type": kind } }),
            ))
            .respond_with(unsupported_format_400(kind))
            .mount(&server)
            .await;
    }
    Mock::given(method("POST"))
        .respond_with(sse(chat_text_sse(&format!(
            "Here is the review:\n```json\n{REVIEW_JSON}\n```\nAnything else?"
        ))))
        .mount(&server)
        .await;
    let client = chat_client(&server);

    let review: Review = client.complete_structured("judge", "review").await.unwrap();
    let again: Review = client.complete_structured("judge", "again").await.unwrap();

    assert_eq!(review.verdict, "pass");
    assert_eq!(review, again);
    let (formats, system) = formats_sent(&server).await;
    assert_eq!(formats, ["json_schema", "json_object", "none", "none"]);
    assert!(system.contains(r#""verdict""#), "{system}");
}

#[tokio::test]
async fn errors_that_are_not_about_the_request_shape_do_not_fall_back() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            wiremock::ResponseTemplate::new(401)
                .set_body_string(r#"{"error":{"message":"Invalid API key","type":"auth"}}"#),
        )
        .mount(&server)
        .await;
    let client = chat_client(&server);

    let error = client
        .complete_structured::<Review>("judge", "review")
        .await
        .unwrap_err();

    assert!(
        matches!(error, ModelError::Auth { status: 401, .. }),
        "{error:?}"
    );
    let (formats, _) = formats_sent(&server).await;
    assert_eq!(formats, ["json_schema"]);
}

#[tokio::test]
async fn when_every_format_is_refused_the_plain_request_error_is_returned() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(400).set_body_json(serde_json::json!({
            "error": { "message": "model `smollm2` is not loaded", "type": "invalid_request_error" }
        })))
        .mount(&server)
        .await;
    let client = chat_client(&server);

    let error = client
        .complete_structured::<Review>("judge", "review")
        .await
        .unwrap_err();

    assert!(error.to_string().contains("is not loaded"), "{error}");
    let (formats, _) = formats_sent(&server).await;
    assert_eq!(formats, ["json_schema", "json_object", "none"]);
    // Nothing was accepted, so the next call tries the schema again.
    let _ = client.complete_structured::<Review>("judge", "again").await;
    let (formats, _) = formats_sent(&server).await;
    assert_eq!(formats.get(3).map(String::as_str), Some("json_schema"));
}

#[test]
fn each_mode_shapes_the_request_of_every_wire_format() {
    use agentctx_model::StructuredOutputMode;
    let shape = |wire_api: WireApi, mode: StructuredOutputMode| {
        let body = client(provider(wire_api, "http://127.0.0.1:9"), "model").request_body(
            &agentctx_model::Prompt {
                output_schema: Some(serde_json::json!({ "type": "object" })),
                output_schema_mode: mode,
                ..agentctx_model::Prompt::system_and_user("judge", "review")
            },
        );
        match wire_api {
            WireApi::Chat => body["response_format"].clone(),
            WireApi::Responses => body["text"].clone(),
            WireApi::Anthropic => serde_json::json!({
                "tools": body["tools"],
                "tool_choice": body["tool_choice"],
            }),
        }
    };
    let mut shapes = serde_json::Map::new();
    for wire_api in [WireApi::Chat, WireApi::Responses, WireApi::Anthropic] {
        for mode in [
            StructuredOutputMode::JsonSchema,
            StructuredOutputMode::JsonObject,
            StructuredOutputMode::Text,
        ] {
            shapes.insert(
                format!("{wire_api:?} {}", mode.as_str()),
                shape(wire_api, mode),
            );
        }
    }
    insta::assert_json_snapshot!("structured_modes_per_wire", shapes);
}
