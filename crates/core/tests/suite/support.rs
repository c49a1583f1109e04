//! Shared helpers: SSE bodies of the OpenAI Responses and Anthropic Messages APIs, a wiremock
//! responder that serves a queue of responses, sessions pointed at it (one model, or two models
//! resolved from a configuration), project skills, and request-body normalisation for snapshots.

use std::collections::VecDeque;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_core::ApprovalPolicy;
use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::ModelSelection;
use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_core::SessionOptions;
use agentctx_core::SessionOverrides;
use agentctx_core::session_setup;
use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelInfo;
use agentctx_model::ProviderConfig;
use agentctx_model::WireApi;
use serde_json::Value;
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;

/// One output item of a scripted Responses reply.
pub(crate) enum Out {
    Text(&'static str),
    Call {
        call_id: &'static str,
        name: &'static str,
        arguments: Value,
    },
}

/// The model's call of the tool `name` with `arguments`.
pub(crate) fn call(call_id: &'static str, name: &'static str, arguments: Value) -> Out {
    Out::Call {
        call_id,
        name,
        arguments,
    }
}

/// The model's call of the `skill` tool, without arguments for the skill.
pub(crate) fn invoke(call_id: &'static str, name: &str) -> Out {
    call(call_id, "skill", json!({"skill": name}))
}

fn event(kind: &str, data: Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

/// A Responses API stream with `outputs`, reporting `input_tokens` of usage.
pub(crate) fn responses_sse(outputs: &[Out], input_tokens: i64) -> String {
    let mut body = event(
        "response.created",
        json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
    );
    for (index, out) in outputs.iter().enumerate() {
        match out {
            Out::Text(text) => {
                let id = format!("msg_{index}");
                body.push_str(&event("response.output_item.added", json!({"type": "response.output_item.added", "output_index": index, "item": {"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []}})));
                body.push_str(&event("response.output_text.delta", json!({"type": "response.output_text.delta", "item_id": id, "output_index": index, "content_index": 0, "delta": text})));
                body.push_str(&event("response.output_item.done", json!({"type": "response.output_item.done", "output_index": index, "item": {"id": id, "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}})));
            }
            Out::Call {
                call_id,
                name,
                arguments,
            } => {
                let id = format!("fc_{index}");
                let arguments = arguments.to_string();
                body.push_str(&event("response.output_item.added", json!({"type": "response.output_item.added", "output_index": index, "item": {"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": name}})));
                body.push_str(&event("response.function_call_arguments.delta", json!({"type": "response.function_call_arguments.delta", "item_id": id, "output_index": index, "delta": arguments})));
                body.push_str(&event("response.output_item.done", json!({"type": "response.output_item.done", "output_index": index, "item": {"id": id, "type": "function_call", "status": "completed", "arguments": arguments, "call_id": call_id, "name": name}})));
            }
        }
    }
    body.push_str(&event(
        "response.completed",
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": input_tokens + 20}}}),
    ));
    body
}

/// An Anthropic Messages stream with `outputs`, reporting `input_tokens` of usage.
pub(crate) fn anthropic_sse(outputs: &[Out], input_tokens: i64) -> String {
    let mut body = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": [], "stop_reason": null, "usage": {"input_tokens": input_tokens, "output_tokens": 1}}}),
    );
    let mut stop = "end_turn";
    for (index, out) in outputs.iter().enumerate() {
        match out {
            Out::Text(text) => {
                body.push_str(&event("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
                body.push_str(&event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}})));
            }
            Out::Call {
                call_id,
                name,
                arguments,
            } => {
                stop = "tool_use";
                body.push_str(&event("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}})));
                body.push_str(&event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": arguments.to_string()}})));
            }
        }
        body.push_str(&event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    body.push_str(&event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 20}})));
    body.push_str(&event("message_stop", json!({"type": "message_stop"})));
    body
}

/// Serves queued SSE bodies in order; a request past the end gets a 500.
pub(crate) struct Queue(pub(crate) Mutex<VecDeque<String>>);

impl Respond for Queue {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        match self.0.lock().unwrap().pop_front() {
            Some(body) => ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_raw(body, "text/event-stream"),
            None => ResponseTemplate::new(500).set_body_string("no more scripted responses"),
        }
    }
}

/// A mock server answering every POST with `bodies` in order.
pub(crate) async fn server(bodies: Vec<String>) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Queue(Mutex::new(bodies.into())))
        .mount(&server)
        .await;
    server
}

/// A client of `wire_api` on `server` with a `context_window`-token model.
pub(crate) fn client(
    server: &MockServer,
    wire_api: WireApi,
    context_window: i64,
) -> Arc<dyn ModelClient> {
    let model = HttpModelClient::new(test_provider(server, wire_api), "test-model", &test_env)
        .unwrap()
        .with_model_info(ModelInfo {
            max_output_tokens: Some(4_000),
            ..ModelInfo::with_context_window(context_window)
        });
    Arc::new(model)
}

/// The variables a test provider reads: its API key.
pub(crate) fn test_env(name: &str) -> Option<String> {
    (name == "TEST_API_KEY").then(|| "sk-test".to_string())
}

/// The provider of `wire_api` on `server`, without retries or idle timeout.
pub(crate) fn test_provider(server: &MockServer, wire_api: WireApi) -> ProviderConfig {
    let base_url = match wire_api {
        WireApi::Anthropic => server.uri(),
        _ => format!("{}/v1", server.uri()),
    };
    ProviderConfig {
        name: "test".to_string(),
        base_url,
        env_key: Some("TEST_API_KEY".to_string()),
        wire_api,
        request_max_retries: Some(0),
        stream_max_retries: Some(0),
        stream_idle_timeout_ms: Some(0),
        ..ProviderConfig::default()
    }
}

/// A working directory and a home, both temporary.
pub(crate) struct Dirs {
    _root: tempfile::TempDir,
    pub(crate) cwd: PathBuf,
    pub(crate) home: PathBuf,
}

pub(crate) fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path().join("project");
    let home = root.path().join("home");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    Dirs {
        cwd: cwd.canonicalize().unwrap(),
        home: home.canonicalize().unwrap(),
        _root: root,
    }
}

/// Options with auto-approval and no date (stable prompts).
pub(crate) fn options(dirs: &Dirs, model: Arc<dyn ModelClient>) -> SessionOptions {
    let mut options = SessionOptions::new(&dirs.cwd, &dirs.home, model);
    options.approval = ApprovalPolicy::AutoApprove;
    options.provider_name = "test".to_string();
    options
}

/// A session with [`options`] on a Responses client of a `context_window`-token model on
/// `server`.
pub(crate) fn responses_session(
    dirs: &Dirs,
    server: &MockServer,
    context_window: i64,
) -> (Session, UnboundedReceiver<SessionEvent>) {
    let model = client(server, WireApi::Responses, context_window);
    Session::new(options(dirs, model)).unwrap()
}

/// A provider `mock` on `server` with a big and a small model, as `agentctx run` resolves them;
/// no background session-memory extraction (its requests would take the scripted replies).
pub(crate) fn two_model_config(server: &MockServer) -> Config {
    let text = format!(
        "model_provider = \"mock\"\n\
         [model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
         env_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\
         [model_providers.mock.models.\"big-model\"]\ncontext_window = 200000\nmax_output_tokens = 4000\n\
         [model_providers.mock.models.\"small-model\"]\ncontext_window = 16000\nmax_output_tokens = 2000\n\
         [compact.session_memory]\nextraction_enabled = false\ncompact_enabled = false\n",
        server.uri()
    );
    Config::from_toml(&text, Path::new("config.toml")).unwrap()
}

/// A session on `model` of `config` (see [`two_model_config`]), set up as `agentctx run` sets
/// one up, with auto-approval and no date (stable prompts); resuming the rollout `resume` if
/// given.
pub(crate) async fn two_model_session(
    dirs: &Dirs,
    config: &Config,
    model: &str,
    resume: Option<&Path>,
) -> (Session, UnboundedReceiver<SessionEvent>) {
    let env = EnvVars::from_pairs([("MOCK_API_KEY", "sk-test")]);
    let overrides = SessionOverrides {
        selection: ModelSelection {
            model: Some(model.to_string()),
            ..ModelSelection::default()
        },
        approval: ApprovalPolicy::AutoApprove,
        ..SessionOverrides::default()
    };
    let mut setup = session_setup(config, &env, &dirs.cwd, &dirs.home, overrides)
        .await
        .unwrap();
    setup.options.current_date = None;
    match resume {
        Some(path) => Session::resume(setup.options, path).unwrap(),
        None => Session::new(setup.options).unwrap(),
    }
}

/// Writes the project skill `name` with `frontmatter` (its lines, each ending in a newline)
/// and `body`; returns the path of its `SKILL.md`.
pub(crate) fn skill(cwd: &Path, name: &str, frontmatter: &str, body: &str) -> PathBuf {
    let dir = cwd.join(".agentctx/skills").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("SKILL.md");
    std::fs::write(&path, format!("---\n{frontmatter}---\n{body}\n")).unwrap();
    path
}

/// Everything the session sent so far.
pub(crate) fn drain(events: &mut UnboundedReceiver<SessionEvent>) -> Vec<SessionEvent> {
    let mut out = Vec::new();
    while let Ok(event) = events.try_recv() {
        out.push(event);
    }
    out
}

/// The JSON bodies of the requests `server` received.
pub(crate) async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

/// `body` without its tool list (snapshotted once, in the first request).
pub(crate) fn without_tools(mut body: Value) -> Value {
    if let Some(object) = body.as_object_mut() {
        object.remove("tools");
    }
    body
}

/// `body` with the temporary paths and the session id replaced by placeholders.
pub(crate) fn normalize(body: &Value, dirs: &Dirs, session: &Session) -> Value {
    let text = body
        .to_string()
        .replace(&path_json(&dirs.cwd), "[CWD]")
        .replace(&path_json(&dirs.home), "[HOME]")
        .replace(session.session_id(), "[SESSION]");
    serde_json::from_str(&text).unwrap()
}

fn path_json(path: &Path) -> String {
    let quoted = serde_json::to_string(&path.display().to_string()).unwrap();
    quoted.trim_matches('"').to_string()
}

/// The texts of the `input` messages of a Responses request body (a text-only message carries
/// its text as a string, a message with an image as a list of parts).
pub(crate) fn input_texts(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| {
            if let Some(text) = item.get("content")?.as_str() {
                return Some(text.to_string());
            }
            let content = item.get("content")?.as_array()?;
            Some(
                content
                    .iter()
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(""),
            )
        })
        .collect()
}

/// The names of the tools a Responses request body offers.
pub(crate) fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

/// The outputs of function calls in a Responses request body.
pub(crate) fn call_outputs(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .map(|item| item["output"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The warnings among `events`, in order.
pub(crate) fn warnings(events: Vec<SessionEvent>) -> Vec<String> {
    events
        .into_iter()
        .filter_map(|event| match event {
            SessionEvent::Warning { message } => Some(message),
            _ => None,
        })
        .collect()
}
