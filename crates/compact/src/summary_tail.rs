//! The layout of a compaction that keeps the end of the history verbatim: a summary of the
//! items before a cut, then the items after it as they are. The session-memory tier (its
//! summary written in the background) and the partial tier of staged compaction (its summary
//! written now, of the oldest part only) share it. See docs/design/compaction.md, "Session
//! memory", and docs/design/cost-model.md, "Staged compaction".

use agentctx_protocol::ResponseItem;

use crate::compacted_history::CarriedItems;
use crate::compacted_history::InitialContextInjection;
use crate::message_filter::collect_user_message_texts;
use crate::summary_prompt::is_summary_message;

/// Moves `cut` back so that no kept tool output loses its call: a call made before the cut
/// whose output came after it is kept with its output. Repeated until stable, since moving the
/// cut can bring more outputs into the kept part.
pub(crate) fn keep_call_with_output(items: &[ResponseItem], mut cut: usize) -> usize {
    loop {
        let (removed, kept) = items.split_at(cut.min(items.len()));
        let earliest_call = kept
            .iter()
            .filter(|item| item.is_tool_output())
            .filter_map(ResponseItem::call_id)
            .filter_map(|call_id| {
                removed
                    .iter()
                    .position(|item| item.is_tool_call() && item.call_id() == Some(call_id))
            })
            .min();
        match earliest_call {
            Some(call) if call < cut => cut = call,
            _ => return cut.min(items.len()),
        }
    }
}

/// A message the user typed (not harness text, not an earlier summary).
pub(crate) fn is_real_user_message(item: &ResponseItem) -> bool {
    item.role() == Some("user")
        && !is_summary_message(item)
        && !collect_user_message_texts(std::slice::from_ref(item)).is_empty()
}

/// The new history: `summary_message`, the latest message the user typed when it is in
/// `removed` and `kept` holds none (the model must still see what it was asked), `kept`
/// verbatim, the initial context spliced in before the last user message with
/// [`InitialContextInjection::BeforeLastUserMessage`], then the model-switch message and the
/// ghost snapshots of the removed part. Returns it with the index of the last item the summary
/// covers (the summary message, or the user's request put back after it).
pub(crate) fn summary_then_kept(
    summary_message: ResponseItem,
    removed: &[ResponseItem],
    kept: &[ResponseItem],
    initial_context: &[ResponseItem],
    injection: InitialContextInjection,
    carried: CarriedItems,
) -> (Vec<ResponseItem>, usize) {
    let mut compacted = Vec::with_capacity(kept.len() + initial_context.len() + 3);
    compacted.push(summary_message);
    let mut covered_through = 0;
    if !kept.iter().any(is_real_user_message)
        && let Some(latest_request) = removed.iter().rev().find(|item| is_real_user_message(item))
    {
        compacted.push(latest_request.clone());
        covered_through = 1;
    }
    compacted.extend(kept.iter().cloned());
    if injection == InitialContextInjection::BeforeLastUserMessage {
        let at = compacted
            .iter()
            .rposition(is_real_user_message)
            .unwrap_or(0);
        compacted.splice(at..at, initial_context.iter().cloned());
        if at <= covered_through {
            covered_through += initial_context.len();
        }
    }
    compacted.extend(carried.model_switch);
    // Ghost snapshots of the kept part are already there; those of the replaced part follow.
    compacted.extend(
        removed
            .iter()
            .filter(|item| matches!(item, ResponseItem::GhostSnapshot { .. }))
            .cloned(),
    );
    (compacted, covered_through)
}
