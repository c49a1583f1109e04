//! Every command that talks to a model goes to the address the configuration names, and to no
//! other: `run`, `loop`, `compact --provider`, `memory build --provider` and `config show`, with
//! `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL` or `OLLAMA_HOST` pointing at a local wiremock server
//! that speaks the three wire formats.
//!
//! The presets' own addresses (api.openai.com, api.anthropic.com, localhost:11434) are made
//! observable by routing every other connection through a "proxy" that only counts and drops
//! (`HTTPS_PROXY` / `HTTP_PROXY`, which reqwest follows; `NO_PROXY` exempts the wiremock
//! server's 127.0.0.1): a request that reaches it went somewhere the configuration did not name.

use std::net::TcpListener;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

use assert_cmd::Command;
use serde_json::Value;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;

use super::run_mock::agentctx_child;
use super::run_mock::git_env;
use super::run_mock::mock_server;

const CLAUDE_SAMPLE: &str =
    "examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";

const REPLY: &str = "<summary>The session is summarised.</summary>";

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_raw(body, "text/event-stream")
}

fn named_events(events: &[Value]) -> String {
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect()
}

/// A complete Responses stream answering `text`.
pub(super) fn responses_text(text: &str) -> String {
    named_events(&[
        json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}}),
        json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": text}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": {"input_tokens": 900, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 920}}}),
    ])
}

/// A complete Chat Completions stream answering `text`.
pub(super) fn chat_text(text: &str) -> String {
    let chunks = [
        json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]}),
        json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 900, "completion_tokens": 20, "total_tokens": 920}}),
    ];
    let mut body: String = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect();
    body.push_str("data: [DONE]\n\n");
    body
}

/// A complete Anthropic Messages stream answering `text`.
fn messages_text(text: &str) -> String {
    named_events(&[
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "usage": {"input_tokens": 900, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 20}}),
        json!({"type": "message_stop"}),
    ])
}

/// Answers each wire format at its path; anything else is a 404.
struct ThreeWireFormats;

impl Respond for ThreeWireFormats {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        match request.url.path() {
            "/v1/responses" => sse(responses_text(REPLY)),
            "/v1/chat/completions" => sse(chat_text(REPLY)),
            "/v1/messages" => sse(messages_text(REPLY)),
            _ => ResponseTemplate::new(404),
        }
    }
}

/// A listener that counts connections and drops them: the proxy every address but the
/// wiremock server's goes through.
struct Trap {
    address: String,
    connections: Arc<AtomicUsize>,
}

impl Trap {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&connections);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                counted.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        Self {
            address,
            connections,
        }
    }
}

/// The wiremock server, the trap, and the environment that points a preset at the server.
struct Setup {
    runtime: tokio::runtime::Runtime,
    server: MockServer,
    trap: Trap,
}

impl Setup {
    fn start() -> Self {
        let (runtime, server) =
            mock_server(Mock::given(method("POST")).respond_with(ThreeWireFormats));
        Self {
            runtime,
            server,
            trap: Trap::start(),
        }
    }

    /// `agentctx` with `provider`'s variables pointing at the server, every other address
    /// through the trap.
    fn agentctx(&self, provider: &str, home: &Path, cwd: &Path) -> Command {
        let mut cmd = agentctx_child(home, cwd);
        let uri = self.server.uri();
        match provider {
            "openai" => cmd
                .env("OPENAI_API_KEY", "sk-test")
                .env("OPENAI_BASE_URL", format!("{uri}/v1")),
            "anthropic" => cmd
                .env("ANTHROPIC_API_KEY", "sk-ant-test")
                .env("ANTHROPIC_BASE_URL", &uri),
            "ollama" => cmd.env("OLLAMA_HOST", uri.trim_start_matches("http://")),
            other => panic!("no variables for {other}"),
        };
        for name in [
            "HTTPS_PROXY",
            "HTTP_PROXY",
            "ALL_PROXY",
            "https_proxy",
            "http_proxy",
        ] {
            cmd.env(name, &self.trap.address);
        }
        cmd.env("NO_PROXY", "127.0.0.1")
            .env("no_proxy", "127.0.0.1");
        cmd
    }

    /// The paths of the requests the server received since the last call.
    fn take_paths(&self) -> Vec<String> {
        let requests = self
            .runtime
            .block_on(self.server.received_requests())
            .unwrap_or_default();
        self.runtime.block_on(self.server.reset());
        self.runtime.block_on(
            Mock::given(method("POST"))
                .respond_with(ThreeWireFormats)
                .mount(&self.server),
        );
        requests
            .iter()
            .map(|request| request.url.path().to_string())
            .collect()
    }
}

