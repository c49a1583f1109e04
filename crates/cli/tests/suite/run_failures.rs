//! `agentctx run` and `agentctx loop` when things go wrong or take long, against a wiremock
//! Responses server with scripted replies: a failed turn in line mode is reported and the next
//! prompt runs; a compaction is shown on the terminal; `--json` writes every event as an object
//! with one `type`; a server that reports no usage is not shown as "0 tokens"; `--context-window`
//! sets the window.

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

use super::run_mock::Out;
use super::run_mock::agentctx_child;
use super::run_mock::dirs;
use super::run_mock::git_env;
use super::run_mock::mock_server;
use super::run_mock::responses_sse;

/// One scripted answer.
enum Reply {
    Sse(String),
    Status(u16, Value),
}

/// Answers in order; the loop driver's own summary and commit-message requests get a fixed
/// reply wherever they fall.
struct Scripted(Mutex<VecDeque<Reply>>);

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_raw(body, "text/event-stream")
}

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = String::from_utf8_lossy(&request.body);
        if body.contains("You are a git commit message generator.") {
            return sse(without_usage(&responses_sse(&[Out::Text(
                "[iter] agent changes",
            )])));
        }
        if body.contains("You are a concise technical summarizer.") {
            return sse(without_usage(&responses_sse(&[Out::Text("Looked.")])));
        }
        match self.0.lock().unwrap().pop_front() {
            Some(Reply::Sse(body)) => sse(body),
            Some(Reply::Status(status, body)) => ResponseTemplate::new(status).set_body_json(body),
            None => ResponseTemplate::new(400).set_body_json(
                json!({"error": {"message": "no more scripted replies", "type": "invalid_request_error"}}),
            ),
        }
    }
}

struct Server {
    runtime: tokio::runtime::Runtime,
    server: MockServer,
}

impl Server {
    fn start(replies: Vec<Reply>) -> Self {
        let (runtime, server) = mock_server(
            Mock::given(method("POST"))
                .and(path("/v1/responses"))
                .respond_with(Scripted(Mutex::new(replies.into()))),
        );
        Self { runtime, server }
    }

    fn agentctx(&self, home: &Path, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = agentctx_child(home, cwd);
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", format!("{}/v1", self.server.uri()))
            .args(args);
        cmd
    }

    fn request_bodies(&self) -> Vec<Value> {
        self.runtime
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .iter()
            .map(|request| serde_json::from_slice(&request.body).unwrap())
            .collect()
    }
}

/// `body` (a Responses stream) with each event's JSON changed by `edit`.
fn edit_events(body: &str, edit: impl Fn(&mut Value)) -> String {
    body.lines()
        .map(|line| match line.strip_prefix("data: ") {
            Some(data) => {
                let mut event: Value = serde_json::from_str(data).unwrap();
                edit(&mut event);
                format!("data: {event}\n")
            }
            None => format!("{line}\n"),
        })
        .collect()
}

/// A Responses stream whose completion carries `input_tokens` of usage.
fn text_with_usage(text: &'static str, input_tokens: u64) -> String {
    edit_events(&responses_sse(&[Out::Text(text)]), |event| {
        if event["type"] == "response.completed" {
            event["response"]["usage"]["input_tokens"] = json!(input_tokens);
            event["response"]["usage"]["total_tokens"] = json!(input_tokens + 20);
        }
    })
}

/// A Responses stream whose completion reports no usage at all.
fn without_usage(body: &str) -> String {
    edit_events(body, |event| {
        if let Some(response) = event["response"].as_object_mut() {
            response.remove("usage");
        }
    })
}

fn bad_request() -> Reply {
    Reply::Status(
        400,
        json!({"error": {"message": "the scripted request fails", "type": "invalid_request_error"}}),
    )
}

