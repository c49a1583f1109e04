//! The thinking level reaches every request: a keyword in the prompt, the session's override
//! and the subagents' tasks, against wiremock servers speaking the Responses and Messages wire
//! formats; and it is recorded in the rollout for a replay to send again.

use agentctx_core::Session;
use agentctx_core::ThinkingOptions;
use agentctx_engine::replay::RECORDED_REASONING_FIELD;
use agentctx_model::WireApi;
use agentctx_model::thinking::ThinkingConfig;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::ThinkingLevel;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::anthropic_sse;
use super::support::bodies;
use super::support::call;
use super::support::dirs;
use super::support::options;
use super::support::responses_session;
use super::support::responses_sse;
use super::support::server;

/// A Messages client for a Claude model with room for the thinking budgets (64K output).
fn claude(server: &wiremock::MockServer) -> std::sync::Arc<dyn agentctx_model::ModelClient> {
    let provider = super::support::test_provider(server, WireApi::Anthropic);
    std::sync::Arc::new(
        agentctx_model::HttpModelClient::new(
            provider,
            "claude-sonnet-4-5",
            &super::support::test_env,
        )
        .unwrap(),
    )
}

/// The thinking part of a request body, whatever the wire.
fn thinking_of(body: &Value) -> Value {
    json!({
        "reasoning": body.get("reasoning"),
        "include": body.get("include"),
        "thinking": body.get("thinking"),
    })
}

#[tokio::test]
async fn ultrathink_in_a_prompt_sets_the_reasoning_of_every_request_of_its_turn_only() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let server = server(vec![
        responses_sse(&[Out::Text("Hello.")], 100),
        responses_sse(
            &[call("call_1", "read_file", json!({"path": "a.txt"}))],
            200,
        ),
        responses_sse(&[Out::Text("Done.")], 300),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 200_000);
    let cancel = CancellationToken::new();
    session.run_turn("Say hello", &cancel).await.unwrap();
    session
        .run_turn("ultrathink: how should a.txt be split?", &cancel)
        .await
        .unwrap();

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    // No keyword, no configuration: the provider's default (no reasoning parameters).
    assert_eq!(bodies[0].get("reasoning"), None, "{:#}", bodies[0]);
    // Both requests of the ultrathink turn, the one after the tool call included.
    assert_eq!(thinking_of(&bodies[1]), thinking_of(&bodies[2]));
    {
        insta::assert_json_snapshot!(thinking_of(&bodies[1]), @r#"
        {
          "include": [
            "reasoning.encrypted_content"
          ],
          "reasoning": {
            "effort": "xhigh",
            "summary": "auto"
          },
          "thinking": null
        }
        "#);
    }

    // The rollout records the turn's reasoning (codex's fields and agentctx's whole).
    let file = read_rollout(session.rollout_path()).unwrap();
    let contexts: Vec<_> = file
        .records
        .iter()
        .filter_map(|record| match &record.line.item {
            RolloutItem::TurnContext(context) => Some(context),
            _ => None,
        })
        .collect();
    assert_eq!(contexts.len(), 2);
    assert_eq!(contexts[0].effort, None);
    assert_eq!(contexts[0].extra.get(RECORDED_REASONING_FIELD), None);
    assert_eq!(contexts[1].effort, Some(json!("xhigh")));
    assert_eq!(contexts[1].summary, Some(json!("auto")));
    assert_eq!(
        contexts[1].extra.get(RECORDED_REASONING_FIELD),
        Some(
            &json!({"effort": "xhigh", "summary": "auto", "budget_tokens": null, "interleaved": false})
        )
    );
}

#[tokio::test]
async fn the_session_level_thinks_on_anthropic_and_a_keyword_still_wins() {
    let dirs = dirs();
    let server = server(vec![
        anthropic_sse(&[Out::Text("One.")], 100),
        anthropic_sse(&[Out::Text("Two.")], 200),
    ])
    .await;
    let mut options = options(&dirs, claude(&server));
    options.thinking = ThinkingOptions {
        per_turn: Some(ThinkingConfig {
            level: ThinkingLevel::DeepThink,
            ..ThinkingConfig::default()
        }),
        ..ThinkingOptions::default()
    };
    let (mut session, _events) = Session::new(options).unwrap();
    let cancel = CancellationToken::new();
    session.run_turn("Plan the change", &cancel).await.unwrap();
    session
        .run_turn("ultrathink about the edge cases", &cancel)
        .await
        .unwrap();

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 2);
    insta::assert_json_snapshot!(
        [thinking_of(&bodies[0]), thinking_of(&bodies[1])],
        @r#"
    [
      {
        "include": null,
        "reasoning": null,
        "thinking": {
          "budget_tokens": 16000,
          "type": "enabled"
        }
      },
      {
        "include": null,
        "reasoning": null,
        "thinking": {
          "budget_tokens": 32000,
          "type": "enabled"
        }
      }
    ]
    "#
    );
}

