//! The minimal host (`examples/minimal_host.rs`), run as a Codex fork's user runs it: against a
//! Responses server speaking SSE it writes the file the model asks for (and refuses one outside
//! its working directory), prints the answer, and records a rollout the replay reads whole.

use std::path::Path;
use std::path::PathBuf;

use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::replay_file;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;
use wiremock::matchers::path;

/// The example, built by cargo with the tests (`cargo test` and nextest build a package's
/// examples along with its test binaries).
fn minimal_host() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/all-<hash> -> target/<profile>/examples/minimal_host
    let profile = exe.parent().and_then(Path::parent).unwrap();
    let host = profile
        .join("examples")
        .join(format!("minimal_host{}", std::env::consts::EXE_SUFFIX));
    assert!(
        host.exists(),
        "{} is missing: build it with `cargo build -p agentctx-engine --examples`",
        host.display()
    );
    host
}

fn event(data: Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

/// A Responses stream of `items`, each added then done, and the usage.
fn responses_sse(items: &[Value], input_tokens: u64) -> ResponseTemplate {
    let mut body = event(
        json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
    );
    for (index, item) in items.iter().enumerate() {
        let added =
            json!({"type": "response.output_item.added", "output_index": index, "item": item});
        body.push_str(&event(added));
        if let Some(text) = item["content"][0]["text"].as_str() {
            body.push_str(&event(json!({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index, "content_index": 0, "delta": text})));
        }
        let done =
            json!({"type": "response.output_item.done", "output_index": index, "item": item});
        body.push_str(&event(done));
    }
    let usage = json!({"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": input_tokens + 20});
    body.push_str(&event(json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": usage}})));
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

fn write_call(call_id: &str, path: &str, content: &str) -> Value {
    let arguments = json!({"path": path, "content": content}).to_string();
    json!({"id": format!("fc_{call_id}"), "type": "function_call", "status": "completed", "call_id": call_id, "name": "write_file", "arguments": arguments})
}

/// The `function_call_output` of `call_id` in a request body.
fn call_output(body: &Value, call_id: &str) -> String {
    let input = body["input"].as_array().unwrap();
    let output = input
        .iter()
        .find(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .unwrap_or_else(|| panic!("no output of {call_id} in {body:#}"));
    output["output"].as_str().unwrap().to_string()
}

/// Not a `tokio::test`: the replay runs its own runtime. (wiremock serves from a thread of its
/// own; this runtime only starts it and reads what it received.)
#[test]
fn the_minimal_host_runs_a_session_the_replay_reads() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(MockServer::start());
    let calls = [
        write_call("call_1", "notes.txt", "remember the milk\n"),
        write_call("call_2", "../outside.txt", "escaped\n"),
    ];
    let answer = json!({"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Wrote notes.txt.", "annotations": []}]});
    // Served in order: the first mounted answers once, then the second.
    for reply in [responses_sse(&calls, 900), responses_sse(&[answer], 1_100)] {
        let mock = Mock::given(method("POST"))
            .and(path("/v1/responses"))
            .respond_with(reply)
            .up_to_n_times(1)
            .expect(1);
        runtime.block_on(mock.mount(&server));
    }
    let root = tempfile::tempdir().unwrap();
    let (cwd, home) = (root.path().join("work"), root.path().join("home"));
    std::fs::create_dir(&cwd).unwrap();

    let output = assert_cmd::Command::new(minimal_host())
        .arg("Write a note to notes.txt")
        .current_dir(&cwd)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .env("OPENAI_API_KEY", "")
        .env("AGENTCTX_MODEL", "gpt-5")
        .env("AGENTCTX_HOME", &home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Wrote notes.txt.\n"
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
        "remember the milk\n"
    );
    assert!(!root.path().join("outside.txt").exists());

    // The second request carried both outputs, the refusal included; no key was sent.
    let requests = runtime.block_on(server.received_requests()).unwrap();
    assert_eq!(requests.len(), 2);
    assert!(!requests[1].headers.contains_key("authorization"));
    let body: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert!(call_output(&body, "call_1").starts_with("wrote "));
    let refused = call_output(&body, "call_2");
    assert!(
        refused.contains("outside the working directory"),
        "{refused}"
    );

    // The replay reads the rollout whole: one turn, its two requests, the two calls.
    let rollout = stderr
        .lines()
        .find_map(|line| line.strip_prefix("rollout: "))
        .unwrap_or_else(|| panic!("no rollout path in {stderr}"));
    assert!(Path::new(rollout).starts_with(&home), "{rollout}");
    let options = ReplayOptions {
        home,
        ..ReplayOptions::default()
    };
    let replay = replay_file(Path::new(rollout), &options, None).unwrap();
    assert_eq!(replay.skipped, Vec::new());
    assert!(replay.recorded_by_agentctx);
    assert_eq!(replay.turns.len(), 1);
    assert_eq!(replay.requests.len(), 2);
    assert_eq!(replay.tool_calls, 2);
    assert_eq!(replay.compactions, 0);
    assert_eq!(replay.model.as_deref(), Some("gpt-5"));
}
