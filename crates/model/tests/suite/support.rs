//! Shared helpers: fixtures, providers pointed at local servers, event collection, and a
//! loopback HTTP server that can cut or stall a stream (wiremock cannot).

use agentctx_model::owned_items;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ProviderConfig;
use agentctx_model::ResponseEvent;
use agentctx_model::ToolSpec;
use agentctx_model::WireApi;
use agentctx_model::thinking::ThinkingResult;
use agentctx_model::thinking::ThinkingSource;
use agentctx_model::thinking::reasoning_options_for;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ReasoningSummary;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::ThinkingLevel;
use futures::StreamExt;
use serde_json::json;
use tokio::io::AsyncReadExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use wiremock::ResponseTemplate;

/// The API key every test provider reads from its fake environment.
pub(crate) const TEST_KEY: &str = "sk-test-123";

/// A fixture file's text.
pub(crate) fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("read {path}: {err}"))
}

/// A `200 text/event-stream` response with `body`.
pub(crate) fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_raw(body, "text/event-stream")
}

/// A provider of `wire_api` at `base_url`, keyed by `TEST_API_KEY`, idle timeout off (tests
/// on the paused clock must not have a timer pending while they wait for the server thread).
pub(crate) fn provider(wire_api: WireApi, base_url: &str) -> ProviderConfig {
    ProviderConfig {
        name: "test".to_string(),
        base_url: base_url.to_string(),
        env_key: Some("TEST_API_KEY".to_string()),
        wire_api,
        request_max_retries: Some(2),
        stream_max_retries: Some(2),
        stream_idle_timeout_ms: Some(0),
        ..ProviderConfig::default()
    }
}

/// The fake environment: only `TEST_API_KEY` (and `extra`) are set.
pub(crate) fn env(extra: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let mut map: HashMap<String, String> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    map.insert("TEST_API_KEY".to_string(), TEST_KEY.to_string());
    move |name| map.get(name).cloned()
}

/// A client for `provider` without connection pooling (no pool timers on the paused clock).
pub(crate) fn client(provider: ProviderConfig, slug: &str) -> HttpModelClient {
    HttpModelClient::new(provider, slug, &env(&[]))
        .unwrap()
        .with_http_client(
            reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .unwrap(),
        )
}

/// Every event of a stream, and the error that ended it, if any.
pub(crate) async fn collect(
    client: &dyn ModelClient,
    prompt: &Prompt<'_>,
) -> (Vec<ResponseEvent>, Option<ModelError>) {
    let mut stream = client.stream(prompt).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            Ok(event) => events.push(event),
            Err(error) => return (events, Some(error)),
        }
    }
    (events, None)
}

/// The completed items of a list of events, as JSON.
pub(crate) fn done_items(events: &[ResponseEvent]) -> Vec<serde_json::Value> {
    events
        .iter()
        .filter_map(|event| match event {
            ResponseEvent::OutputItemDone(item) => Some(serde_json::to_value(item).unwrap()),
            _ => None,
        })
        .collect()
}

/// The concatenated text deltas of a list of events.
pub(crate) fn text_deltas(events: &[ResponseEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            ResponseEvent::OutputTextDelta(piece) => Some(piece.as_str()),
            _ => None,
        })
        .collect()
}

/// The thinking result of an "ultrathink" keyword (what the application layer computes).
pub(crate) fn ultrathink() -> ThinkingResult {
    ThinkingResult {
        level: ThinkingLevel::UltraThink,
        budget_tokens: Some(32_000),
        keyword_detected: Some("ultrathink".to_string()),
        source: ThinkingSource::Keyword,
        explicit: true,
        interleaved: false,
    }
}

/// A prompt with every kind of history item a provider must convert: developer text, user
/// text, reasoning, a tool call and its output, assistant text, an image, and a ghost snapshot
/// (never sent). Thinking is the UltraThink mapping for `wire_api`.
pub(crate) fn rich_prompt(wire_api: WireApi) -> Prompt<'static> {
    Prompt {
        instructions: "You are a coding agent. Be concise.".to_string(),
        input: owned_items(vec![
            ResponseItem::developer_text("<permissions>workspace-write</permissions>"),
            ResponseItem::user_text("What is in src?"),
            ResponseItem::Reasoning {
                id: Some("rs_old".to_string()),
                summary: vec![ReasoningSummary::SummaryText {
                    text: "Listing files".to_string(),
                }],
                content: Some(vec![ReasoningContent::ReasoningText {
                    text: "I should list src.".to_string(),
                }]),
                encrypted_content: Some("sig-abc".to_string()),
                extra: ExtraFields::new(),
            },
            ResponseItem::function_call("call_1", "shell", r#"{"command":["ls","src"]}"#),
            ResponseItem::function_call_output("call_1", "lib.rs\nmain.rs"),
            ResponseItem::assistant_text("src has lib.rs and main.rs."),
            ResponseItem::Message {
                id: None,
                role: "user".to_string(),
                content: vec![
                    ContentItem::input_text("ultrathink: refactor lib.rs like this sketch"),
                    ContentItem::InputImage {
                        image_url: "data:image/png;base64,iVBORw0KGgo=".to_string(),
                        detail: None,
                    },
                ],
                extra: ExtraFields::new(),
            },
            ResponseItem::GhostSnapshot {
                ghost_commit: json!({ "id": "abc123" }),
                extra: ExtraFields::new(),
            },
        ]),
        tools: vec![ToolSpec {
            name: "shell".to_string(),
            description: "Run a shell command and return its output.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": { "command": { "type": "array", "items": { "type": "string" } } },
                "required": ["command"],
            }),
        }],
        reasoning: reasoning_options_for(&ultrathink(), wire_api),
        output_schema: None,
        session_id: None,
        ..Prompt::default()
    }
}

