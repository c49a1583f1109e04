//! Compaction on demand, tier by tier: what `agentctx compact` runs on a recorded session
//! ([`crate::ContextEngine::compact_offline`]), and the pieces it is made of
//! ([`crate::ContextEngine::micro_compact_now`], [`crate::ContextEngine::compact_tiers`]). The
//! tiers, their order and the restoration are the live session's; only the choice of tier is
//! the caller's. See docs/design/engine.md, "Recorded reads", and docs/design/compaction.md,
//! "The compact command".

use std::path::PathBuf;

use agentctx_compact::MicroCompactSkip;
use agentctx_compact::NotApplicable;
use agentctx_compact::OfflineReason;
use agentctx_compact::SessionMemoryStore;

use crate::context_engine::Compaction;

/// Which tiers a compaction may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompactionTiers {
    /// The session-memory tier when it applies, else full compaction: what a live session runs.
    #[default]
    SessionMemoryThenFull,
    /// The session-memory tier alone: nothing is compacted when it does not apply.
    SessionMemoryOnly,
    /// Full compaction alone.
    FullOnly,
}

/// The tier `agentctx compact` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfflineTier {
    /// The cheapest that applies: micro-compaction, then the session-memory tier, then full.
    Auto,
    /// Micro-compaction alone.
    Micro,
    /// The session-memory tier alone.
    SessionMemory,
    /// Full compaction alone.
    Full,
}

/// A tier that was tried and did not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierNotApplied {
    /// The tier ([`OfflineTier::Micro`], [`OfflineTier::SessionMemory`]; full compaction always
    /// applies).
    pub tier: OfflineTier,
    /// Why, in words.
    pub reason: String,
}

/// A micro-compaction run on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MicroCompactNow {
    /// Old tool results were cleared; the engine's history is the cleared one.
    Applied(MicroCompacted),
    /// The history was left alone, and why.
    Skipped(MicroCompactSkip),
}

/// What an on-demand micro-compaction cleared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MicroCompacted {
    /// Tool results cleared.
    pub cleared: usize,
    /// Results written under the home, in history order.
    pub persisted_paths: Vec<PathBuf>,
    /// Our estimate of the history before.
    pub tokens_before: u64,
    /// Our estimate of the history after.
    pub tokens_after: u64,
}

/// A compaction run with a choice of tiers ([`crate::ContextEngine::compact_tiers`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TieredCompaction {
    /// The compaction the engine installed.
    pub compaction: Compaction,
    /// Why the session-memory tier did not apply, when it was tried and did not.
    pub session_memory_skipped: Option<String>,
    /// Why the offline summariser wrote the summary, when it did.
    pub offline_reason: Option<OfflineReason>,
}

impl TieredCompaction {
    /// The summary without the frame the model reads it in (the summary prefix and its
    /// newline, the note on `recall` after it): what the summariser wrote.
    pub fn summary_body(&self) -> &str {
        agentctx_compact::summary_body(&self.compaction.summary)
    }
}

/// What [`crate::ContextEngine::compact_offline`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct OfflineCompaction {
    /// Our estimate of the history before.
    pub tokens_before: u64,
    /// Tiers tried that did not apply, in order.
    pub not_applied: Vec<TierNotApplied>,
    /// The tier that changed the history, if one did.
    pub result: OfflineResult,
}

/// The tier that changed the history.
#[derive(Debug, Clone, PartialEq)]
pub enum OfflineResult {
    /// No tier applied: the history is unchanged.
    Unchanged,
    /// Micro-compaction cleared old tool results.
    Micro(MicroCompacted),
    /// The session-memory tier or full compaction replaced the history (boxed: it holds the
    /// whole new history and its figures).
    Compacted(Box<TieredCompaction>),
}

/// Why micro-compaction did not apply, in words.
pub(crate) fn micro_skip_reason(skip: MicroCompactSkip) -> String {
    match skip {
        MicroCompactSkip::Disabled => "micro-compaction is switched off".to_string(),
        MicroCompactSkip::NothingToClear => "no tool result may be cleared".to_string(),
        MicroCompactSkip::BelowMinimumSavings { would_save } => {
            format!("clearing would save only {would_save} tokens")
        }
    }
}

/// Why the session-memory tier did not apply, in words (never the variant's debug form).
pub(crate) fn session_memory_reason(reason: &NotApplicable, store: &SessionMemoryStore) -> String {
    match reason {
        NotApplicable::Disabled => "session-memory compaction is switched off".to_string(),
        NotApplicable::NoSummary => {
            format!("no session-memory summary under {}", store.dir().display())
        }
        NotApplicable::InvalidSummary => {
            "the session-memory summary holds nothing usable".to_string()
        }
        NotApplicable::NoMetadata => "the session-memory summary has no metadata".to_string(),
        NotApplicable::CorruptMetadata { reason } => {
            format!("the session-memory metadata cannot be read: {reason}")
        }
        NotApplicable::Unreadable { reason } => {
            format!("a session-memory file cannot be read: {reason}")
        }
        NotApplicable::SummaryTooLarge {
            summary_tokens,
            max_tokens,
        } => format!("the summary has {summary_tokens} tokens, over the maximum of {max_tokens}"),
        NotApplicable::LastSummarizedNotFound { last_summarized_id } => format!(
            "the last summarised item {last_summarized_id} is not in the history (the summary is stale)"
        ),
        NotApplicable::NothingToRemove => {
            "the summary covers nothing still in the history".to_string()
        }
        NotApplicable::InsufficientSavings {
            saved_tokens,
            min_tokens,
        } => format!("it would save only {saved_tokens} tokens (minimum {min_tokens})"),
    }
}

#[cfg(test)]
#[path = "offline_compaction_tests.rs"]
mod tests;
