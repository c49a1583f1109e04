//! OpenAI's provider-side compaction against a wiremock server speaking the real wire format:
//! `POST /responses/compact` (request body, headers, parsed history, failures the engine falls
//! back from) and server-side compaction inside a streamed `/responses` request.
//!
//! Fixtures are built from the documentation: `responses_compact.json` is the `CompactedResponse`
//! of the API reference ("Compact a response",
//! <https://developers.openai.com/api/reference/resources/responses>: `object:
//! "response.compaction"`, `output` = the user messages then one `compaction` item with `id`,
//! `encrypted_content` and `created_by`, and `usage`); `responses_server_compaction.sse` is a
//! stream whose first output item is the encrypted compaction item the compaction guide says the
//! stream includes once the threshold is crossed
//! (<https://developers.openai.com/api/docs/guides/compaction>, "Server-side compaction").

use agentctx_model::ContextManagementConfig;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ProviderConfig;
use agentctx_model::RemoteCompactionSupport;
use agentctx_model::WireApi;
use agentctx_model::owned_items;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::header;
use wiremock::matchers::method;
use wiremock::matchers::path;
use wiremock::matchers::query_param;

use super::support::client;
use super::support::collect;
use super::support::done_items;
use super::support::fixture;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::trace;

/// A Responses provider at `server` whose compaction endpoint is declared (a local server is
/// not `api.openai.com`), with an Azure-style query parameter that must survive on the URL.
fn compacting_provider(server: &MockServer) -> ProviderConfig {
    let mut provider = provider(WireApi::Responses, &format!("{}/v1", server.uri()));
    provider
        .query_params
        .insert("api-version".to_string(), "preview".to_string());
    provider.context_management.compact_endpoint = Some(true);
    provider
}

#[tokio::test]
async fn responses_compact_round_trip_sends_codex_body_and_returns_the_output() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses/compact"))
        .and(query_param("api-version", "preview"))
        .and(header("authorization", "Bearer sk-test-123"))
        .and(header("content-type", "application/json"))
        .and(header("accept", "application/json"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("responses_compact.json"), "application/json"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = client(compacting_provider(&server), "gpt-5");
    assert_eq!(
        client.remote_compaction(),
        RemoteCompactionSupport {
            endpoint: true,
            ..RemoteCompactionSupport::NONE
        }
    );
    let mut prompt = rich_prompt(WireApi::Responses);
    prompt.session_id = Some("session-1".to_string());

    let history = client.compact_remote(&prompt).await.unwrap();

    let expected: serde_json::Value = serde_json::from_str::<serde_json::Value>(&fixture(
        "responses_compact.json",
    ))
    .unwrap()["output"]
        .clone();
    assert_eq!(serde_json::to_value(&history).unwrap(), expected);
    assert!(matches!(
        history.last(),
        Some(ResponseItem::Compaction { encrypted_content, .. }) if encrypted_content == "gAAAAABo-compacted-history"
    ));
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    insta::assert_json_snapshot!("responses_compact_request_body", body);
}

#[tokio::test(start_paused = true)]
async fn a_failing_compact_endpoint_is_retried_then_returned_as_a_server_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses/compact"))
        .respond_with(ResponseTemplate::new(500).set_body_raw(
            r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}"#,
            "application/json",
        ))
        .expect(3)
        .mount(&server)
        .await;
    let client = client(compacting_provider(&server), "gpt-5");

    let error = client
        .compact_remote(&rich_prompt(WireApi::Responses))
        .await
        .unwrap_err();

    assert!(
        matches!(error, ModelError::Server { status: 500, .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_provider_without_the_endpoint_sends_nothing_and_says_so() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .expect(0)
        .mount(&server)
        .await;
    let prompt = Prompt::system_and_user("sys", "hi");
    let chat = client(provider(WireApi::Chat, &server.uri()), "qwen3");
    let local_responses = client(provider(WireApi::Responses, &server.uri()), "gpt-oss");
    let anthropic = client(
        provider(WireApi::Anthropic, &server.uri()),
        "claude-sonnet-4-5",
    );
    let host = server.address().to_string();

    for (model, wire) in [
        (&chat, "chat"),
        (&local_responses, "responses"),
        (&anthropic, "anthropic"),
    ] {
        assert!(!model.remote_compaction().endpoint);
        assert_eq!(
            model.compact_remote(&prompt).await,
            Err(ModelError::RemoteCompactionUnsupported {
                provider: format!("{wire}@{host}"),
            })
        );
    }
}

#[test]
fn the_openai_preset_has_the_endpoint_and_a_proxy_only_when_configured() {
    assert!(ProviderConfig::openai().compact_endpoint());
    let azure = ProviderConfig {
        base_url: "https://team.openai.azure.com/openai/v1".to_string(),
        ..ProviderConfig::openai()
    };
    assert!(azure.compact_endpoint());
    let mut proxy = ProviderConfig {
        base_url: "http://localhost:4000/v1".to_string(),
        ..ProviderConfig::openai()
    };
    assert!(!proxy.compact_endpoint());
    proxy.context_management.compact_endpoint = Some(true);
    assert!(proxy.compact_endpoint());
    assert!(!ProviderConfig::anthropic().compact_endpoint());
}

#[tokio::test]
async fn server_side_compaction_item_is_recorded_and_sent_back_as_codex_sends_it() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(sse(fixture("responses_server_compaction.sse")))
        .expect(2)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Responses, &format!("{}/v1", server.uri()));
    provider.context_management = ContextManagementConfig {
        compact_threshold: Some(200_000),
        ..ContextManagementConfig::default()
    };
    let client = client(provider, "gpt-5");
    assert!(client.remote_compaction().in_request);
    let first = Prompt::system_and_user("You are a coding agent.", "What is in src?");

    let (events, error) = collect(&client, &first).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "created",
            "added:compaction",
            "done:compaction",
            "added:message",
            "text:src holds main.rs.",
            "done:message",
            "completed:resp_456",
        ]
    );
    let items = done_items(&events);
    assert_eq!(
        items[0],
        json!({
            "type": "compaction",
            "id": "cmp_9",
            "encrypted_content": "gAAAAABo-server-side-compaction",
            "created_by": "system",
        })
    );

    // The next request carries the history with the recorded items appended.
    let mut history = first
        .input
        .iter()
        .map(|item| item.clone().into_owned())
        .collect::<Vec<_>>();
    history.extend(
        items
            .into_iter()
            .map(|item| serde_json::from_value::<ResponseItem>(item).unwrap()),
    );
    history.push(ResponseItem::user_text("And in tests?"));
    let second = Prompt {
        input: owned_items(history),
        ..first.clone()
    };
    let (_, error) = collect(&client, &second).await;
    assert_eq!(error, None);

    let requests = server.received_requests().await.unwrap();
    let first_body: serde_json::Value = requests[0].body_json().unwrap();
    assert_eq!(
        first_body["context_management"],
        json!([{ "type": "compaction", "compact_threshold": 200000 }])
    );
    let second_body: serde_json::Value = requests[1].body_json().unwrap();
    insta::assert_json_snapshot!("responses_request_with_server_compaction_item", second_body);
}