#[tokio::test]
async fn the_session_toggle_applies_to_the_turns_after_it() {
    let dirs = dirs();
    let server = server(vec![
        responses_sse(&[Out::Text("One.")], 100),
        responses_sse(&[Out::Text("Two.")], 200),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 200_000);
    let cancel = CancellationToken::new();
    session.run_turn("First", &cancel).await.unwrap();
    session.set_thinking_level(Some(ThinkingLevel::DeepThink));
    session.run_turn("Second", &cancel).await.unwrap();
    let bodies = bodies(&server).await;
    assert_eq!(bodies[0].get("reasoning"), None);
    assert_eq!(
        bodies[1].get("reasoning"),
        Some(&json!({"effort": "high", "summary": "auto"}))
    );
}

#[tokio::test]
async fn a_subagent_thinks_at_the_level_its_task_asks_for() {
    let dirs = dirs();
    let server = server(vec![
        responses_sse(
            &[call(
                "call_task",
                "task",
                json!({"agent": "Explore", "prompt": "ultrathink: where is the parser?"}),
            )],
            100,
        ),
        responses_sse(&[Out::Text("It is in src/parser.rs.")], 150),
        responses_sse(&[Out::Text("Found it.")], 200),
    ])
    .await;
    let (mut session, _events) = responses_session(&dirs, &server, 200_000);
    session
        .run_turn("Find the parser", &CancellationToken::new())
        .await
        .unwrap();
    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[0].get("reasoning"), None);
    assert_eq!(
        bodies[1].get("reasoning"),
        Some(&json!({"effort": "xhigh", "summary": "auto"})),
        "the subagent's request"
    );
    assert_eq!(bodies[2].get("reasoning"), None);
}

#[tokio::test]
async fn the_compaction_summary_request_thinks_as_the_turn_that_compacts() {
    use agentctx_model::ModelInfo;
    use agentctx_model::ScriptedModelClient;
    use agentctx_model::ScriptedResponse;
    use agentctx_protocol::TokenUsage;

    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model").with_model_info(ModelInfo {
        max_output_tokens: Some(2_000),
        ..ModelInfo::with_context_window(30_000)
    });
    // The first turn ends over the auto-compact trigger of a 30,000-token window, so the second
    // (an ultrathink turn) compacts before its request.
    std::fs::write(dirs.cwd.join("parser.rs"), "fn parse() {}\n").unwrap();
    model.push(ScriptedResponse::new().with_function_call(
        "call_read",
        "read_file",
        r#"{"path":"parser.rs"}"#,
    ));
    model.push(
        ScriptedResponse::text("First answer.").with_usage(TokenUsage {
            input_tokens: 25_000,
            output_tokens: 10,
            total_tokens: 25_010,
            ..TokenUsage::default()
        }),
    );
    model.push(ScriptedResponse::text(
        "<summary>One question so far.</summary>",
    ));
    model.push(ScriptedResponse::text("Second answer."));
    let mut options = options(&dirs, std::sync::Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, _events) = Session::new(options).unwrap();
    let cancel = CancellationToken::new();
    session.run_turn("First question", &cancel).await.unwrap();
    session
        .run_turn("ultrathink: the second question", &cancel)
        .await
        .unwrap();
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 4);
    let xhigh = Some(agentctx_model::ReasoningOptions {
        effort: Some(agentctx_model::ReasoningEffort::XHigh),
        summary: Some(agentctx_model::ReasoningSummaryMode::Auto),
        ..agentctx_model::ReasoningOptions::default()
    });
    assert_eq!(prompts[0].reasoning, None);
    assert_eq!(prompts[1].reasoning, None);
    let prompts = &prompts[1..];
    assert!(
        prompts[1]
            .items()
            .filter_map(agentctx_protocol::ResponseItem::message_text)
            .any(|text| text.contains("summary")),
        "the second request is the summary request"
    );
    assert_eq!(prompts[1].reasoning, xhigh, "the summary request");
    assert_eq!(prompts[2].reasoning, xhigh, "the turn's request");
}
