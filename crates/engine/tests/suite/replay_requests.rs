//! The replay feeds a recorded session through the engine and hands every request the engine
//! would send to a `RequestSink`.

use std::io::Cursor;
use std::path::Path;

use agentctx_engine::replay::PredictionBasis;
use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::RequestSink;
use agentctx_engine::replay::replay_reader;
use agentctx_model::Prompt;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;
use serde_json::json;

#[derive(Default)]
struct Collect(Vec<(usize, String, Vec<ResponseItem>, Vec<String>)>);

impl RequestSink for Collect {
    fn request(&mut self, request: usize, prompt: &Prompt<'_>) -> std::io::Result<()> {
        self.0.push((
            request,
            prompt.instructions.clone(),
            prompt.items().cloned().collect(),
            prompt.tools.iter().map(|tool| tool.name.clone()).collect(),
        ));
        Ok(())
    }
}

fn line(kind: &str, payload: serde_json::Value) -> String {
    json!({"timestamp": "2026-11-26T10:00:00.000Z", "type": kind, "payload": payload}).to_string()
}

fn item(item: &ResponseItem) -> String {
    line("response_item", serde_json::to_value(item).unwrap())
}

fn token_count(input: i64) -> String {
    line(
        "event_msg",
        json!({"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": input, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0, "total_tokens": input + 10},
            "last_token_usage": {"input_tokens": input, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0, "total_tokens": input + 10},
            "model_context_window": 100000
        }}),
    )
}

/// A session agentctx recorded: header with its instructions, a turn context with its tools,
/// one turn of two requests (a tool call, then an answer), each with its usage.
fn agentctx_session() -> String {
    let tools = json!([{"name": "read_file", "description": "Reads a file.", "parameters": {"type": "object"}}]);
    [
        line(
            "session_meta",
            json!({"id": "s1", "cwd": "/nonexistent/project", "originator": "agentctx", "base_instructions": {"text": "You are a test agent."}}),
        ),
        line(
            "turn_context",
            json!({"cwd": "/nonexistent/project", "model": "test-model", "agentctx_tools": tools}),
        ),
        item(&ResponseItem::user_text("Read a.txt")),
        item(&ResponseItem::function_call(
            "call_1",
            "read_file",
            r#"{"path":"a.txt"}"#,
        )),
        token_count(1200),
        item(&ResponseItem::function_call_output("call_1", "hello")),
        item(&ResponseItem::assistant_text("It says hello.")),
        token_count(1300),
    ]
    .join("\n")
}

#[test]
fn every_request_of_a_recorded_session_reaches_the_sink_as_the_engine_builds_it() {
    let text = agentctx_session();
    let reader = RolloutReader::new(Path::new("s1.jsonl"), Cursor::new(text.into_bytes()));
    let mut sink = Collect::default();
    let replay = replay_reader(reader, &ReplayOptions::default(), Some(&mut sink)).unwrap();

    assert!(replay.recorded_by_agentctx);
    assert_eq!(replay.requests.len(), 2);
    let (numbers, instructions): (Vec<usize>, Vec<&str>) = sink
        .0
        .iter()
        .map(|(number, instructions, _, _)| (*number, instructions.as_str()))
        .unzip();
    assert_eq!(numbers, [1, 2]);
    assert_eq!(
        instructions,
        ["You are a test agent.", "You are a test agent."]
    );
    assert_eq!(sink.0[0].3, ["read_file"]);
    // The first request carries the user's message; the second the call and its output too.
    assert_eq!(sink.0[0].2, [ResponseItem::user_text("Read a.txt")]);
    assert_eq!(
        sink.0[1].2,
        [
            ResponseItem::user_text("Read a.txt"),
            ResponseItem::function_call("call_1", "read_file", r#"{"path":"a.txt"}"#),
            ResponseItem::function_call_output("call_1", "hello"),
        ]
    );
    // The second request is predicted from the first one's measure plus what was added.
    assert_eq!(replay.requests[0].basis, PredictionBasis::WholeHistory);
    assert_eq!(replay.requests[1].basis, PredictionBasis::PreviousRequest);
    assert!(replay.requests[1].predicted_tokens > 1200);
    assert_eq!(replay.requests[1].recorded_tokens, Some(1300));
    assert_eq!(replay.thresholds.window, 100_000);
}

#[test]
fn a_session_another_agent_recorded_gets_the_engines_reminders_on_its_prompts_only() {
    // The same session as if Claude Code had recorded it, with a todo list written early: the
    // engine's todo reminder rides on a later request's prompt, never in the history.
    let todo = json!({"todos": [{"content": "Read a.txt", "status": "in_progress", "activeForm": "Reading a.txt"}]});
    let mut lines = vec![
        line(
            "session_meta",
            json!({"id": "s2", "cwd": "/nonexistent/project", "originator": "claude_code"}),
        ),
        item(&ResponseItem::user_text("Read many files")),
        item(&ResponseItem::function_call(
            "call_todo",
            "TodoWrite",
            todo.to_string(),
        )),
        item(&ResponseItem::function_call_output("call_todo", "ok")),
    ];
    for index in 0..12 {
        lines.push(item(&ResponseItem::function_call(
            format!("call_{index}"),
            "Read",
            format!(r#"{{"file_path":"f{index}.txt"}}"#),
        )));
        lines.push(item(&ResponseItem::function_call_output(
            format!("call_{index}"),
            "text",
        )));
    }
    lines.push(item(&ResponseItem::assistant_text("Done.")));
    let text = lines.join("\n");
    let reader = RolloutReader::new(Path::new("s2.jsonl"), Cursor::new(text.into_bytes()));
    let mut sink = Collect::default();
    let replay = replay_reader(reader, &ReplayOptions::default(), Some(&mut sink)).unwrap();

    assert!(!replay.recorded_by_agentctx);
    let counts = replay.reminder_counts.unwrap();
    assert!(
        counts.get("todo_reminder").copied().unwrap_or(0) >= 1,
        "{counts:?}"
    );
    assert!(sink.0.iter().any(|(_, _, items, _)| {
        items
            .last()
            .and_then(ResponseItem::message_text)
            .is_some_and(|text| text.contains("todo"))
    }));
    // Never kept: the request after one that carried it does not repeat it unless it fires
    // again.
    for (number, _, items, _) in &sink.0 {
        let reminders = items
            .iter()
            .filter(|item| {
                item.message_text()
                    .is_some_and(|text| text.contains("<system-reminder>"))
            })
            .count();
        assert!(
            reminders <= 1,
            "request {number} carries {reminders} reminders"
        );
    }
}
