//! The provider's own context management in a live session: an Anthropic answer paused after
//! the server compacted (`pause_after_compaction`) is asked for again in the same turn with the
//! compaction block sent back, the compaction's tokens (reported apart from the answer's usage)
//! are counted in the session's usage, and while the provider edits the context itself
//! (context editing) the engine's micro-compaction stands aside.
//!
//! The paused stream follows Anthropic's compaction page
//! (<https://platform.claude.com/docs/en/build-with-claude/compaction>: the `compaction` block
//! streamed with `compaction_delta`, `stop_reason: "compaction"` when `pause_after_compaction`
//! is set, and `usage.iterations` listing the compaction step apart from the message).

use std::sync::Arc;

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_model::AnthropicCompaction;
use agentctx_model::ModelInfo;
use agentctx_model::RemoteCompactionSupport;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_model::WireApi;
use agentctx_protocol::LoopEvent;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::anthropic_sse;
use super::support::bodies;
use super::support::dirs;
use super::support::drain;
use super::support::options;
use super::support::server;

/// An answer that stops right after the server's compaction block.
fn paused_after_compaction() -> String {
    let events = [
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_paused","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":23000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":null}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"Summary: the user is fixing parse_range."}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"compaction","stop_sequence":null},"usage":{"input_tokens":23000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0,"iterations":[{"type":"compaction","input_tokens":180000,"output_tokens":3500}]}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    events
        .iter()
        .map(|(kind, data)| format!("event: {kind}\ndata: {data}\n\n"))
        .collect()
}

fn compacting_client(server: &wiremock::MockServer) -> Arc<dyn agentctx_model::ModelClient> {
    let mut provider = super::support::test_provider(server, WireApi::Anthropic);
    provider.context_management.compaction = Some(AnthropicCompaction {
        trigger: Some(150_000),
        pause_after_compaction: Some(true),
        instructions: None,
    });
    Arc::new(
        agentctx_model::HttpModelClient::new(
            provider,
            "claude-sonnet-4-5",
            &super::support::test_env,
        )
        .unwrap()
        .with_model_info(ModelInfo {
            max_output_tokens: Some(4_000),
            ..ModelInfo::with_context_window(200_000)
        }),
    )
}

#[tokio::test]
async fn an_answer_paused_after_a_server_compaction_is_asked_for_again_and_its_tokens_count() {
    let dirs = dirs();
    let server = server(vec![
        paused_after_compaction(),
        anthropic_sse(&[Out::Text("The fix is in parse_range.")], 23_500),
    ])
    .await;
    let options = options(&dirs, compacting_client(&server));
    let (mut session, _events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("Where is the bug?", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        outcome.last_message.as_deref(),
        Some("The fix is in parse_range.")
    );
    assert_eq!(outcome.requests, 2, "the paused answer is asked for again");

    // The second request sends the compaction block back, in the assistant's content.
    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 2);
    let blocks: Vec<&Value> = bodies[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "assistant")
        .flat_map(|message| message["content"].as_array().into_iter().flatten())
        .filter(|block| block["type"] == "compaction")
        .collect();
    assert_eq!(blocks.len(), 1, "{:#}", bodies[1]);
    assert_eq!(
        blocks[0]["content"],
        "Summary: the user is fixing parse_range."
    );

    // The compaction step's 180,000 + 3,500 tokens are in the session's usage, beside the two
    // answers' own.
    let total = session.total_token_usage();
    assert!(total.input_tokens >= 180_000 + 23_000 + 23_500, "{total:?}");
    assert!(total.output_tokens >= 3_500, "{total:?}");
    // The last request's usage (how full the context is) is the answer's, not the compaction's.
    let last = session.engine().token_info().unwrap().last_token_usage;
    assert!(last.input_tokens < 100_000, "{last:?}");
}

#[tokio::test]
async fn micro_compaction_stands_aside_while_the_provider_edits_the_context() {
    let run = |context_editing: bool| async move {
        let dirs = dirs();
        let big = "x".repeat(12_000);
        let mut calls = ScriptedResponse::new();
        for index in 0..30 {
            std::fs::write(dirs.cwd.join(format!("f{index}.txt")), &big).unwrap();
            calls = calls.with_function_call(
                format!("call_{index}"),
                "shell",
                format!(r#"{{"command":"cat f{index}.txt"}}"#),
            );
        }
        let model = ScriptedModelClient::new("test-model")
            .with_model_info(ModelInfo {
                max_output_tokens: Some(2_000),
                ..ModelInfo::with_context_window(1_000_000)
            })
            .with_remote_compaction(RemoteCompactionSupport {
                context_editing,
                ..RemoteCompactionSupport::NONE
            });
        model.push(calls);
        model.push(ScriptedResponse::text("Read them all."));
        let mut options = options(&dirs, Arc::new(model.clone()));
        options.compact.session_memory.extraction_enabled = false;
        let (mut session, mut events) = Session::new(options).unwrap();
        session
            .run_turn("Print f0.txt to f29.txt", &CancellationToken::new())
            .await
            .unwrap();
        drain(&mut events)
            .iter()
            .filter(|event| {
                matches!(
                    event,
                    SessionEvent::Loop(LoopEvent::MicroCompactionApplied { .. })
                )
            })
            .count()
    };
    assert_eq!(
        run(false).await,
        1,
        "our micro-compaction clears old results"
    );
    assert_eq!(
        run(true).await,
        0,
        "the provider clears them itself: ours stands aside"
    );
}
