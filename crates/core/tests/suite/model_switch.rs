//! `/model` and a resume with another model, as codex switches: the history is compacted first
//! with the previous, larger-window model when it would not hold in the new window, and the
//! next turn carries codex's `<model_switch>` developer message. Models are resolved from a
//! configuration that points at a wiremock Responses server, the way `agentctx run` resolves
//! them.

use agentctx_core::InputOutcome;
use agentctx_core::SessionEvent;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::support::Dirs;
use super::support::Out;
use super::support::bodies;
use super::support::dirs;
use super::support::drain;
use super::support::input_texts;
use super::support::responses_sse;
use super::support::server;
use super::support::skill;
use super::support::two_model_config;
use super::support::two_model_session;

/// A prompt of about 15,000 tokens: more than the small model's window holds with the tools.
fn long_prompt() -> String {
    format!("Read these notes. {}", "note ".repeat(12_000))
}

/// The big model's first turn on the long prompt: it reads a file, then answers (the engine
/// compacts a history of at least four items).
fn first_turn(dirs: &Dirs) -> Vec<String> {
    std::fs::write(dirs.cwd.join("notes.txt"), "one note\n").unwrap();
    vec![
        responses_sse(
            &[Out::Call {
                call_id: "call_read",
                name: "read_file",
                arguments: serde_json::json!({"path": "notes.txt"}),
            }],
            15_400,
        ),
        responses_sse(&[Out::Text("Noted.")], 15_500),
    ]
}

/// The `<model_switch>` message of a request body.
fn switch_messages(body: &Value) -> Vec<String> {
    input_texts(body)
        .into_iter()
        .filter(|text| text.starts_with("<model_switch>"))
        .collect()
}

fn is_summary_request(body: &Value) -> bool {
    input_texts(body)
        .iter()
        .any(|text| text.contains(agentctx_compact::SUMMARIZATION_PROMPT.trim()))
}

#[tokio::test]
async fn switching_to_a_smaller_window_compacts_first_with_the_previous_model() {
    let dirs = dirs();
    let mut replies = first_turn(&dirs);
    replies.extend([
        responses_sse(
            &[Out::Text(
                "The user shared long notes; nothing else happened.",
            )],
            15_600,
        ),
        responses_sse(&[Out::Text("Small model here.")], 3_000),
    ]);
    let server = server(replies).await;
    let config = two_model_config(&server);
    let (mut session, _events) = two_model_session(&dirs, &config, "big-model", None).await;
    let cancel = CancellationToken::new();
    session.run_input(&long_prompt(), &cancel).await.unwrap();

    let InputOutcome::Command(answer) = session
        .run_input("/model small-model", &cancel)
        .await
        .unwrap()
    else {
        panic!("/model answers without a turn");
    };
    assert_eq!(
        answer,
        "Model: small-model (was big-model; window 16000 tokens; the history was compacted first with the previous model)"
    );
    assert_eq!(session.model_slug(), "small-model");
    assert_eq!(session.engine().window().window_tokens, 16_000);

    session.run_input("and now?", &cancel).await.unwrap();
    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 4);
    // The summary was asked of the big model, before any request of the small one.
    assert_eq!(sent[2]["model"], "big-model");
    assert!(is_summary_request(&sent[2]));
    assert_eq!(sent[3]["model"], "small-model");
    assert!(!is_summary_request(&sent[3]));
    // The small model reads codex's switch message, once, ahead of the turn.
    let switches = switch_messages(&sent[3]);
    assert_eq!(switches.len(), 1, "{:#?}", input_texts(&sent[3]));
    insta::assert_snapshot!("model_switch_message", switches[0]);

    // The rollout records the new model in the turn's turn_context.
    let rollout = std::fs::read_to_string(session.rollout_path()).unwrap();
    let models: Vec<String> = rollout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "turn_context")
        .map(|line| {
            line["payload"]["model"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(models, ["big-model", "small-model"]);
    assert!(rollout.contains("\"type\":\"compacted\""));
}

#[tokio::test]
async fn a_switch_to_a_window_that_holds_the_history_does_not_compact() {
    let dirs = dirs();
    let server = server(vec![
        responses_sse(&[Out::Text("Hi.")], 3_000),
        responses_sse(&[Out::Text("Small model here.")], 3_100),
    ])
    .await;
    let config = two_model_config(&server);
    let (mut session, _events) = two_model_session(&dirs, &config, "big-model", None).await;
    let cancel = CancellationToken::new();
    session.run_input("hello", &cancel).await.unwrap();
    let InputOutcome::Command(answer) = session
        .run_input("/model small-model", &cancel)
        .await
        .unwrap()
    else {
        panic!("/model answers without a turn");
    };
    assert_eq!(
        answer,
        "Model: small-model (was big-model; window 16000 tokens)"
    );
    session.run_input("again", &cancel).await.unwrap();
    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1]["model"], "small-model");
    assert_eq!(switch_messages(&sent[1]).len(), 1);
}

