//! Partial compaction, the middle stage of staged compaction: the oldest part of the history
//! is summarised (by the model, or by the offline summariser without one) and the recent part
//! stays verbatim after the summary, so the turns the model is working in lose nothing. It
//! reads only the part it replaces, which is the prefix the provider's cache already holds.
//! See docs/design/cost-model.md, "Staged compaction".

use agentctx_context::TokenEstimator;
use agentctx_model::ModelClient;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use serde::Serialize;

use crate::compacted_history::CarriedItems;
use crate::compacted_history::InitialContextInjection;
use crate::config::FullCompactConfig;
use crate::full_compact::HistoryLimit;
use crate::full_compact::OfflineReason;
use crate::full_compact::SummaryGuard;
use crate::full_compact::SummaryInput;
use crate::full_compact::SummaryPath;
use crate::full_compact::SummaryRequest;
use crate::full_compact::offline_summary_budget;
use crate::full_compact::summarize_with_model;
use crate::message_filter::filter_for_summarization;
use crate::offline_summary::summarize_offline;
use crate::summary_prompt::SUMMARIZATION_PROMPT;
use crate::summary_prompt::summary_text;
use crate::summary_tail::keep_call_with_output;
use crate::summary_tail::summary_then_kept;

/// What to compact and how.
#[derive(Debug, Clone)]
pub struct PartialCompactRequest<'a> {
    /// The history.
    pub history: &'a [ResponseItem],
    /// The fresh initial context, put back as full compaction does (`injection`).
    pub initial_context: Vec<ResponseItem>,
    /// Mid-turn or pre-turn.
    pub injection: InitialContextInjection,
    /// The base instructions of the summary request (the session's system prompt).
    pub base_instructions: &'a str,
    /// The most tokens of the end of the history kept verbatim.
    pub keep_recent_tokens: u64,
    /// Tokens of the window kept free for the summary itself.
    pub reserved_output_tokens: u64,
    /// The session id, for the provider's prompt cache.
    pub session_id: Option<String>,
    /// The reasoning parameters of the turn being compacted.
    pub reasoning: Option<agentctx_model::ReasoningOptions>,
}

/// Why partial compaction does not apply (the caller goes on to full compaction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum PartialNotApplicable {
    /// No place to cut leaves both a part to summarise and a recent part within the budget:
    /// the newest turn alone is over `keep_recent_tokens`, or the history is that small.
    NoCut,
    /// The new history would not be smaller.
    NoSaving,
}

/// What a partial compaction did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartialCompactOutcome {
    /// The history to continue with.
    pub history: Vec<ResponseItem>,
    /// The summary of the replaced part, without the prefix.
    pub summary: String,
    /// Who wrote it.
    pub path: SummaryPath,
    /// Why the offline summariser was used, when it was.
    pub offline_reason: Option<OfflineReason>,
    /// What the cost guard did to the summary request, when it acted.
    pub guard: Option<SummaryGuard>,
    /// Estimated tokens of the history before.
    pub tokens_before: u64,
    /// Estimated tokens of the new history.
    pub tokens_after: u64,
    /// Estimated tokens of the part that was summarised (what the summary request read).
    pub summarized_tokens: u64,
    /// Estimated tokens of the summary message.
    pub summary_tokens: u64,
    /// Items of the old history replaced by the summary.
    pub removed_items: usize,
    /// Items of the old history kept verbatim after it.
    pub kept_items: usize,
}

impl PartialCompactOutcome {
    /// The event that reports it: a compaction that removed `removed_items` messages.
    pub fn completed_event(&self) -> LoopEvent {
        LoopEvent::CompactionCompleted {
            removed_messages: i32::try_from(self.removed_items).unwrap_or(i32::MAX),
            summary_tokens: i32::try_from(self.summary_tokens).unwrap_or(i32::MAX),
        }
    }
}

