//! The stage-one request fits the model's window as the calibrated estimator counts it, with
//! room for the reply: a session is cut by its estimated tokens, not by its bytes.

use std::sync::Arc;

use agentctx_context::CalibratedTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_memory::Extractor;
use agentctx_memory::OfflineConsolidator;
use agentctx_model::ModelClient;
use agentctx_model::ModelInfo;
use agentctx_model::ScriptedModelClient;
use agentctx_protocol::ResponseItem;

use super::support::config;
use super::support::pipeline;
use super::support::write_session_items;

const WINDOW: i64 = 16_384;
const MAX_OUTPUT: i64 = 2_048;

fn stage_one_reply() -> String {
    serde_json::json!({
        "rollout_summary": "Counted the sevens.",
        "rollout_slug": "count_sevens",
        "raw_memory": "# Counted the sevens\n- the tool printed many numbers",
    })
    .to_string()
}

/// A model with a 16,384-token window and a 2,048-token output limit.
fn small_model() -> ScriptedModelClient {
    ScriptedModelClient::new("smollm2").with_model_info(ModelInfo {
        max_output_tokens: Some(MAX_OUTPUT),
        ..ModelInfo::with_context_window(WINDOW)
    })
}

/// Tokens of the request as the calibrated estimator counts them: instructions and input.
fn estimated_request_tokens(model: &ScriptedModelClient) -> u64 {
    let prompt = model.last_prompt().unwrap();
    let estimator = CalibratedTokenEstimator;
    estimator.estimate_text(&prompt.instructions)
        + prompt
            .items()
            .map(|item| estimator.estimate_item(item))
            .sum::<u64>()
}

#[tokio::test]
async fn a_session_that_fits_by_bytes_but_not_by_tokens_is_cut_to_fit_the_window() {
    let home = tempfile::tempdir().unwrap();
    // 40,000 bytes of small numbers: 10,000 tokens at four bytes a token (inside 70% of the
    // window), but every number is a token of its own: about 29,000 by the estimator.
    let numbers = "7 ".repeat(20_000);
    assert!(CalibratedTokenEstimator.estimate_text(&numbers) > WINDOW as u64);
    write_session_items(
        home.path(),
        "/src/app",
        &[
            ResponseItem::user_text("Count the sevens"),
            ResponseItem::function_call("c1", "shell", r#"{"command":["seq"]}"#),
            ResponseItem::function_call_output("c1", &numbers),
            ResponseItem::assistant_text("There are 20,000 sevens."),
        ],
    );
    let model = small_model();
    model.push_text(stage_one_reply());
    let client: Arc<dyn ModelClient> = Arc::new(model.clone());

    let report = pipeline(
        config(home.path()),
        Extractor::Model(client),
        Arc::new(OfflineConsolidator),
    )
    .run_once()
    .await
    .unwrap();

    assert_eq!(report.phase1.succeeded_with_output, 1);
    let sent = estimated_request_tokens(&model);
    assert!(
        sent + MAX_OUTPUT as u64 <= WINDOW as u64,
        "the request holds about {sent} tokens; with {MAX_OUTPUT} for the reply that exceeds the {WINDOW}-token window"
    );
    // The cut keeps the start and the end of the session.
    let input = model.last_prompt().unwrap().input[0]
        .message_text()
        .unwrap();
    assert!(input.contains("Count the sevens"), "{input}");
    assert!(input.contains("There are 20,000 sevens."), "{input}");
}

#[tokio::test]
async fn a_request_the_server_finds_too_long_is_cut_further_and_sent_again() {
    let home = tempfile::tempdir().unwrap();
    let log = "cargo build output line\n".repeat(4_000);
    write_session_items(
        home.path(),
        "/src/app",
        &[
            ResponseItem::user_text("Build it"),
            ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","build"]}"#),
            ResponseItem::function_call_output("c1", &log),
            ResponseItem::assistant_text("Built."),
        ],
    );
    let model = small_model();
    // llama-cpp-python's message for a prompt over `n_ctx` (llama_cpp/server/errors.py).
    model.push_error(agentctx_model::ModelError::ContextWindowExceeded {
        message: "This model's maximum context length is 16384 tokens. However, you requested \
                  20389 tokens (18341 in the messages, 2048 in the completion). Please reduce \
                  the length of the messages or completion."
            .to_string(),
    });
    model.push_text(stage_one_reply());
    let client: Arc<dyn ModelClient> = Arc::new(model.clone());

    let report = pipeline(
        config(home.path()),
        Extractor::Model(client),
        Arc::new(OfflineConsolidator),
    )
    .run_once()
    .await
    .unwrap();

    assert_eq!(report.phase1.succeeded_with_output, 1);
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 2);
    let estimate = |index: usize| {
        CalibratedTokenEstimator.estimate_text(&prompts[index].input[0].message_text().unwrap())
    };
    // Scaled by what the server counted: 14,336 of room for 18,341 sent, less a tenth.
    assert!(
        estimate(1) * 100 < estimate(0) * 75,
        "{} then {}",
        estimate(0),
        estimate(1)
    );
}
