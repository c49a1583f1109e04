//! The scripted client other crates test with.

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ModelInfo;
use agentctx_model::Prompt;
use agentctx_model::ProviderIdentity;
use agentctx_model::RemoteCompactionSupport;
use agentctx_model::ResponseEvent;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_model::WireApi;
use agentctx_model::owned_items;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;

use super::support::collect;
use super::support::done_items;
use super::support::trace;

#[tokio::test]
async fn replays_text_tool_calls_reasoning_usage_and_records_prompts() {
    let model =
        ScriptedModelClient::new("scripted").with_model_info(ModelInfo::with_context_window(1_000));
    let usage = TokenUsage {
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        ..TokenUsage::default()
    };
    model
        .push(
            ScriptedResponse::new()
                .with_reasoning("plan")
                .with_function_call("call_1", "shell", r#"{"command":["ls"]}"#)
                .with_usage(usage),
        )
        .push_text("done");
    let handle = model.clone();

    let first = Prompt::system_and_user("sys", "list files");
    let (events, error) = collect(&model, &first).await;
    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "created",
            "added:reasoning",
            "summary:plan",
            "done:reasoning",
            "added:function_call",
            "done:function_call",
            "completed:resp_1",
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "resp_1".to_string(),
            token_usage: Some(usage)
        })
    );
    assert_eq!(
        done_items(&events)[1],
        serde_json::to_value(ResponseItem::function_call(
            "call_1",
            "shell",
            r#"{"command":["ls"]}"#
        ))
        .unwrap()
    );

    let second = Prompt {
        input: owned_items(vec![
            ResponseItem::user_text("list files"),
            ResponseItem::function_call_output("call_1", "a.rs"),
        ]),
        ..first.clone()
    };
    assert_eq!(model.complete("sys", "again").await.unwrap(), "done");
    // The clone shares the recorded prompts and the script.
    assert_eq!(handle.served(), 2);
    assert_eq!(handle.remaining(), 0);
    assert_eq!(handle.prompts()[0], first);
    assert_eq!(
        handle.last_prompt(),
        Some(Prompt::system_and_user("sys", "again"))
    );
    assert_ne!(handle.prompts()[1], second);
    assert_eq!(model.context_window(), 1_000);
    assert_eq!(model.slug(), "scripted");

    assert_eq!(
        model.complete("sys", "one more").await.unwrap_err(),
        ModelError::ScriptExhausted { served: 2 }
    );
}

#[tokio::test]
async fn scripted_errors_before_and_during_the_stream() {
    let model = ScriptedModelClient::with_responses(
        "scripted",
        [
            ScriptedResponse::error(ModelError::ContextWindowExceeded {
                message: "too long".to_string(),
            }),
            ScriptedResponse::text("partial").then_fail(ModelError::StreamDisconnected {
                reason: "scripted".to_string(),
            }),
        ],
    );
    let prompt = Prompt::system_and_user("s", "u");

    assert_eq!(
        model.stream(&prompt).await.err(),
        Some(ModelError::ContextWindowExceeded {
            message: "too long".to_string()
        })
    );
    let (events, error) = collect(&model, &prompt).await;
    assert_eq!(
        trace(&events),
        vec!["created", "added:message", "text:partial", "done:message"]
    );
    assert_eq!(
        error,
        Some(ModelError::StreamDisconnected {
            reason: "scripted".to_string()
        })
    );
}

#[tokio::test]
async fn usable_as_a_trait_object() {
    let model: std::sync::Arc<dyn ModelClient> =
        std::sync::Arc::new(ScriptedModelClient::with_responses(
            "scripted",
            [ScriptedResponse::new()
                .with_thinking("hmm")
                .with_text("a")
                .with_text("b")],
        ));
    assert_eq!(model.complete("s", "u").await.unwrap(), "a\nb");
}

#[tokio::test(start_paused = true)]
async fn complete_redoes_a_turn_whose_stream_broke_after_an_item() {
    let model = ScriptedModelClient::with_responses(
        "scripted",
        [
            ScriptedResponse::text("Hello wor").then_fail(ModelError::TurnRestartRequired {
                completed_items: 1,
                reason: "scripted".to_string(),
            }),
            ScriptedResponse::text("Hi there"),
        ],
    );

    let reply = model.complete("s", "u").await;

    assert_eq!(reply, Ok("Hi there".to_string()));
    assert_eq!(model.served(), 2);
}

#[tokio::test]
async fn scripts_remote_compaction_replies_failures_and_a_provider_without_it() {
    let compacted = vec![
        ResponseItem::user_text("list files"),
        serde_json::from_value::<ResponseItem>(serde_json::json!({
            "type": "compaction",
            "encrypted_content": "gAAA-opaque"
        }))
        .unwrap(),
    ];
    let failure = ModelError::Server {
        status: 500,
        body: "upstream failed".to_string(),
        retry_after: None,
    };
    let identity = ProviderIdentity::new(WireApi::Responses, "https://api.openai.com/v1");
    let model = ScriptedModelClient::new("scripted")
        .with_remote_compaction(RemoteCompactionSupport {
            endpoint: true,
            ..RemoteCompactionSupport::NONE
        })
        .with_provider_identity(identity.clone());
    model
        .push_compaction(Ok(compacted.clone()))
        .push_compaction(Err(failure.clone()));
    let prompt = Prompt::system_and_user("sys", "list files");

    assert!(model.remote_compaction().endpoint);
    assert_eq!(model.provider_identity(), identity);
    assert_eq!(model.compact_remote(&prompt).await, Ok(compacted));
    assert_eq!(model.compact_remote(&prompt).await, Err(failure));
    assert_eq!(
        model.compact_remote(&prompt).await,
        Err(ModelError::ScriptExhausted { served: 2 })
    );
    assert_eq!(model.compaction_prompts().len(), 3);
    assert_eq!(model.served(), 0, "compaction is not a streamed request");

    let plain = ScriptedModelClient::new("plain");
    assert!(!plain.remote_compaction().any());
    assert_eq!(
        plain.compact_remote(&prompt).await,
        Err(ModelError::RemoteCompactionUnsupported {
            provider: "responses".to_string()
        })
    );
    assert!(plain.compaction_prompts().is_empty());
}