fn expected_path(provider: &str) -> &'static str {
    match provider {
        "openai" => "/v1/responses",
        "anthropic" => "/v1/messages",
        _ => "/v1/chat/completions",
    }
}

fn home_with_model(provider: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!("model = \"test-model\"\nmodel_provider = \"{provider}\"\n"),
    )
    .unwrap();
    std::fs::write(home.path().join("gitconfig"), "").unwrap();
    home
}

fn show(output: &std::process::Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn git(home: &Path, repo: &Path, args: &[&str]) {
    let mut cmd = Command::new("git");
    cmd.current_dir(repo).args(args);
    git_env(&mut cmd, home);
    assert!(cmd.output().unwrap().status.success(), "git {args:?}");
}

#[test]
fn every_model_command_reaches_only_the_configured_address() {
    let setup = Setup::start();
    for provider in ["openai", "anthropic", "ollama"] {
        let want = expected_path(provider);

        // run, one prompt.
        let home = home_with_model(provider);
        let cwd = tempfile::tempdir().unwrap();
        let output = setup
            .agentctx(provider, home.path(), cwd.path())
            .args(["run", "say hi"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{provider} run: {}", show(&output));
        let paths = setup.take_paths();
        assert!(paths.iter().any(|p| p == want), "{provider} run: {paths:?}");

        // compact --provider --model, the flags naming what the configuration also names.
        let home = home_with_model(provider);
        let output = setup
            .agentctx(provider, home.path(), &crate_dir())
            .args([
                "compact",
                "--tier",
                "full",
                "--provider",
                provider,
                "--model",
                "test-model",
                "--json",
                CLAUDE_SAMPLE,
            ])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{provider} compact: {}",
            show(&output)
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["summary_path"], "model", "{provider}: {report:#}");
        let paths = setup.take_paths();
        assert!(
            paths.iter().any(|p| p == want),
            "{provider} compact: {paths:?}"
        );

        // memory build --provider --model.
        let home = home_with_model(provider);
        let output = setup
            .agentctx(provider, home.path(), &crate_dir())
            .args([
                "memory",
                "build",
                "--from",
                "examples/sessions",
                "--min-idle-hours",
                "0",
                "--provider",
                provider,
                "--model",
                "test-model",
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            !stdout.contains("offline:"),
            "{provider} memory: {}",
            show(&output)
        );
        let paths = setup.take_paths();
        assert!(
            paths.iter().any(|p| p == want),
            "{provider} memory build: {paths:?} {}",
            show(&output)
        );

        // config show names the server's address as the one in use.
        let home = home_with_model(provider);
        let output = setup
            .agentctx(provider, home.path(), cwd.path())
            .args(["config", "show", "--json"])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{provider} config: {}",
            show(&output)
        );
        let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(
            shown["provider"]["base_url"]
                .as_str()
                .unwrap()
                .starts_with(&setup.server.uri()),
            "{provider}: {shown:#}"
        );
        setup.take_paths();
    }

    // loop, one iteration, in a git repository.
    let home = home_with_model("openai");
    let repo = tempfile::tempdir().unwrap();
    git(home.path(), repo.path(), &["init", "--quiet"]);
    std::fs::write(repo.path().join("README.md"), "# demo\n").unwrap();
    git(home.path(), repo.path(), &["add", "README.md"]);
    git(
        home.path(),
        repo.path(),
        &["commit", "--quiet", "-m", "initial"],
    );
    let output = setup
        .agentctx("openai", home.path(), repo.path())
        .args(["loop", "--iters", "1", "--yes", "look around"])
        .output()
        .unwrap();
    let paths = setup.take_paths();
    assert!(
        paths.iter().any(|p| p == "/v1/responses"),
        "loop: {paths:?} {}",
        show(&output)
    );

    assert_eq!(
        setup.trap.connections.load(Ordering::SeqCst),
        0,
        "a command connected to an address the configuration did not name"
    );
}

/// Every command resolves its provider and builds its client through core's one function
/// (`agentctx_core::resolve_model`, or `resolve_provider` where no model is
/// needed): no command source builds a client, looks up a provider or reads a base URL
/// variable itself, which is how `compact` and `memory build` came to post sessions to the
/// vendor's public endpoint while `run` honoured `OPENAI_BASE_URL`.
#[test]
fn the_commands_resolve_providers_only_through_core() {
    let forbidden = [
        "HttpModelClient::new",
        ".resolve_provider(",
        ".provider(",
        "ProviderConfig",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "OLLAMA_HOST",
        "ModelConfig",
    ];
    let mut offences = Vec::new();
    let mut pending = vec![crate_dir().join("src")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                for pattern in forbidden {
                    if code.contains(pattern) {
                        offences.push(format!(
                            "{}:{}: {}",
                            path.display(),
                            number + 1,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(offences.is_empty(), "{offences:#?}");
}
