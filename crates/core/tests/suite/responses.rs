//! A real session against a wiremock OpenAI Responses server speaking SSE.

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_model::WireApi;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::call_outputs;
use super::support::client;
use super::support::dirs;
use super::support::drain;
use super::support::input_texts;
use super::support::normalize;
use super::support::options;
use super::support::responses_sse;
use super::support::server;
use super::support::without_tools;

const WINDOW: i64 = 200_000;

#[tokio::test]
async fn reminders_are_placed_before_each_request_user_prompt_ones_only_on_the_first() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let server = server(vec![
        responses_sse(
            &[Out::Call {
                call_id: "call_1",
                name: "read_file",
                arguments: json!({"path": "a.txt"}),
            }],
            1_000,
        ),
        responses_sse(&[Out::Text("Read both.")], 1_200),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, WINDOW));
    options.reminders.critical_instruction =
        Some("Always run the tests before you finish.".to_string());
    let (mut session, _events) = Session::new(options).unwrap();

    let outcome = session
        .run_turn("Summarise @notes.txt and a.txt", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("Read both."));
    assert_eq!(outcome.requests, 2);

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 2);
    let first = input_texts(&bodies[0]);
    let user = first
        .iter()
        .position(|text| text == "Summarise @notes.txt and a.txt")
        .unwrap();
    // Reminders come after the user's message (tail placement), before the call.
    let mention = first
        .iter()
        .position(|text| text.contains("remember the milk"))
        .unwrap();
    let critical = first
        .iter()
        .position(|text| text.contains("Always run the tests before you finish."))
        .unwrap();
    assert!(user < mention && user < critical, "{first:#?}");
    assert!(
        first[mention].starts_with("<system-reminder>"),
        "{}",
        first[mention]
    );

    // The second request of the turn carries no new user-prompt reminder: the @-mention is
    // there once, from the first request.
    let second = input_texts(&bodies[1]);
    assert_eq!(
        second
            .iter()
            .filter(|text| text.contains("remember the milk"))
            .count(),
        1,
        "{second:#?}"
    );
    assert_eq!(
        call_outputs(&bodies[1]),
        vec!["     1\talpha\n".to_string()]
    );

    insta::assert_json_snapshot!(
        "reminders_first_request",
        normalize(&bodies[0], &dirs, &session)
    );
    insta::assert_json_snapshot!(
        "reminders_second_request",
        without_tools(normalize(&bodies[1], &dirs, &session))
    );
}

#[tokio::test]
async fn a_read_file_round_trip_feeds_the_tracker_and_the_change_is_reported_next_turn() {
    let dirs = dirs();
    let file = dirs.cwd.join("config.toml");
    std::fs::write(&file, "level = 1\n").unwrap();
    let server = server(vec![
        responses_sse(
            &[Out::Call {
                call_id: "call_read",
                name: "read_file",
                arguments: json!({"path": "config.toml"}),
            }],
            1_000,
        ),
        responses_sse(&[Out::Text("The level is 1.")], 1_100),
        responses_sse(&[Out::Text("Noted the change.")], 1_300),
    ])
    .await;
    let (mut session, mut events) =
        Session::new(options(&dirs, client(&server, WireApi::Responses, WINDOW))).unwrap();
    session
        .run_turn("What level is configured?", &CancellationToken::new())
        .await
        .unwrap();

    let tracked = session
        .engine()
        .reminders()
        .file_tracker()
        .get(&file)
        .unwrap();
    assert_eq!(&*tracked.content, "level = 1\n");
    let events = drain(&mut events);
    assert!(events.contains(&SessionEvent::ToolCallCompleted {
        call_id: "call_read".to_string(),
        name: "read_file".to_string(),
        success: true,
        output: "     1\tlevel = 1\n".to_string(),
    }));

    // Someone else edits the file between turns.
    std::fs::write(&file, "level = 22 # raised by the user\n").unwrap();
    session
        .run_turn("Anything new?", &CancellationToken::new())
        .await
        .unwrap();
    let bodies = bodies(&server).await;
    let third = input_texts(&bodies[2]);
    let change = third
        .iter()
        .find(|text| text.contains("config.toml") && text.contains("level = 22"))
        .unwrap_or_else(|| panic!("no changed-file reminder in {third:#?}"));
    assert!(change.starts_with("<system-reminder>"), "{change}");
    insta::assert_snapshot!(
        "changed_file_reminder",
        change.replace(&dirs.cwd.display().to_string(), "[CWD]")
    );
}

