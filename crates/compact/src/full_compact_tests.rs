use agentctx_context::ApproxTokenEstimator;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ModelInfo;
use agentctx_model::ScriptedModelClient;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::compacted_history::render_history;
use crate::summary_prompt::SUMMARY_PREFIX;

fn session() -> Vec<ResponseItem> {
    vec![
        ResponseItem::user_text("Fix the failing parser test."),
        ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
        ResponseItem::function_call_output("c1", "test parser::empty ... FAILED"),
        ResponseItem::GhostSnapshot {
            ghost_commit: json!({ "id": "g1" }),
            extra: ExtraFields::new(),
        },
        ResponseItem::assistant_text("The empty input is not handled; fixing."),
        ResponseItem::user_text("Also add a test for whitespace."),
    ]
}

fn request(history: &[ResponseItem], injection: InitialContextInjection) -> FullCompactRequest<'_> {
    FullCompactRequest {
        history,
        initial_context: vec![ResponseItem::developer_text("PERMISSIONS")],
        injection,
        base_instructions: "You are a coding agent.",
        prompt_override: None,
        reserved_output_tokens: 0,
        session_id: None,
        reasoning: None,
    }
}

fn server_error() -> ModelError {
    ModelError::Server {
        status: 500,
        body: "boom".to_string(),
        retry_after: None,
    }
}

async fn run(model: Option<&ScriptedModelClient>, history: &[ResponseItem]) -> FullCompactOutcome {
    full_compact(
        model.map(|model| model as &dyn ModelClient),
        request(history, InitialContextInjection::BeforeLastUserMessage),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
    )
    .await
}

#[tokio::test]
async fn the_summary_request_thinks_as_the_turn_does() {
    let model = ScriptedModelClient::new("m");
    model.push_text("<summary>Parser work.</summary>");
    let history = session();
    let reasoning = agentctx_model::ReasoningOptions {
        effort: Some(agentctx_model::ReasoningEffort::High),
        ..agentctx_model::ReasoningOptions::default()
    };
    let outcome = full_compact(
        Some(&model as &dyn ModelClient),
        FullCompactRequest {
            reasoning: Some(reasoning),
            ..request(&history, InitialContextInjection::BeforeLastUserMessage)
        },
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
    )
    .await;
    assert_eq!(outcome.path, SummaryPath::Model);
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].reasoning, Some(reasoning));
}

#[tokio::test]
async fn the_model_summary_replaces_the_history_mid_turn() {
    let model = ScriptedModelClient::new("m");
    model.push_text("<summary>Parser: empty input fails; whitespace test pending.</summary>");
    let history = session();
    let outcome = run(Some(&model), &history).await;
    assert_eq!(outcome.path, SummaryPath::Model);
    assert_eq!(outcome.attempts, 1);
    assert_eq!(outcome.offline_reason, None);
    assert_eq!(
        outcome.summary,
        "Parser: empty input fails; whitespace test pending."
    );
    assert!(outcome.tokens_after < outcome.tokens_before + 200);
    insta::assert_snapshot!(render_history(&outcome.history));
}

#[tokio::test]
async fn the_summary_request_is_the_filtered_history_and_the_handoff_prompt() {
    let model = ScriptedModelClient::new("m");
    model.push_text("summary");
    let history = session();
    run(Some(&model), &history).await;
    let prompt = model.last_prompt().expect("one request");
    assert_eq!(prompt.instructions, "You are a coding agent.");
    assert_eq!(
        prompt.items().last(),
        Some(&ResponseItem::user_text(SUMMARIZATION_PROMPT))
    );
    assert!(
        !prompt
            .items()
            .any(|item| matches!(item, ResponseItem::GhostSnapshot { .. })),
        "ghost snapshots are never sent"
    );
}

#[tokio::test]
async fn a_failed_request_is_retried_twice() {
    let model = ScriptedModelClient::new("m");
    model.push_error(server_error());
    model.push_error(server_error());
    model.push_text("third time lucky");
    let outcome = run(Some(&model), &session()).await;
    assert_eq!(outcome.path, SummaryPath::Model);
    assert_eq!(outcome.attempts, 3);
    assert_eq!(outcome.summary, "third time lucky");
}