/// What a loopback connection does after reading the request.
#[derive(Debug, Clone)]
pub(crate) enum Loopback {
    /// Sends these bytes as a chunked SSE body, then closes without the final chunk: a
    /// connection dropped mid-stream.
    Cut(String),
    /// Sends these bytes, then keeps the connection open and silent: a stalled stream.
    Stall(String),
    /// Sends the whole body and ends it properly.
    Full(String),
    /// Reads the request and answers nothing, not even a status line, keeping the connection
    /// open: a server that accepted and hangs.
    Silent,
}

/// A loopback HTTP/1.1 server serving one script step per connection; it records the request
/// bodies it received.
pub(crate) struct LoopbackServer {
    pub(crate) base_url: String,
    pub(crate) requests: Arc<Mutex<Vec<String>>>,
}

/// Starts a loopback server on this runtime.
pub(crate) async fn loopback(steps: Vec<Loopback>) -> LoopbackServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&requests);
    tokio::spawn(async move {
        for step in steps {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let body = read_request(&mut socket).await;
            recorded.lock().unwrap().push(body);
            if let Loopback::Silent = step {
                let mut sink = [0_u8; 64];
                while socket.read(&mut sink).await.is_ok_and(|n| n > 0) {}
                continue;
            }
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
            socket.write_all(head.as_bytes()).await.unwrap();
            let (bytes, finish) = match &step {
                Loopback::Cut(bytes) => (bytes, false),
                Loopback::Stall(bytes) => (bytes, false),
                Loopback::Full(bytes) => (bytes, true),
                Loopback::Silent => continue,
            };
            let chunk = format!("{:x}\r\n{bytes}\r\n", bytes.len());
            socket.write_all(chunk.as_bytes()).await.unwrap();
            if finish {
                socket.write_all(b"0\r\n\r\n").await.unwrap();
            }
            socket.flush().await.unwrap();
            match step {
                Loopback::Stall(_) => {
                    // Keep the socket open and silent until the client gives up.
                    let mut sink = [0_u8; 64];
                    while socket.read(&mut sink).await.is_ok_and(|n| n > 0) {}
                }
                Loopback::Cut(_) | Loopback::Full(_) | Loopback::Silent => drop(socket),
            }
        }
    });
    LoopbackServer {
        base_url: format!("http://{address}"),
        requests,
    }
}

/// Reads one request (head and `content-length` body) and returns the body.
async fn read_request(socket: &mut tokio::net::TcpStream) -> String {
    let mut buffer = Vec::new();
    let mut chunk = [0_u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.unwrap();
        assert!(n > 0, "client closed before sending a request");
        buffer.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buffer).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            if buffer.len() >= end + 4 + length {
                return String::from_utf8_lossy(&buffer[end + 4..end + 4 + length]).to_string();
            }
        }
    }
}

/// The fixture cut `extra` bytes into the event after the one containing `marker`.
pub(crate) fn cut_after(body: &str, marker: &str, extra: usize) -> String {
    let at = body
        .find(marker)
        .unwrap_or_else(|| panic!("marker {marker} not in fixture"));
    let event_end = at + body[at..].find("\n\n").unwrap() + 2;
    body[..event_end + extra].to_string()
}

/// A compact trace of event kinds, for comparing event sequences at a glance.
pub(crate) fn trace(events: &[ResponseEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| match event {
            ResponseEvent::Created => "created".to_string(),
            ResponseEvent::OutputItemAdded(item) => format!("added:{}", item.type_name()),
            ResponseEvent::OutputItemDone(item) => format!("done:{}", item.type_name()),
            ResponseEvent::OutputTextDelta(piece) => format!("text:{piece}"),
            ResponseEvent::ReasoningSummaryDelta(piece) => format!("summary:{piece}"),
            ResponseEvent::ReasoningContentDelta(piece) => format!("thinking:{piece}"),
            ResponseEvent::Completed { response_id, .. } => format!("completed:{response_id}"),
            ResponseEvent::RateLimits(_) => "rate_limits".to_string(),
            ResponseEvent::AttemptAbandoned { .. } => "abandoned".to_string(),
            ResponseEvent::PromptCache { .. } => "prompt_cache".to_string(),
            ResponseEvent::ProviderContext(_) => "provider_context".to_string(),
            ResponseEvent::OutputTruncated { reason } => format!("truncated:{reason}"),
        })
        .collect()
}
