//! A session compacted at the provider on the Responses API (`POST /responses/compact`), then
//! resumed on Anthropic Messages: the second provider cannot read the opaque compaction item, so
//! its first request carries the item's readable copy in its place.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelInfo;
use agentctx_model::ProviderConfig;
use agentctx_model::WireApi;
use agentctx_protocol::CompactMode;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;
use wiremock::matchers::path;

use super::support::Out;
use super::support::anthropic_sse;
use super::support::bodies;
use super::support::client;
use super::support::dirs;
use super::support::drain;
use super::support::normalize;
use super::support::options;
use super::support::responses_sse;
use super::support::server;
use super::support::without_tools;

const TASK: &str = "Fix the flaky test in parser.rs";

/// The opaque item the provider returns (`encrypted_content` as the API reference shows it: an
/// opaque string only the provider reads).
fn opaque_item() -> Value {
    json!({"type": "compaction", "encrypted_content": "gAAAAB-OPAQUE-COMPACTION"})
}

/// The `/responses/compact` answer: "all user messages, followed by a single compaction item"
/// (<https://developers.openai.com/api/reference/resources/responses>, "Compact a response").
fn compact_answer() -> Value {
    json!({
        "id": "resp_compact_1",
        "object": "response.compaction",
        "output": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": TASK}]},
            opaque_item()
        ],
        "usage": {"input_tokens": 52000, "output_tokens": 900, "total_tokens": 52900}
    })
}

/// A Responses client on `server` that has the compaction endpoint, with a 60,000-token model.
fn responses_client(server: &MockServer) -> Arc<dyn ModelClient> {
    let mut provider = ProviderConfig {
        name: "openai-test".to_string(),
        base_url: format!("{}/v1", server.uri()),
        env_key: Some("TEST_API_KEY".to_string()),
        wire_api: WireApi::Responses,
        request_max_retries: Some(0),
        stream_max_retries: Some(0),
        stream_idle_timeout_ms: Some(0),
        ..ProviderConfig::default()
    };
    provider.context_management.compact_endpoint = Some(true);
    let env = |name: &str| (name == "TEST_API_KEY").then(|| "sk-test".to_string());
    let model = HttpModelClient::new(provider, "test-model", &env)
        .unwrap()
        .with_model_info(ModelInfo {
            max_output_tokens: Some(4_000),
            ..ModelInfo::with_context_window(60_000)
        });
    Arc::new(model)
}

/// Serves queued SSE bodies in order (the streamed requests of one path).
struct Streams(Mutex<VecDeque<String>>);

impl Respond for Streams {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        match self.0.lock().unwrap().pop_front() {
            Some(body) => ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"),
            None => ResponseTemplate::new(500).set_body_string("no more scripted responses"),
        }
    }
}

#[tokio::test]
async fn a_remotely_compacted_session_continues_on_anthropic_with_the_readable_copy() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("parser.rs"), "fn parse() { flaky() }\n").unwrap();

    // 1. OpenAI Responses: a tool call fills the window, the session compacts at the provider
    //    mid-turn, and the turn goes on with the compaction item sent back as it came.
    let openai = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses/compact"))
        .respond_with(ResponseTemplate::new(200).set_body_json(compact_answer()))
        .expect(1)
        .mount(&openai)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(Streams(Mutex::new(
            vec![
                responses_sse(
                    &[Out::Call {
                        call_id: "call_read",
                        name: "read_file",
                        arguments: json!({"path": "parser.rs"}),
                    }],
                    52_000,
                ),
                responses_sse(&[Out::Text("Pinned the seed; the test passes.")], 4_000),
            ]
            .into(),
        )))
        .mount(&openai)
        .await;
    let mut first_options = options(&dirs, responses_client(&openai));
    first_options.compact.mode = CompactMode::Remote;
    let (mut first, mut events) = Session::new(first_options).unwrap();
    first
        .run_turn(TASK, &CancellationToken::new())
        .await
        .unwrap();
    let events = drain(&mut events);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SessionEvent::Loop(LoopEvent::CompactionCompleted { .. }))),
        "{events:#?}"
    );
    // No warning but codex's accuracy warning, which every compaction carries.
    assert!(
        !events.iter().any(|e| matches!(
            e,
            SessionEvent::Warning { message }
                if message != agentctx_core::COMPACTION_ACCURACY_WARNING
        )),
        "{events:#?}"
    );
    let sent = bodies(&openai).await;
    assert_eq!(sent.len(), 3, "request, compaction, request");
    // After the compaction the same provider gets the opaque item exactly as it wrote it.
    let after = &sent[2]["input"];
    assert!(
        after
            .as_array()
            .unwrap()
            .iter()
            .any(|item| *item == opaque_item()),
        "{after:#}"
    );
    assert!(!after.to_string().contains("agentctx_"), "{after:#}");

    // The rollout keeps the item with its readable copy in the compaction's replacement
    // history.
    let path = first.rollout_path().to_path_buf();
    drop(first);
    let text = std::fs::read_to_string(&path).unwrap();
    let compacted = text
        .lines()
        .filter_map(|line| serde_json::from_str::<agentctx_protocol::RolloutLine>(line).ok())
        .find_map(|line| match line.item {
            RolloutItem::Compacted(compacted) => compacted.replacement_history,
            _ => None,
        })
        .unwrap();
    let recorded = compacted
        .iter()
        .find(|item| matches!(item, ResponseItem::Compaction { .. }))
        .unwrap();
    let copy = recorded.readable_copy().unwrap().to_string();
    assert!(copy.contains(TASK), "{copy}");

    // 2. Anthropic Messages: the session resumed there; its first request carries the copy and
    //    no opaque item.
    let anthropic = server(vec![anthropic_sse(
        &[Out::Text("Adding the regression test.")],
        3_000,
    )])
    .await;
    let second_options = options(&dirs, client(&anthropic, WireApi::Anthropic, 60_000));
    let (mut second, _events) = Session::resume(second_options, &path).unwrap();
    second
        .run_turn("Now add a regression test", &CancellationToken::new())
        .await
        .unwrap();
    let sent = bodies(&anthropic).await;
    assert_eq!(sent.len(), 1);
    let body = sent[0].to_string();
    assert!(!body.contains("gAAAAB-OPAQUE-COMPACTION"), "{body}");
    assert!(!body.contains("encrypted_content"), "{body}");
    assert!(
        body.contains(
            &serde_json::to_string(&copy)
                .unwrap()
                .trim_matches('"')
                .to_string()
        ),
        "{body}"
    );
    insta::assert_json_snapshot!(
        "anthropic_after_remote_compaction",
        without_tools(normalize(&sent[0], &dirs, &second))
    );
}