#[tokio::test]
async fn three_failures_fall_back_to_the_offline_summary() {
    let model = ScriptedModelClient::new("m");
    for _ in 0..3 {
        model.push_error(server_error());
    }
    model.push_text("never asked for");
    let history = session();
    let outcome = run(Some(&model), &history).await;
    assert_eq!(outcome.path, SummaryPath::Offline);
    assert_eq!(outcome.attempts, 3);
    assert_eq!(model.remaining(), 1);
    assert!(matches!(
        outcome.offline_reason,
        Some(OfflineReason::ModelFailed { ref last_error }) if last_error.contains("boom")
    ));
    let summary = outcome
        .history
        .iter()
        .filter_map(ResponseItem::message_text)
        .find(|text| text.starts_with(SUMMARY_PREFIX))
        .expect("a summary message");
    assert!(
        summary.contains("Fix the failing parser test."),
        "{summary}"
    );
}

#[tokio::test]
async fn an_invalid_summary_counts_as_a_failure() {
    let model = ScriptedModelClient::new("m");
    model.push_text("<analysis>thinking only</analysis>");
    model.push_text("Prompt is too long");
    model.push_text("A real summary.");
    let outcome = run(Some(&model), &session()).await;
    assert_eq!(outcome.path, SummaryPath::Model);
    assert_eq!(outcome.attempts, 3);
    assert_eq!(outcome.summary, "A real summary.");
}

#[tokio::test]
async fn without_a_model_the_offline_summary_is_used() {
    let outcome = run(None, &session()).await;
    assert_eq!(outcome.path, SummaryPath::Offline);
    assert_eq!(outcome.offline_reason, Some(OfflineReason::NoModel));
    assert_eq!(outcome.attempts, 0);
    assert!(!outcome.summary.trim().is_empty());
}

#[tokio::test]
async fn a_context_window_error_shrinks_the_request_and_sends_it_again() {
    let model = ScriptedModelClient::new("m");
    model.push_error(ModelError::ContextWindowExceeded {
        message: "too long".to_string(),
    });
    model.push_text("fits now");
    let mut history = session();
    history.insert(
        2,
        ResponseItem::function_call_output("c0", "x".repeat(4_000)),
    );
    let outcome = run(Some(&model), &history).await;
    assert_eq!(outcome.path, SummaryPath::Model);
    assert_eq!(outcome.attempts, 2);
    assert!(outcome.tool_outputs_pruned + outcome.items_dropped > 0);
    let prompts = model.prompts();
    let tokens = |prompt: &Prompt<'_>| {
        ApproxTokenEstimator.estimate_items(&prompt.items().cloned().collect::<Vec<_>>())
    };
    assert!(tokens(&prompts[1]) < tokens(&prompts[0]));
}

#[tokio::test]
async fn a_request_over_the_window_clears_tool_outputs_before_dropping_items() {
    let model =
        ScriptedModelClient::new("m").with_model_info(ModelInfo::with_context_window(1_500));
    model.push_text("summary");
    let mut history = vec![ResponseItem::user_text("Read the two files.")];
    for call in ["a", "b"] {
        history.push(ResponseItem::function_call(call, "read", "{}"));
        history.push(ResponseItem::function_call_output(call, call.repeat(3_000)));
    }
    history.push(ResponseItem::user_text("Now summarise them."));
    let outcome = run(Some(&model), &history).await;
    assert_eq!(outcome.path, SummaryPath::Model);
    assert_eq!(outcome.items_dropped, 0);
    assert_eq!(
        outcome.tool_outputs_pruned, 1,
        "only the oldest output had to go"
    );
    let prompt = model.last_prompt().expect("one request");
    let outputs: Vec<String> = prompt
        .items()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { output, .. } => Some(output.text_content()),
            _ => None,
        })
        .collect();
    assert_eq!(
        outputs,
        vec![PRUNED_TOOL_OUTPUT.to_string(), "b".repeat(3_000)]
    );
}

