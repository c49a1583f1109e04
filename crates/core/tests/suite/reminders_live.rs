//! The reminder catalogue in a live session: what each request carries, through a real
//! `Session` against a wiremock server speaking the Responses API (docs/design/reminders.md,
//! "Who feeds each reminder").

use agentctx_core::Session;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::client;
use super::support::dirs;
use super::support::options;
use super::support::responses_sse;
use super::support::server;

const WINDOW: i64 = 400_000;

/// The opening of the todo reminder, as Claude Code words it.
const TODO_REMINDER: &str = "The TodoWrite tool hasn't been used recently.";

/// How many times `needle` occurs in the input of `body`.
fn occurrences(body: &Value, needle: &str) -> usize {
    body["input"].to_string().matches(needle).count()
}

/// The 1-based requests before which a reminder containing `needle` was placed: its count in
/// the request's input grew over the request before (the tail placement keeps earlier copies).
fn requests_carrying(bodies: &[Value], needle: &str) -> Vec<usize> {
    let mut seen = 0;
    let mut carrying = Vec::new();
    for (index, body) in bodies.iter().enumerate() {
        let now = occurrences(body, needle);
        if now > seen {
            carrying.push(index + 1);
        }
        seen = now;
    }
    carrying
}

/// A reply calling `read_file` on `a.txt` (one assistant message).
fn read_call(index: usize) -> String {
    let call_id: &'static str = Box::leak(format!("call_{index}").into_boxed_str());
    responses_sse(
        &[Out::Call {
            call_id,
            name: "read_file",
            arguments: json!({"path": "a.txt"}),
        }],
        1_000,
    )
}

/// A reply writing a two-item todo list.
fn todo_write() -> String {
    responses_sse(
        &[Out::Call {
            call_id: "call_todo",
            name: "todo_write",
            arguments: json!({"todos": [
                {"content": "Read the file", "status": "in_progress", "activeForm": "Reading the file"},
                {"content": "Report", "status": "pending", "activeForm": "Reporting"}
            ]}),
        }],
        1_000,
    )
}

/// Claude Code 2.1's cadence: ten assistant messages after the last todo write, ten between two
/// reminders; and within one user turn an unchanged list is not repeated until
/// `todo_restate_after_requests` requests went by. A new user turn may show it again at once.
#[tokio::test]
async fn the_todo_reminder_follows_claude_codes_cadence_and_is_not_repeated_unchanged_within_a_turn()
 {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    // Turn 1: a todo write, then 25 requests of one tool call each, then the answer.
    let mut replies = vec![todo_write()];
    replies.extend((1..=25).map(read_call));
    replies.push(responses_sse(&[Out::Text("Done.")], 1_000));
    // Turn 2: three tool calls, then the answer.
    replies.extend((26..=28).map(read_call));
    replies.push(responses_sse(&[Out::Text("Still done.")], 1_000));
    let server = server(replies).await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, WINDOW));
    options.max_requests_per_turn = 100;
    let (mut session, _events) = Session::new(options).unwrap();

    let first = session
        .run_turn("Read a.txt many times", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(first.requests, 27);
    session
        .run_turn("And a few more times", &CancellationToken::new())
        .await
        .unwrap();

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 31);
    // Request 1 writes the list (one assistant message); before request 12 ten more followed.
    // Request 22 would be Claude Code's next one: the list is unchanged and the model saw it
    // ten requests ago in this turn, so it is skipped until 30 requests went by
    // (`todo_restate_after_requests`), which this turn does not reach. Request 28 starts a new
    // user turn, sixteen assistant messages after the last reminder: the list is shown again.
    assert_eq!(requests_carrying(&bodies, TODO_REMINDER), vec![12, 28]);
}
