//! Request retries on the paused clock: 429 with retry-after per provider, 5xx backoff,
//! bounded attempts, no retry for auth failures.

use std::time::Duration;

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use tokio::time::Instant;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;

use super::support::client;
use super::support::collect;
use super::support::fixture;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::trace;

/// Serves `first` once, then the fixture; returns the virtual time the stream took.
async fn retry_once(
    wire_api: WireApi,
    first: ResponseTemplate,
    fixture_name: &str,
) -> (Duration, Vec<String>) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(first)
        .up_to_n_times(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture(fixture_name)))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(wire_api, &server.uri()), "model");
    let started = Instant::now();
    let (events, error) = collect(&client, &rich_prompt(wire_api)).await;
    assert_eq!(error, None);
    (started.elapsed(), trace(&events))
}

fn assert_waited(elapsed: Duration, expected: Duration) {
    assert!(
        elapsed >= expected && elapsed < expected + Duration::from_millis(500),
        "waited {elapsed:?}, expected about {expected:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn responses_429_honours_retry_after_ms() {
    let limited = ResponseTemplate::new(429)
        .insert_header("retry-after-ms", "1500")
        .set_body_raw(
            r#"{"error":{"message":"Rate limit reached for gpt-5","type":"requests","code":"rate_limit_exceeded"}}"#,
            "application/json",
        );
    let (elapsed, events) =
        retry_once(WireApi::Responses, limited, "responses_tool_call.sse").await;
    assert_waited(elapsed, Duration::from_millis(1500));
    assert_eq!(
        events.last().map(String::as_str),
        Some("completed:resp_123")
    );
}

#[tokio::test(start_paused = true)]
async fn chat_429_honours_retry_after_seconds() {
    let limited = ResponseTemplate::new(429)
        .insert_header("retry-after", "3")
        .set_body_raw(
            r#"{"error":{"message":"Too many requests","type":"rate_limit_error"}}"#,
            "application/json",
        );
    let (elapsed, events) = retry_once(WireApi::Chat, limited, "chat_tool_call.sse").await;
    assert_waited(elapsed, Duration::from_secs(3));
    assert_eq!(
        events.last().map(String::as_str),
        Some("completed:chatcmpl-1")
    );
}

#[tokio::test(start_paused = true)]
async fn anthropic_429_honours_retry_after_seconds() {
    let limited = ResponseTemplate::new(429).insert_header("retry-after", "2").set_body_raw(
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
        "application/json",
    );
    let (elapsed, events) = retry_once(WireApi::Anthropic, limited, "anthropic_tool_use.sse").await;
    assert_waited(elapsed, Duration::from_secs(2));
    assert_eq!(
        events.last().map(String::as_str),
        Some("completed:msg_01XFDUDYJgAACzvnptvVoYEL")
    );
}

#[tokio::test(start_paused = true)]
async fn server_error_backs_off_exponentially_with_jitter() {
    let (elapsed, _) = retry_once(
        WireApi::Anthropic,
        ResponseTemplate::new(529).set_body_raw(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            "application/json",
        ),
        "anthropic_tool_use.sse",
    )
    .await;
    // First backoff: 200 ms ± 10 %.
    assert!(
        elapsed >= Duration::from_millis(180) && elapsed <= Duration::from_millis(220),
        "{elapsed:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn retries_are_bounded() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_raw(
                    r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#,
                    "application/json",
                ),
        )
        .expect(3)
        .mount(&server)
        .await;
    // request_max_retries = 2: three attempts in all.
    let client = client(provider(WireApi::Chat, &server.uri()), "model");

    let error = client.stream(&rich_prompt(WireApi::Chat)).await.err();

    assert_eq!(
        error,
        Some(ModelError::RateLimited {
            retry_after: Some(Duration::from_secs(1)),
            message: "slow down".to_string()
        })
    );
}

