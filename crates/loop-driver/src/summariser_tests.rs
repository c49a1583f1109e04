use std::sync::Arc;

use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ScriptedModelClient;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::EMPTY_ITERATION_SUMMARY;
use super::Summariser;
use super::TRUNCATED_MARKER;
use super::TextSource;
use super::format_messages_for_summary;
use super::truncate_chars;

fn history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::user_text("Add a --json flag to the report command"),
        ResponseItem::user_text("<system-reminder>\nThe todo list is empty.\n</system-reminder>"),
        ResponseItem::function_call("c1", "shell", "{\"cmd\":\"cargo test\"}"),
        ResponseItem::function_call_output("c1", "test result: ok. 12 passed"),
        ResponseItem::assistant_text("Added the flag and a test."),
    ]
}

/// A prompt as the model saw it: instructions, then each input message.
fn render(prompt: &Prompt<'_>) -> String {
    let input: Vec<String> = prompt
        .input
        .iter()
        .map(|item| {
            format!(
                "[{}]\n{}",
                item.role().unwrap_or("?"),
                item.message_text().unwrap_or_default()
            )
        })
        .collect();
    format!(
        "[system]\n{}\n\n{}",
        prompt.instructions,
        input.join("\n\n")
    )
}

fn summariser(model: &ScriptedModelClient) -> Summariser {
    Summariser::new(Arc::new(model.clone()), 500)
}

#[tokio::test]
async fn the_summary_prompt_sees_the_filtered_history() {
    let model = ScriptedModelClient::new("m");
    model.push_text("<analysis>thinking</analysis><summary>Added --json.</summary>");
    let summary = summariser(&model).summarize_iteration(&history()).await;
    assert_eq!(summary.text, "Added --json.");
    assert_eq!(summary.source, TextSource::Model);
    let prompt = model.last_prompt().unwrap();
    // The reminder is gone: the compaction crate's filter ran.
    assert!(!render(&prompt).contains("todo list"));
    insta::assert_snapshot!(render(&prompt));
}

#[tokio::test]
async fn the_commit_message_prompt() {
    let model = ScriptedModelClient::new("m");
    model.push_text("```\n[iter-2] Add --json flag\n\nAdds the flag.\n```");
    let files: Vec<String> = (0..12).map(|n| format!("src/f{n}.rs")).collect();
    let message = summariser(&model)
        .commit_message(2, &"long task ".repeat(30), &files, "Added the flag.")
        .await;
    assert_eq!(message.text, "[iter-2] Add --json flag\n\nAdds the flag.");
    insta::assert_snapshot!(render(&model.last_prompt().unwrap()));
}

#[tokio::test]
async fn a_failing_model_falls_back_to_a_summary_built_from_the_history() {
    let model = ScriptedModelClient::new("m");
    model.push_error(ModelError::ScriptExhausted { served: 0 });
    let summary = summariser(&model).summarize_iteration(&history()).await;
    assert!(matches!(summary.source, TextSource::Fallback(_)));
    assert!(
        summary
            .text
            .contains("Add a --json flag to the report command"),
        "{}",
        summary.text
    );
}

#[tokio::test]
async fn an_invalid_summary_falls_back() {
    let model = ScriptedModelClient::new("m");
    model.push_text("(no summary available)");
    let summary = summariser(&model).summarize_iteration(&history()).await;
    assert!(
        matches!(summary.source, TextSource::Fallback(_)),
        "{summary:?}"
    );
}

#[tokio::test]
async fn an_empty_history_needs_no_model() {
    let model = ScriptedModelClient::new("m");
    let summary = summariser(&model)
        .summarize_iteration(&[ResponseItem::user_text(
            "<system-reminder>\nonly a reminder\n</system-reminder>",
        )])
        .await;
    assert_eq!(summary.text, EMPTY_ITERATION_SUMMARY);
    assert_eq!(model.served(), 0);
}

#[tokio::test]
async fn a_failing_or_empty_commit_message_falls_back() {
    let model = ScriptedModelClient::new("m");
    model.push_text("   ");
    let s = summariser(&model);
    let empty = s.commit_message(1, "task", &[], "Did a thing.").await;
    assert_eq!(empty.text, "[iter-1] Iteration 1 changes\n\nDid a thing.");
    let failed = s.commit_message(1, "task", &[], "Did a thing.").await;
    assert_eq!(failed.text, "[iter-1] Iteration 1 changes\n\nDid a thing.");
    assert!(
        matches!(failed.source, TextSource::Fallback(reason) if reason.contains("model failed"))
    );
}

#[tokio::test]
async fn summaries_off_use_no_model_but_commit_messages_do() {
    let model = ScriptedModelClient::new("m");
    let s = summariser(&model).with_model_summaries(false);
    let summary = s.summarize_iteration(&history()).await;
    assert!(matches!(summary.source, TextSource::Fallback(_)));
    assert_eq!(model.served(), 0);
    let commit_model = ScriptedModelClient::new("small");
    commit_model.push_text("[iter-0] x");
    let s = s.with_commit_message_model(Arc::new(commit_model.clone()));
    assert_eq!(s.commit_message(0, "t", &[], "s").await.text, "[iter-0] x");
    assert_eq!((model.served(), commit_model.served()), (0, 1));
}

#[test]
fn a_long_history_is_cut_with_a_marker() {
    let items: Vec<ResponseItem> = (0..50)
        .map(|n| ResponseItem::assistant_text(format!("{n} {}", "word ".repeat(300))))
        .collect();
    let text = format_messages_for_summary(&items);
    assert!(
        text.ends_with(TRUNCATED_MARKER),
        "{}",
        &text[text.len() - 80..]
    );
    assert!(agentctx_context::approx_token_count(&text) <= 4_100);
}

#[test]
fn truncation_never_splits_a_character() {
    assert_eq!(truncate_chars("héllo", 2), "hé...");
    assert_eq!(truncate_chars("hello", 10), "hello");
    assert_eq!(truncate_chars("hello world", 5), "hello...");
}
