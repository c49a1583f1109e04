use std::sync::Arc;

use agentctx_loop_driver::LoopAgent;
use agentctx_loop_driver::TurnStatus;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;

use super::SessionLoopAgent;
use crate::session::Session;
use crate::session::SessionOptions;

fn agent(model: &ScriptedModelClient) -> (SessionLoopAgent, tempfile::TempDir, tempfile::TempDir) {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let options = SessionOptions::new(cwd.path(), home.path(), Arc::new(model.clone()));
    let (session, _events) = Session::new(options).unwrap();
    (SessionLoopAgent::new(session), cwd, home)
}

fn usage(input: i64, output: i64) -> TokenUsage {
    TokenUsage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        ..TokenUsage::default()
    }
}

#[tokio::test]
async fn a_submitted_turn_completes_with_its_own_usage_and_its_history() {
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("first").with_usage(usage(100, 10)));
    model.push(ScriptedResponse::text("second").with_usage(usage(150, 5)));
    let (agent, _cwd, _home) = agent(&model);

    agent.submit("one").await.unwrap();
    let first = agent.wait_for_turn().await;
    assert_eq!(first.status, TurnStatus::Completed);
    assert_eq!(first.usage.total_tokens, 110);

    agent.submit("two").await.unwrap();
    let second = agent.wait_for_turn().await;
    // Only the second turn's tokens, not the session's running total.
    assert_eq!(second.usage.total_tokens, 155);
    let texts: Vec<String> = agent
        .current_history()
        .await
        .unwrap()
        .iter()
        .filter(|item| item.role() == Some("assistant"))
        .filter_map(agentctx_protocol::ResponseItem::message_text)
        .collect();
    assert_eq!(texts, vec!["first".to_string(), "second".to_string()]);
}

#[tokio::test]
async fn a_model_error_is_a_failed_turn() {
    let model = ScriptedModelClient::new("test-model");
    let (agent, _cwd, _home) = agent(&model);
    agent.submit("nothing scripted").await.unwrap();
    let report = agent.wait_for_turn().await;
    assert!(
        matches!(&report.status, TurnStatus::Failed { reason } if reason.contains("model request failed")),
        "{report:?}"
    );
}

#[tokio::test]
async fn waiting_without_a_submitted_turn_fails_instead_of_hanging() {
    let model = ScriptedModelClient::new("test-model");
    let (agent, _cwd, _home) = agent(&model);
    let report = agent.wait_for_turn().await;
    assert_eq!(
        report.status,
        TurnStatus::Failed {
            reason: "no turn was submitted".to_string()
        }
    );
}

#[tokio::test]
async fn an_interrupted_turn_reports_interrupted() {
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "shell",
        r#"{"command": "sleep 30"}"#,
    ));
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut options = SessionOptions::new(cwd.path(), home.path(), Arc::new(model.clone()));
    options.approval = crate::approval::ApprovalPolicy::AutoApprove;
    let (session, mut events) = Session::new(options).unwrap();
    let agent = SessionLoopAgent::new(session);
    agent.submit("run something long").await.unwrap();
    // Interrupt once the command runs: the turn stops without waiting for it.
    while let Some(event) = events.recv().await {
        if matches!(event, crate::SessionEvent::ToolCallStarted { .. }) {
            break;
        }
    }
    agent.interrupt().await;
    let report = agent.wait_for_turn().await;
    assert_eq!(
        report.status,
        TurnStatus::Interrupted {
            reason: super::TURN_CANCELLED.to_string()
        }
    );
}