#[test]
fn a_failed_turn_in_line_mode_is_reported_and_the_next_prompt_runs() {
    let dirs = dirs();
    let server = Server::start(vec![
        Reply::Sse(responses_sse(&[Out::Text("One.")])),
        bad_request(),
        Reply::Sse(responses_sse(&[Out::Text("Three.")])),
    ]);
    let output = server
        .agentctx(dirs.home.path(), dirs.cwd.path(), &["run", "--yes"])
        .write_stdin("first\nsecond\nthird\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert_eq!(stdout, "One.\nThree.\n", "{stderr}");
    let failures: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("error: turn "))
        .collect();
    assert_eq!(failures.len(), 1, "{stderr}");
    assert!(
        failures[0].starts_with("error: turn 2 failed: ")
            && failures[0].contains("the scripted request fails"),
        "{stderr}"
    );
    // The exit status says a turn failed, on the last line.
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some("error: 1 of 3 turns failed (each reported above)")
    );
    assert_eq!(server.request_bodies().len(), 3);
}

#[test]
fn a_compaction_is_shown_on_the_terminal() {
    let dirs = dirs();
    // A small window, as a local model has; the first answer reports it nearly full.
    std::fs::write(
        dirs.home.path().join("config.toml"),
        "model = \"gpt-test\"\nmodel_context_window = 16000\n\n[compact]\nmin_messages_before_compact = 1\n",
    )
    .unwrap();
    let server = Server::start(vec![
        Reply::Sse(text_with_usage("One.", 15_500)),
        Reply::Sse(responses_sse(&[Out::Text(
            "<summary>The user said first; the agent answered One.</summary>",
        )])),
        Reply::Sse(responses_sse(&[Out::Text("Two.")])),
        Reply::Sse(responses_sse(&[Out::Text("Three.")])),
    ]);
    let output = server
        .agentctx(dirs.home.path(), dirs.cwd.path(), &["run", "--yes"])
        .write_stdin("first\nsecond\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert!(output.status.success(), "{stderr}");
    let started = stderr
        .find("compacting the conversation (summarising older messages)...\n")
        .unwrap_or_else(|| panic!("no start line in\n{stderr}"));
    let finished = stderr
        .find("compacted: ")
        .unwrap_or_else(|| panic!("no end line in\n{stderr}"));
    assert!(started < finished, "{stderr}");
}

#[test]
fn a_request_sent_with_an_effort_the_model_does_not_take_warns_once() {
    let dirs = dirs();
    // gpt-5 takes minimal to high; ultra_think asks for xhigh.
    std::fs::write(dirs.home.path().join("config.toml"), "model = \"gpt-5\"\n").unwrap();
    let server = Server::start(vec![Reply::Sse(responses_sse(&[Out::Text("One.")]))]);
    let output = server
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--yes", "--thinking", "ultra_think", "hi"],
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert!(output.status.success(), "{stderr}");
    let warnings = stderr
        .lines()
        .filter(|line| line.contains("the model does not accept this reasoning effort"))
        .count();
    assert_eq!(warnings, 1, "{stderr}");
    let bodies = server.request_bodies();
    assert_eq!(bodies[0]["reasoning"]["effort"], "high", "{:#}", bodies[0]);
}

/// A JSON value whose objects keep every key they were written with, duplicates included
/// (`serde_json::Value` keeps only the last of two equal keys, which hides the fault).
#[derive(Debug)]
enum Written {
    Object(Vec<(String, Written)>),
    Array(Vec<Written>),
    Scalar,
}

impl<'de> serde::Deserialize<'de> for Written {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Written;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Written, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Written>()? {
                    entries.push((key, value));
                }
                Ok(Written::Object(entries))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Written, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Written>()? {
                    items.push(item);
                }
                Ok(Written::Array(items))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_unit<E>(self) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Written {
    /// The keys some object of the value holds more than once.
    fn repeated_keys(&self) -> Vec<String> {
        match self {
            Self::Object(entries) => {
                let mut repeated: Vec<String> = entries
                    .iter()
                    .enumerate()
                    .filter(|(index, (key, _))| {
                        entries[..*index].iter().any(|(earlier, _)| earlier == key)
                    })
                    .map(|(_, (key, _))| key.clone())
                    .collect();
                for (_, value) in entries {
                    repeated.extend(value.repeated_keys());
                }
                repeated
            }
            Self::Array(items) => items.iter().flat_map(Self::repeated_keys).collect(),
            Self::Scalar => Vec::new(),
        }
    }
}

#[test]
fn run_json_writes_every_event_as_an_object_with_one_type() {
    // The check sees what a `Value` would hide: the line the loop events used to be.
    let twice: Written =
        serde_json::from_str(r#"{"type":"loop","type":"compaction_completed"}"#).unwrap();
    assert_eq!(twice.repeated_keys(), ["type"]);
    let dirs = dirs();
    // As `a_compaction_is_shown_on_the_terminal`: the second turn compacts first, so the
    // compaction's loop events are among the lines.
    std::fs::write(
        dirs.home.path().join("config.toml"),
        "model = \"gpt-test\"\nmodel_context_window = 16000\n\n[compact]\nmin_messages_before_compact = 1\n",
    )
    .unwrap();
    let server = Server::start(vec![
        Reply::Sse(text_with_usage("One.", 15_500)),
        Reply::Sse(responses_sse(&[Out::Text(
            "<summary>The user said first; the agent answered One.</summary>",
        )])),
        Reply::Sse(responses_sse(&[Out::Text("Two.")])),
        Reply::Sse(responses_sse(&[Out::Text("Three.")])),
    ]);
    let output = server
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--json", "--yes"],
        )
        .write_stdin("first\nsecond\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut loop_events = Vec::new();
    for line in stdout.lines() {
        let written: Written =
            serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}"));
        assert_eq!(written.repeated_keys(), Vec::<String>::new(), "{line}");
        let Written::Object(entries) = &written else {
            panic!("not an object: {line}");
        };
        let types = entries.iter().filter(|(key, _)| key == "type").count();
        assert_eq!(types, 1, "{line}");
        let event: Value = serde_json::from_str(line).unwrap();
        if event["type"] == "loop" {
            loop_events.push(event);
        }
    }
    // The compaction's events name their kind one level down, in `event`.
    assert!(
        loop_events
            .iter()
            .any(|event| event["event"]["type"] == "compaction_completed"),
        "{stdout}"
    );
}

#[test]
fn the_context_window_flag_sets_the_window() {
    let dirs = dirs();
    let server = Server::start(vec![Reply::Sse(responses_sse(&[Out::Text("One.")]))]);
    let output = server
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--json", "--context-window", "50000", "hi"],
        )
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let usage: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "token_usage")
        .collect();
    assert!(!usage.is_empty());
    for event in usage {
        let effective = event["effective_window"].as_u64().unwrap();
        assert!(effective > 0 && effective <= 50_000, "{event}");
    }
    let refused = server
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--context-window", "0", "hi"],
        )
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