#[tokio::test(start_paused = true)]
async fn auth_failures_are_not_retried() {
    let server = MockServer::start().await;
    let body =
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_raw(body, "application/json"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Anthropic, &server.uri()), "model");

    let error = client.stream(&rich_prompt(WireApi::Anthropic)).await.err();

    assert_eq!(
        error,
        Some(ModelError::Auth {
            status: 401,
            body: body.to_string()
        })
    );
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_beyond_the_limit_is_returned_at_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "86400")
                .set_body_raw(
                    r#"{"error":{"message":"daily limit reached","type":"rate_limit_error"}}"#,
                    "application/json",
                ),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Responses, &server.uri()), "model");
    let started = Instant::now();

    let error = client.stream(&rich_prompt(WireApi::Responses)).await.err();

    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(
        error,
        Some(ModelError::RateLimited {
            retry_after: Some(Duration::from_secs(86400)),
            message: "daily limit reached".to_string()
        })
    );
}

#[tokio::test(start_paused = true)]
async fn server_error_honours_retry_after() {
    // A 503 (or Anthropic's 529) may say when to come back: RFC 9110, section 10.2.3, "when
    // sent with a 503 (Service Unavailable) response, Retry-After indicates how long the
    // service is expected to be unavailable". Backing off 200 ms instead hammers a server
    // that asked for three seconds.
    let (elapsed, _) = retry_once(
        WireApi::Responses,
        ResponseTemplate::new(503)
            .insert_header("retry-after", "3")
            .set_body_string("upstream unavailable"),
        "responses_tool_call.sse",
    )
    .await;
    assert_waited(elapsed, Duration::from_secs(3));
    let (elapsed, _) = retry_once(
        WireApi::Anthropic,
        ResponseTemplate::new(529)
            .insert_header("retry-after", "2")
            .set_body_raw(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                "application/json",
            ),
        "anthropic_tool_use.sse",
    )
    .await;
    assert_waited(elapsed, Duration::from_secs(2));
}

/// llama-cpp-python's answer to a request its pydantic model rejects: FastAPI's
/// `RequestValidationError` is caught by the server's `RouteErrorHandler` and returned as a 500
/// whose message is the Python repr of the errors
/// (abetlen/llama-cpp-python, llama_cpp/server/errors.py, `error_message_wrapper`). The
/// `input` echoes the request, so a long conversation makes a body of many kilobytes.
fn llama_cpp_validation_body() -> String {
    let echoed = "x".repeat(16 * 1024);
    let message = format!(
        "[{{'type': 'string_type', 'loc': ('body', 'messages', 2, 'typed-dict', 'content'), \
         'msg': 'Input should be a valid string', 'input': None}}, {{'type': 'missing', 'loc': \
         ('body', 'messages', 2, 'typed-dict', 'tool_call_id'), 'msg': 'Field required', \
         'input': {{'role': 'assistant', 'content': '{echoed}'}}}}]"
    );
    serde_json::json!({
        "error": {
            "message": message,
            "type": "internal_server_error",
            "param": null,
            "code": null,
        }
    })
    .to_string()
}

#[tokio::test(start_paused = true)]
async fn a_500_carrying_a_validation_error_is_not_retried() {
    let server = MockServer::start().await;
    let body = llama_cpp_validation_body();
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_raw(body.clone(), "application/json"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Chat, &server.uri()), "model");

    let error = client.stream(&rich_prompt(WireApi::Chat)).await.err();

    let Some(error) = error else {
        panic!("expected an error");
    };
    assert!(!error.is_retryable());
    // The whole body stays in the error; its text is cut for the reader.
    assert_eq!(
        error,
        ModelError::BadRequest {
            status: 500,
            body: body.clone()
        }
    );
    insta::assert_snapshot!(error.to_string(), @"
    bad request (status 500): the request is invalid:
      body.messages.2.typed-dict.content: Input should be a valid string
      body.messages.2.typed-dict.tool_call_id: Field required
    ");
}

#[tokio::test(start_paused = true)]
async fn a_5xx_with_a_fastapi_detail_body_is_not_retried() {
    // FastAPI's own validation body (a 422 normally; a proxy in front may turn it into a 5xx).
    let body = r#"{"detail":[{"type":"missing","loc":["body","messages",1,"content"],"msg":"Field required","input":{"role":"assistant"}}]}"#;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(502).set_body_raw(body, "application/json"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Chat, &server.uri()), "model");

    let error = client.stream(&rich_prompt(WireApi::Chat)).await.err();

    let Some(error) = error else {
        panic!("expected an error");
    };
    assert!(!error.is_retryable());
    insta::assert_snapshot!(error.to_string(), @"
    bad request (status 502): the request is invalid:
      body.messages.1.content: Field required
    ");
}
