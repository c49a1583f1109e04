//! Session files: the recorder that writes them, the tolerant reader, discovery, and the
//! importer of Claude Code transcripts.
//!
//! `agentctx-rollout` is on floor 1 and depends only on `agentctx-protocol`. Whatever the source
//! (a Codex rollout in the current `{timestamp, type, payload}` envelope, an older Codex rollout of
//! bare lines, or a Claude Code transcript), the reader yields the same [`RolloutLine`]s, so
//! `agentctx replay` and the memory pipeline work on either agent's history. Corrupt lines are
//! skipped and reported with their line number; reading never panics on input. Reading is lazy
//! underneath ([`RolloutReader::lazy`]): a [`LazyRecord`] types its payload only when asked, and
//! a Claude Code transcript read from a file takes two passes so its memory stays bounded (its
//! start read once for both, with a helper thread). The formats and the import rules are
//! described in docs/design/rollout-formats.md.
//!
//! ```
//! use agentctx_protocol::ResponseItem;
//! use agentctx_protocol::SessionMetaLine;
//! use agentctx_rollout::RolloutFormat;
//! use agentctx_rollout::RolloutRecorder;
//! use agentctx_rollout::discover_sessions;
//! use agentctx_rollout::read_rollout;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let home = tempfile::tempdir()?;
//! let mut recorder = RolloutRecorder::create(home.path(), SessionMetaLine::default())?;
//! recorder.record_response_items(&[ResponseItem::user_text("fix the failing test")])?;
//! recorder.flush()?;
//!
//! let sessions = discover_sessions(home.path())?;
//! assert_eq!(sessions.len(), 1);
//! let file = read_rollout(&sessions[0].path)?;
//! assert_eq!(file.format, RolloutFormat::Codex);
//! assert_eq!(file.items().count(), 1);
//! assert!(file.skipped.is_empty());
//!
//! // Lazily: look at kinds and payload types, type only what is needed.
//! let mut reader = agentctx_rollout::RolloutReader::open(&sessions[0].path)?;
//! let mut messages = Vec::new();
//! for event in reader.lazy() {
//!     if let agentctx_rollout::LazyReadEvent::Record(record) = event? {
//!         if record.payload_type() == Some("message") {
//!             messages.push(record.into_record());
//!         }
//!     }
//! }
//! assert_eq!(messages.len(), 1);
//! # Ok(())
//! # }
//! ```
//!
//! [`RolloutLine`]: agentctx_protocol::RolloutLine

mod claude_import;
mod codex_decoder;
mod discovery;
mod error;
mod format;
mod reader;
mod record;
mod recorder;
mod request_segments;
mod session_path;

pub use claude_import::CLAUDE_CODE_ORIGINATOR;
pub use discovery::SessionFile;
pub use discovery::discover_sessions;
pub use error::RolloutError;
pub use format::RolloutFormat;
pub use reader::LazyEvents;
pub use reader::RolloutFile;
pub use reader::RolloutReader;
pub use reader::read_rollout;
pub use record::LazyReadEvent;
pub use record::LazyRecord;
pub use record::ReadEvent;
pub use record::RecordFlags;
pub use record::RolloutRecord;
pub use record::SkippedLine;
pub use recorder::RolloutRecorder;
pub use request_segments::RequestSegmenter;
pub use request_segments::RequestStart;
pub use request_segments::is_model_generated;
