//! The replay's thrash guard reads the recorded session's clock: a replay runs hours of a session
//! in seconds, and on the wall clock its compactions would look like a burst; from the seventh
//! on, every micro-compaction would be aggressive and clear a result before every request.

use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::SessionReplay;
use agentctx_engine::replay::replay_file;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

/// Requests of the generated session: one shell call each, then an assistant message.
const REQUESTS: usize = 120;
/// The window the replay is given: small, so the engine compacts every few requests.
const WINDOW: u64 = 40_000;

/// A Codex rollout of one turn of [`REQUESTS`] requests, `step_secs` apart: a shell call with
/// about 1,500 tokens of output and an assistant message of about as many (which
/// micro-compaction cannot clear, so the engine's auto-compaction runs every few requests).
fn session(step_secs: i64) -> String {
    let start = chrono::DateTime::parse_from_rfc3339("2025-11-24T09:00:00Z").unwrap();
    let at = |request: usize| {
        let offset = chrono::Duration::seconds(step_secs * i64::try_from(request).unwrap());
        (start + offset)
            .to_utc()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    let line = |request: usize, kind: &str, payload: Value| {
        json!({"timestamp": at(request), "type": kind, "payload": payload}).to_string()
    };
    let mut lines = vec![
        line(
            0,
            "session_meta",
            json!({"id": "clock", "cwd": "/p", "originator": "codex_cli_rs", "cli_version": "0.63.0"}),
        ),
        line(
            0,
            "turn_context",
            json!({"turn_id": "0", "cwd": "/p", "model": "unknown-model", "truncation_policy": {"mode": "bytes", "limit": 100_000}}),
        ),
        line(
            0,
            "event_msg",
            json!({"type": "user_message", "message": "go", "images": [], "kind": "plain"}),
        ),
        line(
            0,
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        ),
    ];
    let mut input = 1_000_i64;
    for request in 0..REQUESTS {
        let call_id = format!("call_{request}");
        let output: String = (0..150)
            .map(|n| format!("line {n} of part {request}: some output of the tool\n"))
            .collect();
        let output = format!("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n{output}");
        let message: String = (0..75)
            .map(|n| {
                format!(
                    "Step {request}.{n}: I looked at the output and what it means for the plan. "
                )
            })
            .collect();
        lines.push(line(
            request,
            "response_item",
            json!({"type": "function_call", "name": "shell_command", "arguments": json!({"command": format!("cat part{request}")}).to_string(), "call_id": call_id}),
        ));
        lines.push(line(
            request,
            "response_item",
            json!({"type": "function_call_output", "call_id": call_id, "output": output}),
        ));
        lines.push(line(
            request,
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": message}]}),
        ));
        input += i64::try_from((output.len() + message.len()) / 4).unwrap();
        let usage = json!({"input_tokens": input, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0, "total_tokens": input + 10});
        lines.push(line(
            request,
            "event_msg",
            json!({"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}),
        ));
    }
    lines.join("\n") + "\n"
}

fn replay(step_secs: i64) -> SessionReplay {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(&path, session(step_secs)).unwrap();
    // The tier's own rule, which the thrash guard's mode changes: under the burst's warm cache
    // the cost model would keep the small results the aggressive mode clears.
    let mut compact = agentctx_compact::CompactConfig::default();
    compact.micro.cost_aware = false;
    let options = ReplayOptions {
        home: dir.path().join("home"),
        context_window: Some(WINDOW),
        reminders: None,
        compact,
        ..ReplayOptions::default()
    };
    replay_file(&path, &options, None).unwrap()
}

/// The savings of the micro-compactions the replay ran, in request order.
fn micro_savings(replay: &SessionReplay) -> Vec<u64> {
    replay
        .requests
        .iter()
        .filter_map(|request| request.micro_compact)
        .map(|micro| micro.tokens_before - micro.tokens_after)
        .collect()
}

fn auto_compactions(replay: &SessionReplay) -> usize {
    replay
        .requests
        .iter()
        .filter(|request| request.auto_compact.is_some())
        .count()
}

#[test]
fn compactions_the_recording_spreads_over_hours_do_not_make_micro_compaction_aggressive() {
    // Ten minutes a request: about six compactions an hour, never more.
    let spread = replay(600);
    assert!(
        auto_compactions(&spread) > 6,
        "more compactions than the guard allows in an hour, were they one: {}",
        auto_compactions(&spread)
    );
    // The least saving of the 40,000-token window is a fifth of its effective 30,000 tokens:
    // no clear here is worth that much, and none is made.
    assert_eq!(micro_savings(&spread), Vec::<u64>::new());

    // The same session recorded as a burst (every record at the same second): after the
    // seventh compaction within the hour the guard turns aggressive, and micro-compaction
    // clears the result that just aged out before every request, whatever it saves.
    let burst = replay(0);
    let savings = micro_savings(&burst);
    assert!(savings.len() > 10, "{savings:?}");
    assert!(
        savings.iter().all(|saved| *saved < 6_000),
        "aggressive clears save less than the least saving: {savings:?}"
    );
}
