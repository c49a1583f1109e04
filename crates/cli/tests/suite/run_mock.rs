//! A wiremock OpenAI Responses server for `agentctx run` and `agentctx loop`: the agent's
//! replies are served in order from a queue; the loop driver's summary and commit-message
//! requests (recognised by their system prompts) get a fixed reply, wherever they fall.
//! Everything the child process needs goes through its own environment (`child_env`), never
//! this process's.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;

use assert_cmd::Command;
use serde_json::Value;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;
use wiremock::matchers::path;

/// One output item of a scripted reply.
pub(super) enum Out {
    Text(&'static str),
    Call {
        call_id: &'static str,
        name: &'static str,
        arguments: Value,
    },
}

fn event(data: &Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

/// A Responses API stream with `outputs` (the events the API streams: created, item added,
/// deltas, item done, completed with usage).
pub(super) fn responses_sse(outputs: &[Out]) -> String {
    let mut body = event(
        &json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
    );
    for (index, out) in outputs.iter().enumerate() {
        match out {
            Out::Text(text) => {
                let id = format!("msg_{index}");
                body.push_str(&event(&json!({"type": "response.output_item.added", "output_index": index, "item": {"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []}})));
                body.push_str(&event(&json!({"type": "response.output_text.delta", "item_id": id, "output_index": index, "content_index": 0, "delta": text})));
                body.push_str(&event(&json!({"type": "response.output_item.done", "output_index": index, "item": {"id": id, "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}})));
            }
            Out::Call {
                call_id,
                name,
                arguments,
            } => {
                let id = format!("fc_{index}");
                let arguments = arguments.to_string();
                body.push_str(&event(&json!({"type": "response.output_item.added", "output_index": index, "item": {"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": name}})));
                body.push_str(&event(&json!({"type": "response.function_call_arguments.delta", "item_id": id, "output_index": index, "delta": arguments})));
                body.push_str(&event(&json!({"type": "response.output_item.done", "output_index": index, "item": {"id": id, "type": "function_call", "status": "completed", "arguments": arguments, "call_id": call_id, "name": name}})));
            }
        }
    }
    body.push_str(&event(&json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": {"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1020}}})));
    body
}

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_raw(body, "text/event-stream")
}

/// The agent's replies in order; the loop driver's own requests answered apart.
struct Script(Mutex<VecDeque<String>>);

impl Respond for Script {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = String::from_utf8_lossy(&request.body);
        if body.contains("You are a git commit message generator.") {
            return sse(responses_sse(&[Out::Text(
                "[iter] agent changes\n\nMade by the loop.",
            )]));
        }
        if body.contains("You are a concise technical summarizer.") {
            return sse(responses_sse(&[Out::Text("Wrote a file.")]));
        }
        match self.0.lock().unwrap().pop_front() {
            Some(reply) => sse(reply),
            None => ResponseTemplate::new(500).set_body_string("no more scripted replies"),
        }
    }
}

/// A wiremock server answering with `mock`, and the runtime it serves from: wiremock serves
/// from the runtime's worker thread while the blocking `assert_cmd` (or pseudo-terminal) calls
/// run on the test's own thread, so the caller keeps the runtime as long as the server.
pub(super) fn mock_server(mock: Mock) -> (tokio::runtime::Runtime, MockServer) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        mock.mount(&server).await;
        server
    });
    (runtime, server)
}

/// A mock server with its runtime (see [`mock_server`]).
pub(super) struct MockProvider {
    pub(super) runtime: tokio::runtime::Runtime,
    pub(super) server: MockServer,
}

impl MockProvider {
    pub(super) fn start(replies: Vec<String>) -> Self {
        let (runtime, server) = mock_server(
            Mock::given(method("POST"))
                .and(path("/v1/responses"))
                .respond_with(Script(Mutex::new(replies.into()))),
        );
        Self { runtime, server }
    }

    /// The JSON bodies of the agent's requests (the loop driver's own left out).
    pub(super) fn agent_bodies(&self) -> Vec<Value> {
        let requests = self
            .runtime
            .block_on(self.server.received_requests())
            .unwrap_or_default();
        requests
            .iter()
            .map(|request| serde_json::from_slice::<Value>(&request.body).unwrap())
            .filter(|body| {
                let text = body.to_string();
                !text.contains("You are a git commit message generator.")
                    && !text.contains("You are a concise technical summarizer.")
            })
            .collect()
    }

    /// `agentctx <args>` against this server through the built-in `openai` provider: key and
    /// base URL in the child's environment, the home in a temporary folder.
    pub(super) fn agentctx(&self, home: &Path, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = agentctx_child(home, cwd);
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", format!("{}/v1", self.server.uri()))
            .args(args);
        cmd
    }
}

/// `agentctx` with a clean, explicit environment: the home, no provider variables from the
/// caller, git that reads no user configuration and has an identity.
pub(super) fn agentctx_child(home: &Path, cwd: &Path) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(cwd)
        .env("AGENTCTX_HOME", home)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("OLLAMA_HOST")
        .env_remove("RUST_LOG");
    git_env(&mut cmd, home);
    cmd
}

/// Git with no user or system configuration and a fixed identity.
pub(super) fn git_env(cmd: &mut Command, home: &Path) {
    cmd.env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com");
}

/// A home with `model` set, and a working directory, both temporary.
pub(super) struct Dirs {
    pub(super) home: tempfile::TempDir,
    pub(super) cwd: tempfile::TempDir,
}

pub(super) fn dirs() -> Dirs {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "model = \"gpt-test\"\n").unwrap();
    std::fs::write(home.path().join("gitconfig"), "").unwrap();
    Dirs {
        home,
        cwd: tempfile::tempdir().unwrap(),
    }
}

/// The texts of the input items of a request body.
pub(super) fn input_texts(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|item| {
            let mut texts = Vec::new();
            // A text-only message carries its text as a string.
            if let Some(text) = item["content"].as_str() {
                texts.push(text.to_string());
            }
            if let Some(content) = item["content"].as_array() {
                texts.extend(
                    content
                        .iter()
                        .filter_map(|part| part["text"].as_str().map(str::to_string)),
                );
            }
            if let Some(output) = item["output"].as_str() {
                texts.push(output.to_string());
            }
            texts
        })
        .collect()
}