#[tokio::test]
async fn when_clearing_outputs_is_not_enough_the_oldest_items_go_and_the_newest_stays() {
    let model = ScriptedModelClient::new("m").with_model_info(ModelInfo::with_context_window(400));
    model.push_text("summary");
    let mut history: Vec<ResponseItem> = (0..20)
        .map(|index| ResponseItem::user_text(format!("message {index} {}", "w".repeat(100))))
        .collect();
    history.push(ResponseItem::user_text("the newest request"));
    let outcome = run(Some(&model), &history).await;
    assert_eq!(outcome.path, SummaryPath::Model);
    assert!(outcome.items_dropped > 0);
    let prompt = model.last_prompt().expect("one request");
    let newest = prompt.input.len() - 2;
    assert_eq!(
        *prompt.input[newest],
        ResponseItem::user_text("the newest request")
    );
}

#[tokio::test]
async fn a_newest_item_larger_than_the_window_falls_back_offline_without_a_request() {
    let model = ScriptedModelClient::new("m").with_model_info(ModelInfo::with_context_window(200));
    model.push_text("never asked for");
    let history = vec![ResponseItem::user_text("z".repeat(4_000))];
    let outcome = run(Some(&model), &history).await;
    assert_eq!(outcome.path, SummaryPath::Offline);
    assert_eq!(outcome.offline_reason, Some(OfflineReason::PromptTooLarge));
    assert_eq!(outcome.attempts, 0);
    assert_eq!(model.served(), 0);
}

#[tokio::test]
async fn the_model_switch_is_kept_out_of_the_request_and_put_back_after_the_summary() {
    let model = ScriptedModelClient::new("m");
    model.push_text("summary");
    let mut history = session();
    let switch = ResponseItem::developer_text("<model_switch>\nNow gpt-5.\n</model_switch>");
    history.push(switch.clone());
    let outcome = full_compact(
        Some(&model),
        request(&history, InitialContextInjection::DoNotInject),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
    )
    .await;
    let prompt = model.last_prompt().expect("one request");
    assert!(!prompt.items().any(|item| item == &switch));
    insta::assert_snapshot!(render_history(&outcome.history));
}

#[tokio::test]
async fn the_completed_event_counts_removed_items_and_summary_tokens() {
    let model = ScriptedModelClient::new("m");
    model.push_text("summary");
    let history = session();
    let outcome = run(Some(&model), &history).await;
    // The two user messages and the ghost snapshot survive; the call, its output and the
    // assistant message are removed.
    assert_eq!(outcome.removed_items, 3);
    assert_eq!(
        outcome.completed_event(),
        LoopEvent::CompactionCompleted {
            removed_messages: 3,
            summary_tokens: i32::try_from(outcome.summary_tokens).unwrap_or(i32::MAX),
        }
    );
    assert_eq!(
        FullCompactOutcome::started_event(),
        LoopEvent::CompactionStarted
    );
}

#[tokio::test]
async fn a_model_that_always_overflows_ends_offline_instead_of_looping() {
    let model = ScriptedModelClient::new("m");
    for _ in 0..200 {
        model.push_error(ModelError::ContextWindowExceeded {
            message: "too long".to_string(),
        });
    }
    let history: Vec<ResponseItem> = (0..50)
        .map(|index| ResponseItem::user_text(format!("message {index}")))
        .collect();
    let outcome = run(Some(&model), &history).await;
    assert_eq!(outcome.path, SummaryPath::Offline);
    assert_eq!(outcome.offline_reason, Some(OfflineReason::PromptTooLarge));
    assert!(outcome.attempts < 60, "{} attempts", outcome.attempts);
    assert_eq!(
        outcome.items_dropped, 49,
        "the newest item is never dropped"
    );
}

/// A 4,096-token model and a history of 20 requests of about 400 tokens each.
fn small_window_session() -> (ScriptedModelClient, Vec<ResponseItem>) {
    let model =
        ScriptedModelClient::new("m").with_model_info(ModelInfo::with_context_window(4_096));
    let history = (0..20)
        .flat_map(|turn| {
            [
                ResponseItem::user_text(format!("request {turn}: {}", "word ".repeat(320))),
                ResponseItem::assistant_text(format!("answer {turn}")),
            ]
        })
        .collect();
    (model, history)
}

