//! A deterministic Chat Completions backend for LiteLLM to front.
//!
//! The 135M model never calls tools, and llama-cpp-python refuses streamed tool calls with
//! automatic tool choice ("Automatic streaming tool choice is not supported"), so tool round
//! trips through LiteLLM's three wire formats need a backend that calls tools on cue. It reads
//! the last message of each request:
//!
//! - a `tool` message (a tool result came back): it answers with text quoting the result's
//!   first line;
//! - a user message with a line `WRITE <path>`: it calls `write_file` on `<path>` with content
//!   that names the request (so each call changes the file);
//! - a user message with a line `SHELL <command>`: it calls `shell`;
//! - anything else: a short text.
//!
//! Started with steps instead ([`ScriptedChat::start_with_steps`]), it answers the request of a
//! turn that holds `n` tool results with the `n`-th step, whatever the messages say: a turn
//! scripted call by call.
//!
//! The loop driver's own requests (its commit-message and summary prompts) get a fixed text
//! wherever they fall. It answers as OpenAI does: `stream: true` as `chat.completion.chunk`
//! server-sent events ending in `data: [DONE]` with a usage chunk, otherwise one
//! `chat.completion` object (<https://platform.openai.com/docs/api-reference/chat/create>).

use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

use serde_json::Value;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;
use wiremock::matchers::path_regex;

use crate::error::InteropError;

/// What the backend answers one request with.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptedReply {
    /// A text answer.
    Text(String),
    /// A call of the tool `name` with `arguments`.
    Call {
        /// The tool.
        name: String,
        /// Its arguments.
        arguments: Value,
    },
}

/// The fixed answer of the loop driver's own requests, if `messages` is one.
fn loop_driver_reply(messages: &[Value]) -> Option<ScriptedReply> {
    let all_text: String = messages
        .iter()
        .map(message_text)
        .collect::<Vec<_>>()
        .join("\n");
    if all_text.contains("You are a git commit message generator.") {
        return Some(ScriptedReply::Text(
            "[iter] scripted change\n\nMade by the scripted backend.".into(),
        ));
    }
    if all_text.contains("You are a concise technical summarizer.") {
        return Some(ScriptedReply::Text("Wrote a file as asked.".into()));
    }
    None
}

/// The answer of a backend started with `steps` to one request body: the step numbered by the
/// tool results the request holds, a short text past the last.
pub(crate) fn step(body: &Value, steps: &[ScriptedReply]) -> ScriptedReply {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if let Some(reply) = loop_driver_reply(&messages) {
        return reply;
    }
    let results = messages
        .iter()
        .filter(|message| message["role"] == "tool")
        .count();
    steps
        .get(results)
        .cloned()
        .unwrap_or_else(|| ScriptedReply::Text("Scripted reply.".into()))
}

/// The backend's decision for one request body.
pub(crate) fn decide(body: &Value, request_number: usize) -> ScriptedReply {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if let Some(reply) = loop_driver_reply(&messages) {
        return reply;
    }
    let Some(last) = messages.last() else {
        return ScriptedReply::Text("(no messages)".into());
    };
    if last["role"] == "tool" {
        let result = message_text(last);
        let first_line = result.lines().next().unwrap_or_default();
        return ScriptedReply::Text(format!("Done. The tool said: {first_line}"));
    }
    let text = message_text(last);
    for line in text.lines() {
        let line = line.trim();
        if let Some(path) = line.strip_prefix("WRITE ") {
            return ScriptedReply::Call {
                name: "write_file".into(),
                arguments: json!({
                    "path": path.trim(),
                    "content": format!("written by scripted request {request_number}\n"),
                }),
            };
        }
        if let Some(command) = line.strip_prefix("SHELL ") {
            return ScriptedReply::Call {
                name: "shell".into(),
                arguments: json!({ "command": command.trim() }),
            };
        }
    }
    ScriptedReply::Text("Scripted reply.".into())
}

/// The text of a chat message whose content is a string or a list of parts.
fn message_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Rough prompt tokens of a request (4 bytes a token), so LiteLLM passes on plausible usage.
fn prompt_tokens(body: &Value) -> u64 {
    (body.to_string().len() as u64).div_ceil(4)
}

