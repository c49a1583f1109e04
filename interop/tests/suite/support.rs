//! What every interop test does: find the tools, run the binary, read what it recorded.

use std::path::Path;
use std::process::Output;

use agentctx_interop::Tools;
use serde_json::Value;

/// The tools, or `None` when the test is to be skipped: something is missing and
/// `AGENTCTX_REQUIRE_INTEROP` is unset (the reason is printed). With it set, a missing tool
/// fails the test.
pub(crate) fn tools() -> Option<Tools> {
    match Tools::locate() {
        Ok(tools) => Some(tools),
        Err(error) if !Tools::required() => {
            #[expect(clippy::print_stderr, reason = "a skipped test says why")]
            {
                eprintln!("skipped: {error} (AGENTCTX_REQUIRE_INTEROP is unset)");
            }
            None
        }
        Err(error) => panic!("AGENTCTX_REQUIRE_INTEROP is set: {error}"),
    }
}

/// The output as text, for messages.
pub(crate) fn describe(output: &Output) -> String {
    format!(
        "status: {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs `cmd` with `stdin` and returns its output.
pub(crate) fn run_with_input(mut cmd: std::process::Command, stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn agentctx");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("agentctx output")
}

/// The JSON lines of a rollout.
pub(crate) fn rollout_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("rollout")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("rollout line is JSON"))
        .collect()
}

/// The `input_tokens` of every `token_count` event of a rollout, in order.
pub(crate) fn reported_input_tokens(lines: &[Value]) -> Vec<i64> {
    lines
        .iter()
        .filter(|line| line["type"] == "event_msg" && line["payload"]["type"] == "token_count")
        .filter_map(|line| line["payload"]["info"]["last_token_usage"]["input_tokens"].as_i64())
        .collect()
}

/// How many `compacted` lines a rollout has.
pub(crate) fn compactions(lines: &[Value]) -> usize {
    lines
        .iter()
        .filter(|line| line["type"] == "compacted")
        .count()
}

/// The function calls a rollout recorded, by name.
pub(crate) fn function_calls(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|line| {
            line["type"] == "response_item" && line["payload"]["type"] == "function_call"
        })
        .filter_map(|line| line["payload"]["name"].as_str().map(str::to_string))
        .collect()
}

/// `agentctx replay --json <rollout>` succeeds.
pub(crate) fn assert_replays(agentctx: &agentctx_interop::Agentctx, rollout: &Path) {
    let output = agentctx
        .command(&["replay", "--json"])
        .arg(rollout)
        .output()
        .expect("replay");
    assert!(
        output.status.success(),
        "replay failed:\n{}",
        describe(&output)
    );
}

/// The events `run --json` printed, as JSON.
pub(crate) fn json_events(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .collect()
}

/// llama-cpp-python refuses a prompt longer than its `n_ctx` with "Requested tokens (N) exceed
/// context window of M" (raised inside the stream, or as a 400): its log holds none of these
/// when every request fit.
pub(crate) fn assert_no_request_exceeded_the_window(server_log: &str) {
    let refused: Vec<&str> = server_log
        .lines()
        .filter(|line| line.contains("exceed context window"))
        .collect();
    assert!(
        refused.is_empty(),
        "requests over the window were sent: {refused:?}"
    );
}

/// The chat completions requests a llama-cpp-python log shows.
pub(crate) fn chat_requests(server_log: &str) -> usize {
    server_log.matches("POST /v1/chat/completions").count()
}

/// How many turns a rollout recorded (one `turn_context` line each).
pub(crate) fn turns(lines: &[Value]) -> usize {
    lines
        .iter()
        .filter(|line| line["type"] == "turn_context")
        .count()
}

/// The run succeeded, or its only failures were turns the model answered with nothing.
///
/// SmolLM2-135M sometimes ends its answer at once, twice in a row; agentctx then reports the
/// empty answer and fails that turn (line mode goes on to the next prompt). That is the model's
/// doing, not the protocol's, so it is allowed, but only when the backend's log shows no
/// exception (a request the server could not handle also ends as an empty answer behind a
/// proxy).
pub(crate) fn assert_ok_but_for_empty_answers(output: &Output, backend_log: &str) {
    if output.status.success() {
        return;
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("error:"))
        .collect();
    let only_empty = !errors.is_empty()
        && errors.iter().all(|line| {
            line.contains("empty answer") || line.contains("turns failed (each reported above)")
        });
    assert!(only_empty, "the run failed:\n{}", describe(output));
    assert!(
        !backend_log.contains("Traceback"),
        "the run failed and the backend raised:\n{}\n--- backend log\n{backend_log}",
        describe(output)
    );
}
