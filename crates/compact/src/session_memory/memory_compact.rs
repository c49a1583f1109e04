//! Compaction from the cached session summary: no model call. The items the summary covers
//! (up to `last_summarized_id`) are replaced with the summary; the items after it are kept as
//! they are. Applied only when that saves enough tokens; otherwise the caller goes on to full
//! compaction. See docs/design/compaction.md, "Session memory".

use agentctx_context::TokenEstimator;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;

use super::SessionMemoryError;
use super::item_id::HistoryItemId;
use super::storage::SessionMemoryStore;
use crate::compacted_history::CarriedItems;
use crate::compacted_history::InitialContextInjection;
use crate::config::CompactConfig;
use crate::message_filter::is_valid_summary;
use crate::summary_prompt::summary_text;
use crate::summary_tail::keep_call_with_output;
use crate::summary_tail::summary_then_kept;

/// What a session-memory compaction did, for the host and its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionMemoryCompactOutcome {
    /// Estimated tokens of the history before.
    pub tokens_before: u64,
    /// Estimated tokens of the new history.
    pub tokens_after: u64,
    /// `tokens_before - tokens_after`: the saving, net of the summary.
    pub saved_tokens: u64,
    /// Estimated tokens of the summary message.
    pub summary_tokens: u64,
    /// Items of the old history replaced by the summary.
    pub removed_items: usize,
    /// Items of the old history kept after the summary.
    pub kept_items: usize,
}

impl SessionMemoryCompactOutcome {
    /// The loop event that reports this compaction (counts saturate at `i32::MAX`).
    pub fn loop_event(&self) -> LoopEvent {
        LoopEvent::SessionMemoryCompactApplied {
            saved_tokens: saturating_i32(self.saved_tokens),
            summary_tokens: saturating_i32(self.summary_tokens),
        }
    }
}

/// A history compacted from the session summary.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionMemoryCompacted {
    /// The new history.
    pub history: Vec<ResponseItem>,
    /// The index in `history` of the last item the summary covers: the summary message, or the
    /// user's latest request when it was put back after it.
    pub summary_covers_through: usize,
    /// What was done.
    pub outcome: SessionMemoryCompactOutcome,
}

impl SessionMemoryCompacted {
    /// Points the session's `last_summarized_id` into the new history (at
    /// [`SessionMemoryCompacted::summary_covers_through`]). Call it once the host has installed
    /// the new history: the next extraction then takes in only the kept items and what follows,
    /// instead of the whole compacted history, and the next compaction finds its place. Without
    /// metadata there is nothing to move.
    pub fn rebase_store(&self, store: &SessionMemoryStore) -> Result<(), SessionMemoryError> {
        let Some(mut metadata) = store.read_metadata()? else {
            return Ok(());
        };
        let Some(id) = HistoryItemId::of(&self.history, self.summary_covers_through) else {
            return Ok(());
        };
        metadata.last_summarized_id = id.to_string();
        store.write_metadata(&metadata)
    }
}

/// Why the session-memory tier did not apply; the caller falls through to full compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotApplicable {
    /// Compaction, extraction or this tier is switched off.
    Disabled,
    /// No extraction has written a summary yet.
    NoSummary,
    /// The summary holds nothing usable.
    InvalidSummary,
    /// There is a summary but no metadata.
    NoMetadata,
    /// The metadata (or its `last_summarized_id`) cannot be read.
    CorruptMetadata {
        /// Why.
        reason: String,
    },
    /// A session-memory file could not be read.
    Unreadable {
        /// Why.
        reason: String,
    },
    /// The summary is larger than the configured maximum.
    SummaryTooLarge {
        /// Its tokens.
        summary_tokens: u64,
        /// The maximum.
        max_tokens: u64,
    },
    /// The last summarised item is not (or not unambiguously) in the history: the summary is
    /// stale, e.g. the history was rolled back or compacted since the extraction.
    LastSummarizedNotFound {
        /// The id the metadata names.
        last_summarized_id: String,
    },
    /// The summary covers nothing that is still in the history.
    NothingToRemove,
    /// The saving is below the configured minimum.
    InsufficientSavings {
        /// What it would save.
        saved_tokens: u64,
        /// The minimum.
        min_tokens: u64,
    },
}

/// The result of [`try_session_memory_compact`].
#[derive(Debug, Clone, PartialEq)]
pub enum SessionMemoryCompaction {
    /// The history was compacted from the summary.
    Applied(SessionMemoryCompacted),
    /// This tier does not apply; use full compaction.
    NotApplicable(NotApplicable),
}