#[tokio::test]
async fn a_resume_with_a_smaller_model_compacts_with_the_recorded_one_and_announces_the_switch() {
    let dirs = dirs();
    let mut replies = first_turn(&dirs);
    replies.extend([
        responses_sse(&[Out::Text("The user shared long notes.")], 15_600),
        responses_sse(&[Out::Text("Small model here.")], 3_000),
        responses_sse(&[Out::Text("Still small.")], 3_100),
    ]);
    let server = server(replies).await;
    let config = two_model_config(&server);
    let cancel = CancellationToken::new();
    let path = {
        let (mut session, _events) = two_model_session(&dirs, &config, "big-model", None).await;
        session.run_input(&long_prompt(), &cancel).await.unwrap();
        session.rollout_path().to_path_buf()
    };

    let (mut resumed, mut events) =
        two_model_session(&dirs, &config, "small-model", Some(&path)).await;
    let warnings: Vec<String> = drain(&mut events)
        .into_iter()
        .filter_map(|event| match event {
            SessionEvent::Warning { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(
        warnings,
        [
            "This session was recorded with model `big-model` but is resuming with `small-model`. Consider switching back to `big-model` as it may affect performance."
        ]
    );
    resumed.run_input("which notes?", &cancel).await.unwrap();
    resumed.run_input("thanks", &cancel).await.unwrap();
    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 5);
    assert_eq!(sent[2]["model"], "big-model");
    assert!(is_summary_request(&sent[2]));
    assert_eq!(sent[3]["model"], "small-model");
    assert_eq!(switch_messages(&sent[3]).len(), 1);
    // Announced once: the next turn's request still holds that one message, and no other.
    assert_eq!(switch_messages(&sent[4]).len(), 1);
}

#[tokio::test]
async fn a_skill_with_a_model_runs_its_turn_on_it_and_switches_back() {
    let dirs = dirs();
    skill(
        &dirs.cwd,
        "quick",
        "description: A quick answer\nmodel: small-model\n",
        "Answer briefly: $ARGUMENTS",
    );
    let server = server(vec![
        responses_sse(&[Out::Text("Brief.")], 3_000),
        responses_sse(&[Out::Text("Back on the big one.")], 3_100),
    ])
    .await;
    let config = two_model_config(&server);
    let (mut session, _events) = two_model_session(&dirs, &config, "big-model", None).await;
    let cancel = CancellationToken::new();
    session
        .run_input("/quick what is 2+2", &cancel)
        .await
        .unwrap();
    assert_eq!(session.model_slug(), "big-model");
    session.run_input("and you?", &cancel).await.unwrap();
    let sent = bodies(&server).await;
    assert_eq!(sent[0]["model"], "small-model");
    assert_eq!(sent[1]["model"], "big-model");
    // The session's first turn ran on the skill's model: no model spoke before it.
    assert_eq!(switch_messages(&sent[0]).len(), 0);
    // Each turn on another model than the one before is announced.
    assert_eq!(switch_messages(&sent[1]).len(), 1);
}