/// Where to cut `items` (sizes in `sizes`) so that the part after the cut holds at most
/// `keep_tokens`: the earliest such index at which a new exchange starts (a message or a
/// reasoning item not right after another reasoning item, so a response's reasoning stays
/// with what it led to), moved back so that no kept output loses its call. `None` when the
/// cut would summarise nothing or keep nothing.
pub(crate) fn recent_cut(items: &[ResponseItem], sizes: &[u64], keep_tokens: u64) -> Option<usize> {
    let mut kept = 0u64;
    let mut earliest = items.len();
    for (index, size) in sizes.iter().enumerate().rev() {
        kept = kept.saturating_add(*size);
        if kept > keep_tokens {
            break;
        }
        earliest = index;
    }
    let starts_exchange = |index: usize| {
        let Some(item) = items.get(index) else {
            return false;
        };
        let previous_is_reasoning =
            index > 0 && matches!(items.get(index - 1), Some(ResponseItem::Reasoning { .. }));
        matches!(
            item,
            ResponseItem::Message { .. } | ResponseItem::Reasoning { .. }
        ) && !previous_is_reasoning
    };
    let cut = (earliest..items.len()).find(|&index| starts_exchange(index))?;
    let cut = keep_call_with_output(items, cut);
    (cut > 0 && cut < items.len()).then_some(cut)
}

/// Summarises the oldest part of `request.history` and keeps its end verbatim (at most
/// `request.keep_recent_tokens`, cut where an exchange starts). The summary is the model's,
/// through the summary prompt of full compaction and under the same cost guard, or the
/// offline summariser's without a model or when the model fails. The new history is: the
/// summary message, the user's latest request when only the summarised part held it, the kept
/// items, the initial context put back mid-turn, the model-switch message and the ghost
/// snapshots of the summarised part. Never fails: [`PartialNotApplicable`] says why it did not
/// apply, and the caller compacts in full instead.
pub async fn partial_compact(
    model: Option<&dyn ModelClient>,
    request: PartialCompactRequest<'_>,
    config: &FullCompactConfig,
    estimator: &dyn TokenEstimator,
    limit: HistoryLimit,
) -> Result<PartialCompactOutcome, PartialNotApplicable> {
    let tokens_before = estimator.estimate_items(request.history);
    let mut working = request.history.to_vec();
    let carried = CarriedItems::take_from(&mut working);
    let sizes: Vec<u64> = working
        .iter()
        .map(|item| estimator.estimate_item(item))
        .collect();
    let cut = recent_cut(&working, &sizes, request.keep_recent_tokens)
        .ok_or(PartialNotApplicable::NoCut)?;
    let (removed, kept) = working.split_at(cut);
    let summarized_tokens = sizes.iter().take(cut).sum();
    let mut input = SummaryInput::new(filter_for_summarization(removed), estimator);
    let mut attempts = 0u32;
    let summary = match model {
        None => Err(OfflineReason::NoModel),
        Some(model) => {
            let summary_request = SummaryRequest {
                base_instructions: request.base_instructions,
                prompt_text: SUMMARIZATION_PROMPT,
                reserved_output_tokens: request.reserved_output_tokens,
                session_id: request.session_id.clone(),
                reasoning: request.reasoning,
            };
            summarize_with_model(
                model,
                &summary_request,
                config,
                estimator,
                &mut input,
                &mut attempts,
            )
            .await
        }
    };
    let (summary, path, offline_reason) = match summary {
        Ok(summary) => (summary, SummaryPath::Model, None),
        Err(reason) => {
            if reason != OfflineReason::NoModel {
                tracing::warn!(?reason, "partial compaction used the offline summariser");
            }
            let budget = usize::try_from(offline_summary_budget(limit.effective_window))
                .unwrap_or(usize::MAX);
            (
                summarize_offline(removed, budget),
                SummaryPath::Offline,
                Some(reason),
            )
        }
    };
    let summary_message = ResponseItem::user_text(summary_text(&summary));
    let summary_tokens = estimator.estimate_item(&summary_message);
    let (history, _) = summary_then_kept(
        summary_message,
        removed,
        kept,
        &request.initial_context,
        request.injection,
        carried,
    );
    let tokens_after = estimator.estimate_items(&history);
    if tokens_after >= tokens_before {
        return Err(PartialNotApplicable::NoSaving);
    }
    Ok(PartialCompactOutcome {
        history,
        summary,
        path,
        offline_reason,
        guard: input.guard,
        tokens_before,
        tokens_after,
        summarized_tokens,
        summary_tokens,
        removed_items: removed.len(),
        kept_items: kept.len(),
    })
}

#[cfg(test)]
#[path = "partial_compact_tests.rs"]
mod tests;