/// Compacts `history` from the session's cached summary when that saves at least
/// `session_memory.min_compact_savings_tokens` tokens.
///
/// The new history is: the summary message (the handoff prefix, then the summary), the latest
/// message the user typed when the summary covers it, the items after `last_summarized_id`
/// verbatim (moved back to a tool call whose output would otherwise lose it), then the
/// model-switch message and the ghost snapshots of the replaced part. `initial_context` is put
/// in as full compaction does (`injection`): before the last user message mid-turn, not at all
/// otherwise. Never fails: every reason not to apply is a [`NotApplicable`], logged.
pub fn try_session_memory_compact(
    store: &SessionMemoryStore,
    config: &CompactConfig,
    history: &[ResponseItem],
    initial_context: &[ResponseItem],
    injection: InitialContextInjection,
    estimator: &dyn TokenEstimator,
) -> SessionMemoryCompaction {
    match plan(
        store,
        config,
        history,
        initial_context,
        injection,
        estimator,
    ) {
        Ok(compacted) => SessionMemoryCompaction::Applied(compacted),
        Err(reason) => {
            tracing::info!(?reason, "session-memory compaction does not apply");
            SessionMemoryCompaction::NotApplicable(reason)
        }
    }
}

fn plan(
    store: &SessionMemoryStore,
    config: &CompactConfig,
    history: &[ResponseItem],
    initial_context: &[ResponseItem],
    injection: InitialContextInjection,
    estimator: &dyn TokenEstimator,
) -> Result<SessionMemoryCompacted, NotApplicable> {
    if !config.session_memory_compact_enabled() {
        return Err(NotApplicable::Disabled);
    }
    let summary = store
        .read_summary()
        .map_err(unreadable)?
        .ok_or(NotApplicable::NoSummary)?;
    if !is_valid_summary(&summary) {
        return Err(NotApplicable::InvalidSummary);
    }
    let metadata = store
        .read_metadata()
        .map_err(unreadable)?
        .ok_or(NotApplicable::NoMetadata)?;
    let summary_message = ResponseItem::user_text(summary_text(&summary));
    let summary_tokens = estimator.estimate_item(&summary_message);
    let max_tokens = config.session_memory.max_summary_tokens;
    if summary_tokens > max_tokens {
        return Err(NotApplicable::SummaryTooLarge {
            summary_tokens,
            max_tokens,
        });
    }
    let id: HistoryItemId =
        metadata
            .last_summarized_id
            .parse()
            .map_err(
                |error: super::item_id::InvalidItemId| NotApplicable::CorruptMetadata {
                    reason: error.to_string(),
                },
            )?;
    let last_summarized =
        id.locate(history)
            .ok_or_else(|| NotApplicable::LastSummarizedNotFound {
                last_summarized_id: metadata.last_summarized_id.clone(),
            })?;

    let mut working = history.to_vec();
    let carried = CarriedItems::take_from(&mut working);
    let cut = keep_call_with_output(
        &working,
        last_summarized.saturating_add(1).min(working.len()),
    );
    if cut == 0 {
        return Err(NotApplicable::NothingToRemove);
    }
    let (removed, kept) = working.split_at(cut);

    let (compacted, covered_through) = summary_then_kept(
        summary_message,
        removed,
        kept,
        initial_context,
        injection,
        carried,
    );

    let tokens_before = estimator.estimate_items(history);
    let tokens_after = estimator.estimate_items(&compacted);
    let saved_tokens = tokens_before.saturating_sub(tokens_after);
    let min_tokens = config.session_memory.min_compact_savings_tokens;
    if saved_tokens < min_tokens {
        return Err(NotApplicable::InsufficientSavings {
            saved_tokens,
            min_tokens,
        });
    }
    Ok(SessionMemoryCompacted {
        history: compacted,
        summary_covers_through: covered_through,
        outcome: SessionMemoryCompactOutcome {
            tokens_before,
            tokens_after,
            saved_tokens,
            summary_tokens,
            removed_items: removed.len(),
            kept_items: kept.len(),
        },
    })
}

fn unreadable(error: SessionMemoryError) -> NotApplicable {
    match error {
        SessionMemoryError::CorruptMetadata { .. } => NotApplicable::CorruptMetadata {
            reason: error.to_string(),
        },
        other => NotApplicable::Unreadable {
            reason: other.to_string(),
        },
    }
}

fn saturating_i32(value: u64) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

#[cfg(test)]
#[path = "memory_compact_tests.rs"]
mod tests;
