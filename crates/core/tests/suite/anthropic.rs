//! A real session against a wiremock Anthropic Messages server speaking SSE.

use agentctx_core::Session;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::anthropic_sse;
use super::support::bodies;
use super::support::client;
use super::support::dirs;
use super::support::normalize;
use super::support::options;
use super::support::server;
use super::support::without_tools;

#[tokio::test]
async fn a_tool_round_trip_with_reminders_on_anthropic_messages() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("README.md"), "# Demo\n").unwrap();
    let server = server(vec![
        anthropic_sse(
            &[
                Out::Text("Let me look."),
                Out::Call {
                    call_id: "toolu_1",
                    name: "read_file",
                    arguments: json!({"path": "README.md"}),
                },
            ],
            900,
        ),
        anthropic_sse(&[Out::Text("It is a demo.")], 1_000),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Anthropic, 200_000));
    options.reminders.critical_instruction = Some("Answer in one sentence.".to_string());
    let (mut session, _events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("What is this project?", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("It is a demo."));

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 2);
    let first = bodies[0].to_string();
    assert!(
        first.contains("<system-reminder>\\nAnswer in one sentence.\\n</system-reminder>"),
        "{first}"
    );
    let second = bodies[1].to_string();
    assert!(
        second.contains("tool_result") && second.contains("# Demo"),
        "{second}"
    );
    insta::assert_json_snapshot!(
        "anthropic_second_request",
        without_tools(normalize(&bodies[1], &dirs, &session))
    );
}
