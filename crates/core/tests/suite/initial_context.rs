//! The full initial context on the first turn, only the settings diff afterwards.

use std::sync::Arc;

use agentctx_core::Session;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::options;

#[tokio::test]
async fn agents_md_and_environment_come_once_then_only_what_changed() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("AGENTS.md"), "Use cargo nextest.\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("One."));
    model.push(ScriptedResponse::text("Two."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.current_date = Some("2026-11-23".to_string());
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("first", &CancellationToken::new())
        .await
        .unwrap();
    session
        .run_turn("second", &CancellationToken::new())
        .await
        .unwrap();

    let prompts = model.prompts();
    let first: Vec<String> = prompts[0]
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    let cwd = dirs.cwd.display().to_string();
    assert_eq!(
        first,
        vec![
            format!(
                "# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\nUse cargo nextest.\n</INSTRUCTIONS>"
            ),
            format!(
                "<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>2026-11-23</current_date>\n</environment_context>"
            ),
            "first".to_string(),
        ]
    );
    let second: Vec<String> = prompts[1]
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    // Nothing changed between the turns: no second initial context, no diff.
    assert_eq!(second[3..], ["One.".to_string(), "second".to_string()]);
}

fn assert_send<T: Send>(value: T) -> T {
    value
}

#[tokio::test]
async fn a_turn_can_run_on_another_task() {
    // A host spawns the turn and renders events meanwhile: the future must be `Send`.
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Hi."));
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model))).unwrap();
    let turn = tokio::spawn(async move {
        let cancel = CancellationToken::new();
        let outcome = assert_send(session.run_turn("hello", &cancel)).await;
        outcome.map(|outcome| outcome.last_message)
    });
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        seen.push(event);
    }
    assert_eq!(turn.await.unwrap().unwrap().as_deref(), Some("Hi."));
    assert!(matches!(
        seen.first(),
        Some(agentctx_core::SessionEvent::TurnStarted { turn: 1 })
    ));
    assert!(matches!(
        seen.last(),
        Some(agentctx_core::SessionEvent::TurnCompleted { .. })
    ));
}
