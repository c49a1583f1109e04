use agentctx_context::ApproxTokenEstimator;
use agentctx_model::ModelClient;
use agentctx_model::ScriptedModelClient;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::*;
use crate::full_compact::CONDENSED_OPENING;
use crate::summary_prompt::SUMMARY_PREFIX;

/// `turns` turns, each a user request, a shell call with an output of `output_bytes` and an
/// answer.
fn turns(turns: usize, output_bytes: usize) -> Vec<ResponseItem> {
    let mut items = vec![ResponseItem::developer_text("PERMISSIONS")];
    for turn in 0..turns {
        let id = format!("c{turn}");
        items.push(ResponseItem::user_text(format!(
            "Request {turn}: fix module {turn}."
        )));
        items.push(ResponseItem::function_call(
            &id,
            "shell",
            r#"{"command":["cargo","test"]}"#,
        ));
        items.push(ResponseItem::function_call_output(
            &id,
            format!("output {turn} ").repeat(output_bytes / 10),
        ));
        items.push(ResponseItem::assistant_text(format!(
            "Module {turn} fixed."
        )));
    }
    items
}

fn request(history: &[ResponseItem], keep_recent_tokens: u64) -> PartialCompactRequest<'_> {
    PartialCompactRequest {
        history,
        initial_context: vec![ResponseItem::developer_text("PERMISSIONS")],
        injection: InitialContextInjection::DoNotInject,
        base_instructions: "You are a coding agent.",
        keep_recent_tokens,
        reserved_output_tokens: 0,
        session_id: None,
        reasoning: None,
    }
}

#[tokio::test]
async fn the_oldest_part_is_summarised_and_the_recent_turns_stay_verbatim() {
    // 20 turns of about 1,000 tokens; the last 3,000 tokens are the last three turns or less.
    let history = turns(20, 4_000);
    let model = ScriptedModelClient::new("m");
    model.push_text("<summary>Modules 0 to 16 fixed.</summary>");
    let outcome = partial_compact(
        Some(&model as &dyn ModelClient),
        request(&history, 3_000),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
        HistoryLimit::UNLIMITED,
    )
    .await
    .unwrap();
    assert_eq!(outcome.path, SummaryPath::Model);
    assert_eq!(outcome.summary, "Modules 0 to 16 fixed.");
    // The summary first, then the end of the history from where an exchange starts, as it was.
    let first = outcome.history[0].message_text().unwrap();
    assert!(first.starts_with(SUMMARY_PREFIX), "{first}");
    let kept = &outcome.history[1..];
    assert_eq!(kept, &history[history.len() - kept.len()..]);
    assert!(matches!(kept[0], ResponseItem::Message { .. }));
    assert!(kept.len() < 12 && kept.len() >= 4, "kept {}", kept.len());
    assert_eq!(outcome.kept_items, kept.len());
    assert_eq!(outcome.removed_items + outcome.kept_items, history.len());
    assert!(outcome.tokens_after < outcome.tokens_before / 4);
    // The summary request read only the replaced part.
    let prompt = model.last_prompt().unwrap();
    let sent: Vec<&ResponseItem> = prompt.input.iter().map(AsRef::as_ref).collect();
    assert!(sent.iter().all(|item| !kept.contains(item)));
    assert_eq!(
        outcome.summarized_tokens,
        ApproxTokenEstimator.estimate_items(&history[..outcome.removed_items])
    );
}

#[tokio::test]
async fn without_a_model_the_offline_summariser_writes_it() {
    let history = turns(10, 4_000);
    let outcome = partial_compact(
        None,
        request(&history, 2_500),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
        HistoryLimit::UNLIMITED,
    )
    .await
    .unwrap();
    assert_eq!(outcome.path, SummaryPath::Offline);
    assert_eq!(outcome.offline_reason, Some(OfflineReason::NoModel));
    assert!(outcome.summary.contains("Request 0"), "{}", outcome.summary);
}

