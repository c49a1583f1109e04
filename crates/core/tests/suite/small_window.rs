//! The turn loop against the model's window: the blocking limit is enforced before a request is
//! sent, a reported usage of zero is not believed, and a stream that dies before its first
//! event on a prompt that fills the window is taken for a context overflow (issue 24, defects
//! 2, 3 and 7).

use std::sync::Arc;

use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_core::CoreError;
use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_model::ModelError;
use agentctx_model::ModelInfo;
use agentctx_model::Prompt;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::TokenUsage;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::drain;
use super::support::options;

fn model(window: i64) -> ScriptedModelClient {
    ScriptedModelClient::new("test-model").with_model_info(ModelInfo::with_context_window(window))
}

/// Our estimate of a request as it was sent: instructions, tool schemas and items.
fn prompt_tokens(prompt: &Prompt<'_>) -> u64 {
    let estimator = ApproxTokenEstimator;
    let tools = if prompt.tools.is_empty() {
        0
    } else {
        estimator.estimate_text(&serde_json::to_string(&prompt.tools).unwrap())
    };
    estimator.estimate_text(&prompt.instructions)
        + tools
        + prompt
            .items()
            .map(|item| estimator.estimate_item(item))
            .sum::<u64>()
}

/// A text of about `tokens` tokens (4 bytes each).
fn text_of(tokens: usize) -> String {
    "word ".repeat(tokens * 4 / 5)
}

fn compactions(events: &[SessionEvent]) -> usize {
    events
        .iter()
        .filter(|event| {
            matches!(
                event,
                SessionEvent::Loop(LoopEvent::CompactionCompleted { .. })
            )
        })
        .count()
}

#[tokio::test]
async fn a_request_over_the_blocking_limit_is_compacted_before_it_is_sent() {
    let dirs = dirs();
    // 16,384 tokens: 4,096 kept for the answer, the blocking limit at 11,904.
    let model = model(16_384);
    model.push(ScriptedResponse::text("Hello."));
    model.push(ScriptedResponse::text(
        "<summary>The user greeted and pasted a long text.</summary>",
    ));
    model.push(ScriptedResponse::text("Read it."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("hello", &CancellationToken::new())
        .await
        .unwrap();
    let outcome = session
        .run_turn(&text_of(11_500), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("Read it."));
    assert_eq!(compactions(&drain(&mut events)), 1);

    let prompts = model.prompts();
    assert_eq!(prompts.len(), 3);
    for prompt in &prompts {
        let tokens = prompt_tokens(prompt);
        assert!(
            tokens < 11_904,
            "a request of {tokens} tokens was sent to a 16,384-token window"
        );
    }
    // The second one is the summary request (no tools).
    assert!(prompts[1].tools.is_empty());
}

#[tokio::test]
async fn a_request_that_cannot_fit_fails_the_turn_without_being_sent() {
    let dirs = dirs();
    let model = model(16_384);
    let mut options = options(&dirs, Arc::new(model.clone()));
    // Instructions alone larger than the window: no compaction can help.
    options.base_instructions = text_of(13_000);
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, _events) = Session::new(options).unwrap();
    let error = session
        .run_turn("hello", &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            CoreError::ContextWindowFull {
                limit: 11_904,
                window_tokens: 16_384,
                reserved_output_tokens: 4_096,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("even after compacting"),
        "{error}"
    );
    assert_eq!(model.prompts().len(), 0, "nothing may be sent");
}

#[tokio::test]
async fn a_reported_input_of_zero_falls_back_to_our_estimate() {
    let dirs = dirs();
    let model = model(200_000);
    let zero = TokenUsage {
        input_tokens: 0,
        output_tokens: 5,
        total_tokens: 5,
        ..TokenUsage::default()
    };
    model.push(ScriptedResponse::text("Noted.").with_usage(zero));
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    session
        .run_turn(&text_of(20_000), &CancellationToken::new())
        .await
        .unwrap();
    let used = drain(&mut events)
        .iter()
        .find_map(|event| match event {
            SessionEvent::TokenUsage { used_tokens, .. } => Some(*used_tokens),
            _ => None,
        })
        .unwrap();
    let sent = prompt_tokens(&model.prompts()[0]);
    assert!(
        used >= sent,
        "usage of {used} tokens after a request of {sent} that reported 0"
    );
}

fn disconnected() -> ModelError {
    ModelError::StreamDisconnected {
        reason: "stream ended without a completed response".to_string(),
    }
}

/// A turn on a 100,000-token window (effective 80,000, blocking at 77,500) whose first
/// request of about `tokens` dies before its first event; checks that it was taken for an
/// overflow (one compaction, the request sent again) and returns the prompts sent.
async fn stream_dies_on_a_prompt_of(tokens: usize) -> Vec<Prompt<'static>> {
    let dirs = dirs();
    let model = model(100_000);
    model.push(ScriptedResponse::new().then_fail(disconnected()));
    model.push(ScriptedResponse::text("<summary>A long paste.</summary>"));
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, mut events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn(&text_of(tokens), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("Done."));
    assert_eq!(compactions(&drain(&mut events)), 1);
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 3);
    prompts
}

#[tokio::test]
async fn a_stream_that_dies_before_its_first_event_near_the_window_is_an_overflow() {
    // A prompt of about 74,000 is near the 80,000-token effective window.
    let prompts = stream_dies_on_a_prompt_of(74_000).await;
    assert!(prompt_tokens(&prompts[0]) >= 72_000);
    assert!(prompt_tokens(&prompts[2]) < 72_000);
}

#[tokio::test]
async fn a_stream_that_dies_on_a_prompt_over_half_the_window_is_an_overflow() {
    // A local model's tokenizer may count far more than our estimate (SmolLM2 splits numbers
    // into single digits), so a prompt we put at 56% of the effective window may be the one the
    // server found too long.
    stream_dies_on_a_prompt_of(45_000).await;
}

#[tokio::test]
async fn a_stream_that_dies_on_a_small_prompt_is_not_taken_for_an_overflow() {
    let dirs = dirs();
    let model = model(100_000);
    model.push(ScriptedResponse::new().then_fail(disconnected()));
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let error = session
        .run_turn("hello", &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            CoreError::Model(ModelError::StreamDisconnected { .. })
        ),
        "{error:?}"
    );
    assert_eq!(compactions(&drain(&mut events)), 0);
    assert_eq!(model.prompts().len(), 1);
}
