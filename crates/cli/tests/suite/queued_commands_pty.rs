//! Line mode on a real terminal: `agentctx run` inside a pseudo-terminal (expectrl), against a
//! wiremock Responses server that answers the first request late. A prompt typed while the turn
//! waits reaches the model's next request as a `queued_commands` reminder, and a `/help` typed
//! meanwhile runs only once the turn is over (`run_command.rs`, `interactive_line_mode`).
//!
//! Only generous expect timeouts, no wall-clock assertion: the late answer gives the typed lines
//! time to arrive while the turn runs, and what is asserted is the order of the output and the
//! requests' bodies.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use expectrl::Eof;
use expectrl::Expect;
use expectrl::Session;
use expectrl::process::Healthcheck;
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
use super::run_mock::dirs;
use super::run_mock::input_texts;
use super::run_mock::mock_server;
use super::run_mock::responses_sse;

/// How long an expectation may wait: far beyond what any step takes, only a guard against a
/// hung child.
const EXPECT_TIMEOUT: Duration = Duration::from_secs(120);

/// How late the first answer comes: time for the test to type while the turn waits for it.
const FIRST_ANSWER_DELAY: Duration = Duration::from_secs(3);

/// The replies in order, each after its delay.
struct Late(Mutex<Vec<(String, Duration)>>);

impl Respond for Late {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        let mut replies = self.0.lock().unwrap();
        if replies.is_empty() {
            return ResponseTemplate::new(500).set_body_string("no more scripted replies");
        }
        let (body, delay) = replies.remove(0);
        ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_raw(body, "text/event-stream")
            .set_delay(delay)
    }
}

/// `agentctx run --yes` on a terminal of its own, talking to `server`.
fn spawn_on_a_terminal(
    server: &str,
    home: &Path,
    cwd: &Path,
) -> Result<expectrl::session::OsSession, expectrl::Error> {
    #[expect(
        clippy::disallowed_methods,
        reason = "expectrl spawns a std Command on the pseudo-terminal; this test is the caller"
    )]
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agentctx"));
    cmd.current_dir(cwd)
        .args(["run", "--yes"])
        .env("AGENTCTX_HOME", home)
        .env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", format!("{server}/v1"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("OLLAMA_HOST")
        .env_remove("RUST_LOG")
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1");
    let mut session = Session::spawn(cmd)?;
    session.set_expect_timeout(Some(EXPECT_TIMEOUT));
    Ok(session)
}

/// The bodies of the requests `server` received so far.
fn bodies(runtime: &tokio::runtime::Runtime, server: &MockServer) -> Vec<Value> {
    runtime
        .block_on(server.received_requests())
        .unwrap_or_default()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

#[test]
fn a_prompt_typed_during_a_turn_is_queued_for_the_next_request_and_help_waits_for_the_turn() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.path().join("notes.txt"), "remember the milk\n").unwrap();
    let replies = vec![
        (
            responses_sse(&[Out::Call {
                call_id: "call_read",
                name: "read_file",
                arguments: json!({"path": "notes.txt"}),
            }]),
            FIRST_ANSWER_DELAY,
        ),
        (
            responses_sse(&[Out::Text("Read the notes; the milk is on the list.")]),
            Duration::ZERO,
        ),
    ];
    let (runtime, server) = mock_server(
        Mock::given(method("POST"))
            .and(path("/v1/responses"))
            .respond_with(Late(Mutex::new(replies))),
    );
    let mut session = match spawn_on_a_terminal(&server.uri(), dirs.home.path(), dirs.cwd.path()) {
        Ok(session) => session,
        Err(error) => {
            eprintln!("skipped: no pseudo-terminal could be opened here ({error})");
            return;
        }
    };

    session.expect("> ").unwrap();
    session.send_line("read my notes").unwrap();
    // The turn runs once its first request reached the server, which holds the answer back.
    while bodies(&runtime, &server).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            session.is_alive().unwrap(),
            "agentctx exited before its request"
        );
    }
    session.send_line("also check the eggs").unwrap();
    session.send_line("/help").unwrap();
    // The turn's answer comes first, then what `/help` prints: it waited for the turn.
    session
        .expect("Read the notes; the milk is on the list.")
        .unwrap();
    session.expect("Session commands:").unwrap();
    session.expect("> ").unwrap();
    session.send_line("exit").unwrap();
    session.expect(Eof).unwrap();

    let bodies = bodies(&runtime, &server);
    // Two requests: the queued prompt rode on the turn's second one, no turn of its own.
    assert_eq!(bodies.len(), 2, "{bodies:#?}");
    let first = input_texts(&bodies[0]);
    assert!(
        !first
            .iter()
            .any(|text| text.contains("also check the eggs")),
        "{first:#?}"
    );
    let second = input_texts(&bodies[1]);
    let queued = second
        .iter()
        .filter(|text| text.contains("also check the eggs"))
        .collect::<Vec<_>>();
    assert_eq!(
        queued,
        [
            "<system-reminder>\nThe user sent a new message while you were working:\nalso check the eggs\n\nIMPORTANT: After completing your current task, you MUST address the user's message above. Do not ignore it.\n</system-reminder>"
        ],
        "{second:#?}"
    );
    // `/help` is for the session: the model never saw it.
    assert!(
        !second.iter().any(|text| text.contains("/help")),
        "{second:#?}"
    );
}