fn git(home: &Path, repo: &Path, args: &[&str]) {
    let mut cmd = Command::new("git");
    cmd.current_dir(repo).args(args);
    git_env(&mut cmd, home);
    assert!(cmd.output().unwrap().status.success(), "git {args:?}");
}

#[test]
fn a_loop_over_a_server_without_usage_says_usage_is_unknown() {
    let dirs = dirs();
    let (home, repo) = (dirs.home.path(), dirs.cwd.path());
    git(home, repo, &["init", "--quiet"]);
    std::fs::write(repo.join("README.md"), "# demo\n").unwrap();
    git(home, repo, &["add", "README.md"]);
    git(home, repo, &["commit", "--quiet", "-m", "initial"]);
    let server = Server::start(vec![
        Reply::Sse(without_usage(&responses_sse(&[Out::Call {
            call_id: "call_1",
            name: "write_file",
            arguments: json!({"path": "one.txt", "content": "first\n"}),
        }]))),
        Reply::Sse(without_usage(&responses_sse(&[Out::Text(
            "Added one.txt.",
        )]))),
    ]);
    let output = server
        .agentctx(home, repo, &["loop", "--iters", "1", "--yes", "add a file"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!stdout.contains("0 tokens so far"), "{stdout}");
    assert!(
        stdout.contains("| token usage unknown (the server reported none)\n"),
        "{stdout}"
    );
    // Nor does the summary at the end.
    assert!(!stdout.contains("tokens: 0"), "{stdout}");
    assert!(
        stdout.contains("\ntokens: not reported (the server sent no usage)\n"),
        "{stdout}"
    );
}
