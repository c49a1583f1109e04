use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::PromptHistory;
use crate::replay_command::turn_boundary::HistoryItemKind;

#[test]
fn a_replacement_history_replaces_everything_but_the_instructions() {
    let estimator = ApproxTokenEstimator;
    let mut history = PromptHistory::default();
    history.set_instructions_tokens(1_000);
    history.record(50_000, HistoryItemKind::Other);
    let replacement = vec![
        ResponseItem::user_text("fix the bug"),
        ResponseItem::user_text("summary of the work"),
    ];
    let expected = 1_000 + estimator.estimate_items(&replacement);
    history.compact(
        &CompactedItem {
            message: "summary of the work".to_string(),
            replacement_history: Some(replacement),
            ..CompactedItem::default()
        },
        &estimator,
    );
    assert_eq!(history.prompt_tokens(), expected);
}

#[test]
fn a_legacy_compaction_keeps_the_newest_user_messages_within_the_budget() {
    let estimator = ApproxTokenEstimator;
    let mut history = PromptHistory::default();
    // Three user messages of 12,000 tokens and lots of tool traffic.
    for _ in 0..3 {
        history.record(12_000, HistoryItemKind::UserTurn);
        history.record(30_000, HistoryItemKind::Other);
    }
    let compacted = CompactedItem {
        message: "summary".to_string(),
        ..CompactedItem::default()
    };
    history.compact(&compacted, &estimator);
    let summary = estimator.estimate_item(&ResponseItem::user_text("summary"));
    // The newest message whole, 8,000 tokens of the one before, then the summary.
    assert_eq!(history.prompt_tokens(), 20_000 + summary);
    // A second compaction keeps what the first kept.
    history.compact(&compacted, &estimator);
    assert_eq!(history.prompt_tokens(), 20_000 + summary);
}
