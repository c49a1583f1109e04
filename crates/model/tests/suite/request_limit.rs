//! `max_concurrent_requests`: a client limited to one open request sends the next only after
//! the answer before it has ended. llama-cpp-python, by default, cuts the running answer short
//! when another request arrives (`interrupt_requests`), so a session's background work would
//! otherwise end each answer empty.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use agentctx_model::Prompt;
use agentctx_model::WireApi;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::matchers::method;

use super::support::client;
use super::support::collect;
use super::support::provider;
use super::support::sse;
use super::support::text_deltas;

/// A streamed Chat Completions answer of `text`.
fn chat_sse(text: &str) -> String {
    let chunk = serde_json::json!({
        "id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]
    });
    let stop = serde_json::json!({
        "id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    });
    format!("data: {chunk}\n\ndata: {stop}\n\ndata: [DONE]\n\n")
}

/// The first request ("first") is answered after a second; the other at once.
struct SlowFirst;

impl Respond for SlowFirst {
    fn respond(&self, request: &Request) -> wiremock::ResponseTemplate {
        let body = String::from_utf8_lossy(&request.body);
        if body.contains("ask first") {
            sse(chat_sse("first")).set_delay(Duration::from_secs(1))
        } else {
            sse(chat_sse("second"))
        }
    }
}

/// The order in which the two answers ended, with `limit` on the provider.
async fn finishing_order(limit: Option<u32>) -> Vec<String> {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(SlowFirst)
        .mount(&server)
        .await;
    let mut config = provider(WireApi::Chat, &format!("{}/v1", server.uri()));
    config.max_concurrent_requests = limit;
    let client = client(config, "m");
    let order = Arc::new(Mutex::new(Vec::new()));
    let first = async {
        let prompt = Prompt::system_and_user("sys", "ask first");
        let (events, error) = collect(&client, &prompt).await;
        assert!(error.is_none(), "{error:?}");
        order.lock().unwrap().push(text_deltas(&events));
    };
    let second = async {
        // Sent just after the first, while it is still being answered.
        tokio::task::yield_now().await;
        let prompt = Prompt::system_and_user("sys", "ask second");
        let (events, error) = collect(&client, &prompt).await;
        assert!(error.is_none(), "{error:?}");
        order.lock().unwrap().push(text_deltas(&events));
    };
    tokio::join!(first, second);
    Arc::try_unwrap(order).unwrap().into_inner().unwrap()
}

#[tokio::test]
async fn a_client_limited_to_one_request_waits_for_the_open_answer() {
    assert_eq!(finishing_order(Some(1)).await, vec!["first", "second"]);
}

#[tokio::test]
async fn without_a_limit_the_requests_overlap() {
    assert_eq!(finishing_order(None).await, vec!["second", "first"]);
}
