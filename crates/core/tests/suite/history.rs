//! `run` keeps codex's prompt history: every turn's input is a line of `<home>/history.jsonl`.

use agentctx_context::HistoryPersistence;
use agentctx_core::Session;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::client;
use super::support::dirs;
use super::support::options;
use super::support::responses_sse;
use super::support::server;

#[tokio::test]
async fn each_turn_input_is_appended_to_the_prompt_history() {
    let dirs = dirs();
    let server = server(vec![
        responses_sse(&[Out::Text("One.")], 100),
        responses_sse(&[Out::Text("Two.")], 200),
    ])
    .await;
    let options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    let (mut session, _events) = Session::new(options).unwrap();
    let cancel = CancellationToken::new();
    session.run_turn("first prompt", &cancel).await.unwrap();
    session.run_turn("second\nprompt", &cancel).await.unwrap();

    let text = std::fs::read_to_string(dirs.home.join("history.jsonl")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    for (line, prompt) in lines.iter().zip(["first prompt", "second\nprompt"]) {
        assert_eq!(line["session_id"], session.session_id());
        assert_eq!(line["text"], prompt);
        assert!(line["ts"].as_u64().unwrap() > 1_700_000_000);
    }
}

#[tokio::test]
async fn history_persistence_none_writes_nothing() {
    let dirs = dirs();
    let server = server(vec![responses_sse(&[Out::Text("One.")], 100)]).await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    options.history.persistence = HistoryPersistence::None;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("private", &CancellationToken::new())
        .await
        .unwrap();
    assert!(!dirs.home.join("history.jsonl").exists());
}