#[test]
fn the_cut_never_separates_a_call_from_its_output_nor_reasoning_from_its_call() {
    let items = vec![
        ResponseItem::user_text("go"),
        ResponseItem::Reasoning {
            id: Some("r1".to_string()),
            summary: Vec::new(),
            content: None,
            encrypted_content: None,
            extra: agentctx_protocol::ExtraFields::new(),
        },
        ResponseItem::function_call("c1", "shell", "{}"),
        ResponseItem::function_call_output("c1", "x".repeat(4_000)),
        ResponseItem::assistant_text("done"),
    ];
    let sizes: Vec<u64> = items
        .iter()
        .map(|item| ApproxTokenEstimator.estimate_item(item))
        .collect();
    // Keeping only the output would orphan it; the cut moves to the next exchange, the answer.
    assert_eq!(recent_cut(&items, &sizes, sizes[3] + sizes[4] - 1), Some(4));
    // The reasoning item starts the exchange with its call and output.
    let everything_but_the_request: u64 = sizes[1..].iter().sum();
    assert_eq!(
        recent_cut(&items, &sizes, everything_but_the_request),
        Some(1)
    );
    // Nothing fits: no cut.
    assert_eq!(recent_cut(&items, &sizes, 0), None);
}

#[tokio::test]
async fn a_turn_larger_than_the_budget_keeps_its_end_and_the_request_it_answers() {
    // One turn whose output alone is over the budget: only the answer after it is kept, and
    // the user's request, which only the summarised part held, is put back after the summary.
    let history = turns(1, 40_000);
    let outcome = partial_compact(
        None,
        request(&history, 1_000),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
        HistoryLimit::UNLIMITED,
    )
    .await
    .unwrap();
    assert_eq!(outcome.history.len(), 3);
    assert_eq!(outcome.history[1], history[1]);
    assert_eq!(outcome.history[2], history[4]);
    // Nothing fits at all: not applicable, the caller compacts in full.
    assert_eq!(
        partial_compact(
            None,
            request(&history, 0),
            &FullCompactConfig::default(),
            &ApproxTokenEstimator,
            HistoryLimit::UNLIMITED,
        )
        .await
        .unwrap_err(),
        PartialNotApplicable::NoCut
    );
}

#[tokio::test]
async fn the_cost_guard_clears_old_outputs_then_condenses_the_oldest_items_offline() {
    // 40 turns of about 1,000 tokens each: a 40,000-token summary request.
    let history = turns(40, 4_000);
    let model = ScriptedModelClient::new("m");
    model.push_text("<summary>All modules fixed.</summary>");
    let config = FullCompactConfig {
        max_summary_request_tokens: 3_000,
        ..FullCompactConfig::default()
    };
    let outcome = partial_compact(
        Some(&model as &dyn ModelClient),
        request(&history, 2_000),
        &config,
        &ApproxTokenEstimator,
        HistoryLimit::UNLIMITED,
    )
    .await
    .unwrap();
    let guard = outcome.guard.unwrap();
    assert_eq!(guard.limit_tokens, 3_000);
    assert!(guard.tokens_before > 30_000, "{guard:?}");
    assert!(guard.tokens_after <= 3_000, "{guard:?}");
    assert!(guard.outputs_cleared > 30, "{guard:?}");
    assert!(guard.items_condensed > 0, "{guard:?}");
    // What the model read: the condensed message first, then the newest items, no output
    // without its call.
    let prompt = model.last_prompt().unwrap();
    let first = prompt.input[0].message_text().unwrap();
    assert!(first.starts_with(CONDENSED_OPENING), "{first}");
    let calls: Vec<&str> = prompt
        .input
        .iter()
        .filter(|item| item.is_tool_call())
        .filter_map(|item| item.call_id())
        .collect();
    for item in prompt.input.iter().filter(|item| item.is_tool_output()) {
        assert!(calls.contains(&item.call_id().unwrap()));
    }
    assert!(
        ApproxTokenEstimator.estimate_items(
            &prompt
                .input
                .iter()
                .map(|item| item.as_ref().clone())
                .collect::<Vec<_>>()
        ) <= 3_000
    );
}

#[tokio::test]
async fn under_the_guard_the_request_is_sent_as_it_is() {
    let history = turns(5, 400);
    let model = ScriptedModelClient::new("m");
    model.push_text("<summary>Early modules fixed.</summary>");
    let outcome = partial_compact(
        Some(&model as &dyn ModelClient),
        request(&history, 150),
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
        HistoryLimit::UNLIMITED,
    )
    .await
    .unwrap();
    assert_eq!(outcome.guard, None);
}
