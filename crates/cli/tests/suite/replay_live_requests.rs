//! One pipeline: a session `agentctx run` recorded against a scripted provider replays with
//! `agentctx replay --requests DIR` into exactly the request bodies the live session sent, on
//! the Responses and the Anthropic Messages wire formats.
//!
//! The session has two turns (the second a `run --resume`), tool calls, a todo list, and a file
//! the model read and that changed on disk before the second turn, so its requests carry the
//! todo and changed-file reminders the live engine placed. Only ids and timestamps may differ
//! between a live body and its replayed twin; the bodies here have none, so they are compared
//! whole.

use std::collections::VecDeque;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Mutex;

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;

use super::run_mock::agentctx_child;
use super::run_mock::mock_server;

/// One output item of a scripted reply.
enum Out {
    Text(&'static str),
    Call {
        call_id: &'static str,
        name: &'static str,
        arguments: Value,
    },
}

fn named(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// A Responses API stream with `outputs` (created, items added and done, completed with usage).
fn responses_sse(outputs: &[Out], input_tokens: i64) -> String {
    let mut body = named(
        "response.created",
        &json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
    );
    for (index, out) in outputs.iter().enumerate() {
        let item = match out {
            Out::Text(text) => {
                json!({"id": format!("msg_{index}"), "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]})
            }
            Out::Call {
                call_id,
                name,
                arguments,
            } => {
                json!({"id": format!("fc_{index}"), "type": "function_call", "status": "completed", "arguments": arguments.to_string(), "call_id": call_id, "name": name})
            }
        };
        body.push_str(&named(
            "response.output_item.done",
            &json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        ));
    }
    body.push_str(&named(
        "response.completed",
        &json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": input_tokens + 20}}}),
    ));
    body
}

/// An Anthropic Messages stream with `outputs` (the event sequence of the Messages streaming
/// documentation: message_start, a start/delta/stop triple per content block, message_delta
/// with the stop reason and usage, message_stop).
fn messages_sse(outputs: &[Out], input_tokens: i64) -> String {
    let mut body = named(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "test-model", "content": [], "stop_reason": null, "usage": {"input_tokens": input_tokens, "output_tokens": 1}}}),
    );
    let mut stop = "end_turn";
    for (index, out) in outputs.iter().enumerate() {
        match out {
            Out::Text(text) => {
                body.push_str(&named("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
                body.push_str(&named("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}})));
            }
            Out::Call {
                call_id,
                name,
                arguments,
            } => {
                stop = "tool_use";
                body.push_str(&named("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}})));
                body.push_str(&named("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": arguments.to_string()}})));
            }
        }
        body.push_str(&named(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
    }
    body.push_str(&named("message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 20}})));
    body.push_str(&named("message_stop", &json!({"type": "message_stop"})));
    body
}

/// Serves queued SSE bodies in order; a request past the end gets a 500.
struct Queue(Mutex<VecDeque<String>>);

impl Respond for Queue {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        match self.0.lock().unwrap().pop_front() {
            Some(body) => ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_raw(body, "text/event-stream"),
            None => ResponseTemplate::new(500).set_body_string("no more scripted replies"),
        }
    }
}

/// The agent's three requests: a todo list and a read, an answer; then (second turn) an answer.
fn script(wire: &str) -> Vec<String> {
    let replies: [(Vec<Out>, i64); 3] = [
        (
            vec![
                Out::Call {
                    call_id: "call_todo",
                    name: "todo_write",
                    arguments: json!({"todos": [
                        {"content": "Read the notes", "status": "in_progress", "activeForm": "Reading the notes"},
                        {"content": "Answer", "status": "pending", "activeForm": "Answering"}
                    ]}),
                },
                Out::Call {
                    call_id: "call_read",
                    name: "read_file",
                    arguments: json!({"path": "notes.md"}),
                },
            ],
            1_500,
        ),
        (vec![Out::Text("The notes say v1.")], 1_900),
        (vec![Out::Text("They now say v2.")], 2_300),
    ];
    replies
        .iter()
        .map(|(outputs, tokens)| match wire {
            "anthropic" => messages_sse(outputs, *tokens),
            _ => responses_sse(outputs, *tokens),
        })
        .collect()
}

struct Provider {
    runtime: tokio::runtime::Runtime,
    server: MockServer,
}

impl Provider {
    fn start(replies: Vec<String>) -> Self {
        let (runtime, server) = mock_server(
            Mock::given(method("POST")).respond_with(Queue(Mutex::new(replies.into()))),
        );
        Self { runtime, server }
    }

    fn bodies(&self) -> Vec<Value> {
        self.runtime
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .iter()
            .map(|request| serde_json::from_slice(&request.body).unwrap())
            .collect()
    }

    /// `agentctx <args>` with `wire`'s provider pointing at this server.
    fn agentctx(&self, wire: &str, home: &Path, cwd: &Path, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = agentctx_child(home, cwd);
        let uri = self.server.uri();
        match wire {
            "anthropic" => cmd
                .env("ANTHROPIC_API_KEY", "sk-ant-test")
                .env("ANTHROPIC_BASE_URL", &uri),
            _ => cmd
                .env("OPENAI_API_KEY", "sk-test")
                .env("OPENAI_BASE_URL", format!("{uri}/v1")),
        };
        cmd.args(args);
        cmd
    }
}

fn rollout_of(home: &Path) -> PathBuf {
    let mut found = Vec::new();
    let mut stack = vec![home.join("sessions")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                found.push(path);
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

fn live_session_replays_into_the_bodies_it_sent(wire: &str) {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let provider_id = if wire == "anthropic" {
        "anthropic"
    } else {
        "openai"
    };
    std::fs::write(
        home.path().join("config.toml"),
        format!("model = \"test-model\"\nmodel_provider = \"{provider_id}\"\n"),
    )
    .unwrap();
    std::fs::write(home.path().join("gitconfig"), "").unwrap();
    std::fs::write(cwd.path().join("notes.md"), "v1\n").unwrap();
    let provider = Provider::start(script(wire));

    let first = provider
        .agentctx(
            wire,
            home.path(),
            cwd.path(),
            &["run", "Read notes.md and tell me what it says"],
        )
        .output()
        .unwrap();
    assert!(first.status.success(), "{first:?}");
    // The file changes on disk between the turns: the second turn's request carries the
    // changed-file reminder.
    std::fs::write(cwd.path().join("notes.md"), "v2\n").unwrap();
    let second = provider
        .agentctx(
            wire,
            home.path(),
            cwd.path(),
            &["run", "--resume", "last", "ultrathink: and now?"],
        )
        .output()
        .unwrap();
    assert!(second.status.success(), "{second:?}");
    let live = provider.bodies();
    assert_eq!(live.len(), 3, "{live:#?}");
    let live_text = serde_json::to_string(&live[2]).unwrap();
    assert!(
        live_text.contains("v2"),
        "the changed file reaches the model: {live_text}"
    );
    // The keyword sets the thinking of the second turn's request only, and the replay sends it
    // again from what the rollout recorded.
    let thinks = |body: &Value| body.get("reasoning").is_some() || body.get("thinking").is_some();
    assert!(thinks(&live[2]), "{live_text}");
    assert!(!thinks(&live[0]) && !thinks(&live[1]), "{live:#?}");

    let requests = tempfile::tempdir().unwrap();
    let rollout = rollout_of(home.path());
    let replay = provider
        .agentctx(
            wire,
            home.path(),
            cwd.path(),
            &[
                "replay",
                "--requests",
                requests.path().to_str().unwrap(),
                rollout.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
    assert!(replay.status.success(), "{replay:?}");
    let replayed: Vec<Value> = (1..=3)
        .map(|n| {
            let path = requests.path().join(format!("request-{n:04}.json"));
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
        })
        .collect();
    assert!(!requests.path().join("request-0004.json").exists());
    for (index, (live, replayed)) in live.iter().zip(&replayed).enumerate() {
        assert_eq!(live, replayed, "request {}", index + 1);
    }
}

#[test]
fn a_responses_session_replays_into_the_requests_it_sent() {
    live_session_replays_into_the_bodies_it_sent("openai");
}

#[test]
fn an_anthropic_session_replays_into_the_requests_it_sent() {
    live_session_replays_into_the_bodies_it_sent("anthropic");
}