#[tokio::test]
async fn plan_mode_blocks_a_write() {
    let dirs = dirs();
    let server = server(vec![
        responses_sse(
            &[Out::Call {
                call_id: "call_write",
                name: "write_file",
                arguments: json!({"path": "src/main.rs", "content": "fn main() {}"}),
            }],
            1_000,
        ),
        responses_sse(&[Out::Text("I will plan first.")], 1_100),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, WINDOW));
    options.plan_mode = true;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("Add a main function", &CancellationToken::new())
        .await
        .unwrap();

    assert!(!dirs.cwd.join("src/main.rs").exists());
    let bodies = bodies(&server).await;
    let outputs = call_outputs(&bodies[1]);
    assert_eq!(outputs.len(), 1);
    assert!(
        outputs[0].starts_with("Error: plan mode is on"),
        "{}",
        outputs[0]
    );
    let first = input_texts(&bodies[0]);
    assert!(
        first
            .iter()
            .any(|text| text.starts_with("<system-reminder>") && text.contains("Plan mode")),
        "no plan-mode reminder in {first:#?}"
    );
}

#[tokio::test]
async fn a_path_escape_is_refused_with_a_tool_error() {
    let dirs = dirs();
    std::fs::write(dirs.home.join("secret.txt"), "TOP SECRET\n").unwrap();
    let server = server(vec![
        responses_sse(
            &[Out::Call {
                call_id: "call_escape",
                name: "read_file",
                arguments: json!({"path": "../home/secret.txt"}),
            }],
            1_000,
        ),
        responses_sse(&[Out::Text("I cannot read it.")], 1_100),
    ])
    .await;
    let (mut session, _events) =
        Session::new(options(&dirs, client(&server, WireApi::Responses, WINDOW))).unwrap();
    session
        .run_turn("Read ../home/secret.txt", &CancellationToken::new())
        .await
        .unwrap();
    let bodies = bodies(&server).await;
    let outputs = call_outputs(&bodies[1]);
    assert_eq!(outputs.len(), 1);
    assert!(
        outputs[0].contains("outside the working directory"),
        "{}",
        outputs[0]
    );
    assert!(!bodies[1].to_string().contains("TOP SECRET"));
}

#[tokio::test]
async fn usage_over_the_threshold_compacts_mid_turn_and_the_task_survives() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("parser.rs"), "fn parse() { flaky() }\n").unwrap();
    let task = "Fix the flaky test in parser.rs";
    let server = server(vec![
        // The provider reports a context nearly full after the first request.
        responses_sse(
            &[Out::Call {
                call_id: "call_read",
                name: "read_file",
                arguments: json!({"path": "parser.rs"}),
            }],
            52_000,
        ),
        // The summary request.
        responses_sse(
            &[Out::Text(
                "The user asked to fix the flaky parser test; parser.rs was read.",
            )],
            3_000,
        ),
        // The same turn goes on after the compaction.
        responses_sse(&[Out::Text("Fixed.")], 4_000),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 60_000));
    options.reminders.critical_instruction = Some("Never skip the test suite.".to_string());
    let (mut session, mut events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn(task, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("Fixed."));

    let events = drain(&mut events);
    let started = events
        .iter()
        .position(|e| *e == SessionEvent::Loop(LoopEvent::CompactionStarted))
        .unwrap();
    let completed = events
        .iter()
        .position(|e| matches!(e, SessionEvent::Loop(LoopEvent::CompactionCompleted { .. })))
        .unwrap();
    assert!(started < completed);
    assert!(matches!(
        events.last(),
        Some(SessionEvent::TurnCompleted { .. })
    ));

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    // The summary request sees no reminder: they are filtered out before summarising.
    let summary_request = bodies[1].to_string();
    assert!(
        !summary_request.contains("<system-reminder>"),
        "{summary_request}"
    );
    assert!(summary_request.contains(task));

    // After compaction: the task verbatim, the summary, the restored file, and the critical
    // instruction re-injected.
    let after = input_texts(&bodies[2]);
    assert!(after.iter().any(|text| text == task), "{after:#?}");
    assert!(
        after
            .iter()
            .any(|text| text.contains("fix the flaky parser test")),
        "{after:#?}"
    );
    assert!(
        after
            .iter()
            .any(|text| text.contains("fn parse() { flaky() }")),
        "{after:#?}"
    );
    assert!(
        after
            .iter()
            .any(|text| text.starts_with("<system-reminder>")
                && text.contains("Never skip the test suite.")),
        "{after:#?}"
    );
    insta::assert_json_snapshot!(
        "after_mid_turn_compaction",
        without_tools(normalize(&bodies[2], &dirs, &session))
    );
}