fn sse_response(reply: &ScriptedReply, id: &str, prompt_tokens: u64) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": "scripted",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
        })
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let (finish, completion_tokens) = match reply {
        ScriptedReply::Text(text) => {
            events.push(chunk(json!({"content": text}), Value::Null));
            ("stop", text.len().div_ceil(4) as u64)
        }
        ScriptedReply::Call { name, arguments } => {
            let arguments = arguments.to_string();
            events.push(chunk(
                json!({"tool_calls": [{"index": 0, "id": format!("call_{id}"), "type": "function",
                    "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            ));
            events.push(chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
                Value::Null,
            ));
            ("tool_calls", arguments.len().div_ceil(4) as u64)
        }
    };
    events.push(chunk(json!({}), json!(finish)));
    events.push(json!({
        "id": id, "object": "chat.completion.chunk", "created": 0, "model": "scripted",
        "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens}
    }));
    let mut body: String = events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect();
    body.push_str("data: [DONE]\n\n");
    body
}

fn json_response(reply: &ScriptedReply, id: &str, prompt_tokens: u64) -> Value {
    let (message, finish, completion_tokens) = match reply {
        ScriptedReply::Text(text) => (
            json!({"role": "assistant", "content": text}),
            "stop",
            text.len().div_ceil(4) as u64,
        ),
        ScriptedReply::Call { name, arguments } => (
            json!({"role": "assistant", "tool_calls": [{"id": format!("call_{id}"), "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]}),
            "tool_calls",
            8,
        ),
    };
    json!({
        "id": id, "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens}
    })
}

struct Script {
    served: AtomicUsize,
    bodies: std::sync::Arc<Mutex<Vec<Value>>>,
    /// Empty: answer by [`decide`]; else by [`step`].
    steps: Vec<ScriptedReply>,
}

impl Respond for Script {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return ResponseTemplate::new(400).set_body_string("request body is not JSON");
        };
        let number = self.served.fetch_add(1, Ordering::SeqCst) + 1;
        if let Ok(mut bodies) = self.bodies.lock() {
            bodies.push(body.clone());
        }
        let reply = if self.steps.is_empty() {
            decide(&body, number)
        } else {
            step(&body, &self.steps)
        };
        let id = format!("scripted-{number}");
        let tokens = prompt_tokens(&body);
        if body["stream"] == json!(true) {
            ResponseTemplate::new(200)
                .set_body_raw(sse_response(&reply, &id, tokens), "text/event-stream")
        } else {
            ResponseTemplate::new(200).set_body_json(json_response(&reply, &id, tokens))
        }
    }
}

/// The scripted backend, serving on a loopback port from its own runtime.
pub struct ScriptedChat {
    runtime: tokio::runtime::Runtime,
    server: MockServer,
    bodies: std::sync::Arc<Mutex<Vec<Value>>>,
}

impl std::fmt::Debug for ScriptedChat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedChat")
            .field("uri", &self.server.uri())
            .finish_non_exhaustive()
    }
}

impl ScriptedChat {
    /// Starts the backend, answering by the cues of the last message.
    pub fn start() -> Result<Self, InteropError> {
        Self::start_with_steps(Vec::new())
    }

    /// Starts the backend answering each request of a turn with the step its tool results
    /// number (the first request `steps[0]`, the one after the first tool result `steps[1]`, …).
    pub fn start_with_steps(steps: Vec<ScriptedReply>) -> Result<Self, InteropError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(InteropError::io(
                "cannot start the scripted backend's runtime",
            ))?;
        let bodies = std::sync::Arc::new(Mutex::new(Vec::new()));
        let script = Script {
            served: AtomicUsize::new(0),
            bodies: std::sync::Arc::clone(&bodies),
            steps,
        };
        let server = runtime.block_on(async {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .and(path_regex("chat/completions$"))
                .respond_with(script)
                .mount(&server)
                .await;
            server
        });
        Ok(Self {
            runtime,
            server,
            bodies,
        })
    }

    /// The Chat Completions base URL (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// The request bodies received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().map(|b| b.clone()).unwrap_or_default()
    }

    /// Keeps the runtime referenced (it serves the mock until dropped).
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        &self.runtime
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ScriptedReply;
    use super::decide;
    use super::step;

    #[test]
    fn a_write_line_in_the_last_user_message_calls_write_file() {
        let body = json!({"messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "text", "text": "please\nWRITE notes/a.txt"}]}
        ]});
        assert_eq!(
            decide(&body, 3),
            ScriptedReply::Call {
                name: "write_file".into(),
                arguments: json!({"path": "notes/a.txt", "content": "written by scripted request 3\n"}),
            }
        );
    }

    #[test]
    fn a_tool_result_gets_text_and_the_loop_prompts_get_theirs() {
        let after_tool = json!({"messages": [
            {"role": "user", "content": "WRITE a.txt"},
            {"role": "assistant", "tool_calls": []},
            {"role": "tool", "tool_call_id": "c", "content": "Wrote a.txt (1 line)"}
        ]});
        assert_eq!(
            decide(&after_tool, 2),
            ScriptedReply::Text("Done. The tool said: Wrote a.txt (1 line)".into())
        );
        let commit = json!({"messages": [
            {"role": "system", "content": "You are a git commit message generator. Be brief."},
            {"role": "user", "content": "WRITE a.txt"}
        ]});
        assert!(
            matches!(decide(&commit, 1), ScriptedReply::Text(text) if text.starts_with("[iter]"))
        );
    }

    #[test]
    fn steps_are_numbered_by_the_tool_results_of_the_request() {
        let steps = vec![
            ScriptedReply::Call {
                name: "write_file".into(),
                arguments: json!({"path": "a.py", "content": "x = 1\n"}),
            },
            ScriptedReply::Text("Done.".into()),
        ];
        let first = json!({"messages": [{"role": "user", "content": "go"}]});
        assert_eq!(step(&first, &steps), steps[0]);
        let second = json!({"messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "tool_calls": []},
            {"role": "tool", "tool_call_id": "c", "content": "Wrote a.py"},
            {"role": "user", "content": "<system-reminder>…</system-reminder>"}
        ]});
        assert_eq!(step(&second, &steps), steps[1]);
        let past = json!({"messages": [{"role": "tool"}, {"role": "tool"}]});
        assert_eq!(
            step(&past, &steps),
            ScriptedReply::Text("Scripted reply.".into())
        );
    }
}
