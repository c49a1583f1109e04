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