#[tokio::test]
async fn the_rollout_on_disk_reads_back_with_agentctx_rollout() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let server = server(vec![
        responses_sse(
            &[
                Out::Text("Reading."),
                Out::Call {
                    call_id: "call_1",
                    name: "read_file",
                    arguments: json!({"path": "a.txt"}),
                },
            ],
            1_000,
        ),
        responses_sse(&[Out::Text("It says alpha.")], 1_100),
    ])
    .await;
    let (mut session, _events) =
        Session::new(options(&dirs, client(&server, WireApi::Responses, WINDOW))).unwrap();
    session
        .run_turn("What does a.txt say?", &CancellationToken::new())
        .await
        .unwrap();
    let path = session.rollout_path().to_path_buf();
    assert!(path.starts_with(dirs.home.join("sessions")));

    let file = read_rollout(&path).unwrap();
    assert!(file.skipped.is_empty(), "{:?}", file.skipped);
    assert_eq!(file.session_meta().unwrap().id, session.session_id());
    let items: Vec<&ResponseItem> = file.items().collect();
    let kinds: Vec<&str> = items.iter().map(|item| item.type_name()).collect();
    assert!(
        kinds.contains(&"function_call") && kinds.contains(&"function_call_output"),
        "{kinds:?}"
    );
    assert!(
        items
            .iter()
            .any(|item| item.message_text().as_deref() == Some("What does a.txt say?"))
    );
    assert!(
        items
            .iter()
            .any(|item| item.message_text().as_deref() == Some("It says alpha."))
    );
    assert_eq!(items.len(), session.history().len());
}

#[tokio::test]
async fn cancelling_a_turn_leaves_a_readable_rollout() {
    let dirs = dirs();
    let server = server(vec![responses_sse(
        &[Out::Call {
            call_id: "call_sleep",
            name: "shell",
            arguments: json!({"command": "sleep 600"}),
        }],
        1_000,
    )])
    .await;
    let (mut session, _events) =
        Session::new(options(&dirs, client(&server, WireApi::Responses, WINDOW))).unwrap();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let outcome = session.run_turn("Wait a long time", &cancel).await.unwrap();
    assert!(outcome.aborted);
    let file = read_rollout(session.rollout_path()).unwrap();
    assert!(file.skipped.is_empty());
    assert!(
        file.items()
            .any(|item| item.message_text().as_deref() == Some("Wait a long time"))
    );
}

#[tokio::test]
async fn reminder_clocks_count_model_requests_not_user_turns() {
    // One user turn of thirteen requests of one assistant message each: the todo reminder
    // (due ten assistant messages after the last todo write, here the session start) shows up
    // within the turn.
    let dirs = dirs();
    let mut bodies_to_serve = Vec::new();
    let call_ids = [
        "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11",
    ];
    for (index, call_id) in call_ids.into_iter().enumerate() {
        std::fs::write(
            dirs.cwd.join(format!("f{index}.txt")),
            format!("file {index}\n"),
        )
        .unwrap();
        bodies_to_serve.push(responses_sse(
            &[Out::Call {
                call_id,
                name: "read_file",
                arguments: json!({"path": format!("f{index}.txt")}),
            }],
            1_000,
        ));
    }
    bodies_to_serve.push(responses_sse(&[Out::Text("Read all twelve.")], 1_000));
    let server = server(bodies_to_serve).await;
    let (mut session, _events) =
        Session::new(options(&dirs, client(&server, WireApi::Responses, WINDOW))).unwrap();
    session
        .run_turn("Read f0.txt to f11.txt", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(session.state().requests, 13);

    let bodies = bodies(&server).await;
    let first_with_todo = bodies.iter().position(|body| {
        input_texts(body)
            .iter()
            .any(|text| text.contains("The TodoWrite tool hasn't been used recently"))
    });
    // Before the eleventh request (index 10): ten assistant messages went by.
    assert_eq!(
        first_with_todo,
        Some(10),
        "{:#?}",
        input_texts(bodies.last().unwrap())
    );
}
