//! `agentctx run` against a wiremock OpenAI Responses server: a one-shot tool round trip under
//! `--yes`, the `--json` event lines, the line mode, approvals refused without a terminal, and
//! the bad-input paths (a missing API key, an unknown provider, a bad flag).

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::run_mock::MockProvider;
use super::run_mock::Out;
use super::run_mock::agentctx_child;
use super::run_mock::dirs;
use super::run_mock::input_texts;
use super::run_mock::responses_sse;

fn write_then_done() -> Vec<String> {
    vec![
        responses_sse(&[Out::Call {
            call_id: "call_1",
            name: "write_file",
            arguments: json!({"path": "hello.txt", "content": "hello from the agent\n"}),
        }]),
        responses_sse(&[Out::Text("Wrote hello.txt.")]),
    ]
}

#[test]
fn one_shot_runs_a_tool_call_round_trip_under_yes_and_streams_the_text() {
    let dirs = dirs();
    let provider = MockProvider::start(write_then_done());
    let output = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--yes", "create hello.txt"],
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stdout, "Wrote hello.txt.\n");
    assert!(stderr.contains("> write_file "), "{stderr}");
    assert!(stderr.contains("< write_file ok"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dirs.cwd.path().join("hello.txt")).unwrap(),
        "hello from the agent\n"
    );
    let bodies = provider.agent_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["model"], "gpt-test");
    assert!(input_texts(&bodies[0]).contains(&"create hello.txt".to_string()));
    // The second request carries the call and its output.
    let outputs: Vec<&Value> = bodies[1]["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .collect();
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0]["call_id"], "call_1");
    // The session is recorded under the home.
    let sessions = agentctx_rollout::discover_sessions(&dirs.home.path().join("sessions")).unwrap();
    assert_eq!(sessions.len(), 1);
}

#[test]
fn json_prints_every_session_event_as_a_json_line() {
    let dirs = dirs();
    let provider = MockProvider::start(write_then_done());
    let output = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--json", "--yes", "create hello.txt"],
        )
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let events: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let types: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"turn_started"));
    assert_eq!(types.last(), Some(&"turn_completed"));
    for expected in [
        "request_started",
        "tool_call_started",
        "tool_call_completed",
        "text_delta",
        "assistant_message",
        "token_usage",
    ] {
        assert!(
            types.contains(&expected),
            "{expected} missing from {types:?}"
        );
    }
    let completed = events
        .iter()
        .find(|event| event["type"] == "tool_call_completed")
        .unwrap();
    assert_eq!(completed["name"], "write_file");
    assert_eq!(completed["success"], true);
    assert_eq!(events.last().unwrap()["last_message"], "Wrote hello.txt.");
}

#[test]
fn without_a_prompt_each_line_of_stdin_is_a_turn() {
    let dirs = dirs();
    let provider = MockProvider::start(vec![
        responses_sse(&[Out::Text("One.")]),
        responses_sse(&[Out::Text("Two.")]),
    ]);
    let output = provider
        .agentctx(dirs.home.path(), dirs.cwd.path(), &["run", "--yes"])
        .write_stdin("first\n\nsecond\n")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "One.\nTwo.\n");
    let bodies = provider.agent_bodies();
    assert_eq!(bodies.len(), 2);
    // The second turn continues the same session.
    assert!(input_texts(&bodies[1]).contains(&"first".to_string()));
}

#[test]
fn approvals_are_refused_with_a_message_when_stdin_is_not_a_terminal() {
    let dirs = dirs();
    let provider = MockProvider::start(write_then_done());
    let output = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "create hello.txt"],
        )
        .write_stdin("")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("refused: write_file ")
            && stderr.contains(
                "needs approval, but stdin is not a terminal to ask on (pass --yes or --approval auto to allow)"
            ),
        "{stderr}"
    );
    assert!(!dirs.cwd.path().join("hello.txt").exists());
    let bodies = provider.agent_bodies();
    let output_text = bodies[1]["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .map(|item| item["output"].to_string())
        .unwrap();
    assert!(output_text.contains("did not approve"), "{output_text}");
}

#[test]
fn a_missing_api_key_is_one_clear_error_line() {
    let dirs = dirs();
    let output = agentctx_child(dirs.home.path(), dirs.cwd.path())
        .args(["run", "--yes", "hello"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "error: provider `OpenAI` needs an api key: set the environment variable `OPENAI_API_KEY`\n"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn an_unknown_provider_is_one_error_line() {
    let dirs = dirs();
    let output = agentctx_child(dirs.home.path(), dirs.cwd.path())
        .args(["run", "--provider", "nope", "hello"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "error: invalid provider configuration: unknown model provider `nope`: define [model_providers.nope] or use one of openai, ollama, lmstudio, anthropic"
        ),
        "{stderr}"
    );
}

#[test]
fn a_bad_approval_value_is_a_usage_error() {
    let dirs = dirs();
    let output = agentctx_child(dirs.home.path(), dirs.cwd.path())
        .args(["run", "--approval", "sometimes", "hello"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn plan_mode_refuses_the_write_even_under_yes() {
    let dirs = dirs();
    let provider = MockProvider::start(write_then_done());
    let output = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--plan", "--yes", "create hello.txt"],
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("< write_file failed"), "{stderr}");
    assert!(!dirs.cwd.path().join("hello.txt").exists());
}

#[test]
fn approval_never_refuses_the_write() {
    let dirs = dirs();
    let provider = MockProvider::start(write_then_done());
    let output = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--approval", "never", "create hello.txt"],
        )
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(!dirs.cwd.path().join("hello.txt").exists());
}

#[test]
fn an_mcp_server_that_cannot_start_is_reported_once_and_the_turn_goes_on() {
    let dirs = dirs();
    std::fs::write(
        dirs.home.path().join("config.toml"),
        "model = \"gpt-test\"\n\n[mcp_servers.broken]\ncommand = \"/nonexistent/agentctx-mcp-server\"\nstartup_timeout_sec = 5\n",
    )
    .unwrap();
    let provider = MockProvider::start(vec![responses_sse(&[Out::Text("Hello.")])]);
    let output = provider
        .agentctx(dirs.home.path(), dirs.cwd.path(), &["run", "--yes", "hi"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stdout, "Hello.\n");
    assert_eq!(
        stderr
            .matches("MCP server `broken` is unavailable, its tools are withdrawn")
            .count(),
        1,
        "{stderr}"
    );
}