fn small_window_request(history: &[ResponseItem]) -> FullCompactRequest<'_> {
    FullCompactRequest {
        reserved_output_tokens: 1_024,
        ..request(history, InitialContextInjection::BeforeLastUserMessage)
    }
}

#[tokio::test]
async fn on_a_small_window_the_compacted_history_fits_the_window() {
    let (model, history) = small_window_session();
    model.push_text("<summary>Twenty requests about words.</summary>");
    let outcome = full_compact(
        Some(&model),
        small_window_request(&history),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
    )
    .await;
    // The summary request itself fit the effective window (4,096 - 1,024).
    let prompt = model.last_prompt().unwrap();
    let sent = ApproxTokenEstimator.estimate_items(&prompt.items().cloned().collect::<Vec<_>>());
    assert!(sent <= 3_072, "summary request of {sent} tokens");
    assert_eq!(outcome.path, SummaryPath::Model);
    // The kept user messages are a fifth of the effective window, not 20,000 tokens.
    assert!(
        outcome.tokens_after <= 3_072 / 5 + 300,
        "compacted history of {} tokens",
        outcome.tokens_after
    );
    // The latest request is still there, its start at least.
    assert!(render_history(&outcome.history).contains("request 19"));
}

#[tokio::test]
async fn a_compacted_history_over_its_limit_keeps_fewer_messages_then_cuts_the_summary() {
    let (model, history) = small_window_session();
    model.push_text(format!(
        "<summary>{}</summary>",
        "long summary ".repeat(400)
    ));
    let limit = HistoryLimit {
        effective_window: 3_072,
        max_tokens: 500,
    };
    let outcome = full_compact_within(
        Some(&model),
        small_window_request(&history),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
        limit,
    )
    .await;
    assert!(
        outcome.tokens_after <= 500,
        "compacted history of {} tokens",
        outcome.tokens_after
    );
    assert!(outcome.summary.starts_with("long summary"));
    assert!(outcome.summary.len() < "long summary ".repeat(400).len());
}

/// Items that share their type, role, call id or text in every combination, so the lookup's
/// keys collide where they can and the whole comparison has to tell them apart.
fn look_alike_items() -> Vec<ResponseItem> {
    let mut output = ResponseItem::function_call_output("c1", "ok");
    if let ResponseItem::FunctionCallOutput { extra, .. } = &mut output {
        extra.insert("status".to_string(), json!("completed"));
    }
    vec![
        ResponseItem::user_text("same text"),
        ResponseItem::developer_text("same text"),
        ResponseItem::assistant_text("same text"),
        ResponseItem::user_text("other text"),
        ResponseItem::function_call("c1", "shell", r#"{"command":["ls"]}"#),
        ResponseItem::function_call("c1", "shell", r#"{"command":["pwd"]}"#),
        ResponseItem::function_call_output("c1", "ok"),
        output,
        ResponseItem::function_call_output("c2", "ok"),
        ResponseItem::GhostSnapshot {
            ghost_commit: json!({ "id": "g1" }),
            extra: ExtraFields::new(),
        },
        ResponseItem::GhostSnapshot {
            ghost_commit: json!({ "id": "g2" }),
            extra: ExtraFields::new(),
        },
    ]
}

proptest::proptest! {
    /// The count in one pass is the count of a walk of the new history for every item.
    #[test]
    fn removed_items_are_the_items_the_new_history_does_not_hold(
        old in proptest::collection::vec(0..11usize, 0..24),
        new in proptest::collection::vec(0..11usize, 0..12),
    ) {
        let items = look_alike_items();
        let pick = |at: &Vec<usize>| -> Vec<ResponseItem> {
            at.iter().filter_map(|&index| items.get(index).cloned()).collect()
        };
        let (history, new_history) = (pick(&old), pick(&new));
        let walked = history
            .iter()
            .filter(|item| !new_history.contains(item))
            .count();
        proptest::prop_assert_eq!(count_removed(&history, &new_history), walked);
    }
}
