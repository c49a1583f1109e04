//! The session-memory tier: a summary of the session kept up to date in the background, so
//! that compaction can replace the older history with it without calling a model.
//!
//! - [`ExtractionTrigger`]: the state a host keeps per session, deciding when a background
//!   extraction runs (enough new tokens, enough tool calls or a quiet point, never while
//!   compacting).
//! - [`run_extraction`]: one extraction through a [`agentctx_model::ModelClient`], which
//!   rewrites `<home>/session-memory/<session-id>/summary.md` and `metadata.json`.
//! - [`try_session_memory_compact`]: at compaction time, the cached summary plus the items the
//!   summary does not cover yet, applied only when that saves enough tokens.
//!
//! See docs/design/compaction.md, "Session memory".

mod extraction;
mod item_id;
mod memory_compact;
mod storage;
mod trigger;

use std::path::PathBuf;

pub use extraction::EXTRACTION_INSTRUCTIONS;
pub use extraction::ExtractionOutcome;
pub use extraction::extraction_prompt;
pub use extraction::run_extraction;
pub use item_id::HistoryItemId;
pub use item_id::InvalidItemId;
pub use memory_compact::NotApplicable;
pub use memory_compact::SessionMemoryCompactOutcome;
pub use memory_compact::SessionMemoryCompacted;
pub use memory_compact::SessionMemoryCompaction;
pub use memory_compact::try_session_memory_compact;
pub use storage::SessionMemoryMetadata;
pub use storage::SessionMemoryStore;
pub use trigger::ExtractionTicket;
pub use trigger::ExtractionTrigger;
pub use trigger::TriggerObservation;

/// What can go wrong with the session memory. Compaction never returns these: it reports
/// [`NotApplicable`] and the caller falls through to full compaction.
#[derive(Debug, thiserror::Error)]
pub enum SessionMemoryError {
    /// The session id cannot name a folder (it is empty).
    #[error("the session id is empty")]
    EmptySessionId,
    /// The model request of an extraction failed; the summary was left as it was.
    #[error("session-memory extraction failed: {0}")]
    Model(#[from] agentctx_model::ModelError),
    /// The model answered with something that is not a summary; the summary was left as it was.
    #[error("session-memory extraction returned no usable summary: {reply:?}")]
    InvalidSummary {
        /// The start of the reply, for the log.
        reply: String,
    },
    /// A session-memory file could not be read or written.
    #[error("session-memory file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// `metadata.json` is not valid metadata.
    #[error("session-memory metadata {path} is corrupt: {source}")]
    CorruptMetadata {
        /// The file.
        path: PathBuf,
        /// The parse failure.
        source: serde_json::Error,
    },
}
