//! Where the session memory lives: `<home>/session-memory/<session-id>/summary.md` and
//! `metadata.json`, both replaced atomically. See docs/design/compaction.md, "Session memory".

use std::fmt::Write as _;
use std::io::ErrorKind;
use std::path::Path;
use std::path::PathBuf;

use chrono::DateTime;
use chrono::Utc;
use serde::Deserialize;
use serde::Serialize;

use super::SessionMemoryError;
use agentctx_atomic_file::write_atomically;

/// The folder under the agentctx home that holds one folder per session.
const SESSION_MEMORY_DIR: &str = "session-memory";
/// The summary file.
const SUMMARY_FILE: &str = "summary.md";
/// The metadata file.
const METADATA_FILE: &str = "metadata.json";
/// Session ids whose encoded form is longer are shortened to a prefix and a hash, so the
/// folder name stays far below the 255-byte limit of common file systems.
const MAX_FOLDER_NAME_BYTES: usize = 100;
/// The prefix of the encoded id kept when it is shortened.
const SHORTENED_PREFIX_BYTES: usize = 64;

/// What `metadata.json` records about the last extraction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionMemoryMetadata {
    /// The last history item the summary covers, as a [`super::HistoryItemId`] string.
    pub last_summarized_id: String,
    /// When the last extraction finished.
    pub last_extraction: DateTime<Utc>,
    /// Estimated tokens of `summary.md`.
    pub summary_token_count: u64,
    /// History items the summary has taken in, over every extraction.
    pub messages_summarized: u64,
}

/// The session-memory folder of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMemoryStore {
    dir: PathBuf,
}

impl SessionMemoryStore {
    /// The store of `session_id` under the agentctx home `home`. The id is encoded so that it
    /// names exactly one folder directly under `<home>/session-memory/`: bytes other than ASCII
    /// letters, digits, `-`, `_` and a non-leading `.` are percent-encoded, and an encoded name
    /// over 100 bytes is shortened with a hash of the whole id.
    pub fn new(home: &Path, session_id: &str) -> Result<Self, SessionMemoryError> {
        if session_id.is_empty() {
            return Err(SessionMemoryError::EmptySessionId);
        }
        Ok(Self {
            dir: home
                .join(SESSION_MEMORY_DIR)
                .join(safe_folder_name(session_id)),
        })
    }

    /// The session's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `summary.md`.
    pub fn summary_path(&self) -> PathBuf {
        self.dir.join(SUMMARY_FILE)
    }

    /// `metadata.json`.
    pub fn metadata_path(&self) -> PathBuf {
        self.dir.join(METADATA_FILE)
    }

    /// The summary, `None` when there is none yet.
    pub fn read_summary(&self) -> Result<Option<String>, SessionMemoryError> {
        let path = self.summary_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
            Err(source) => Err(SessionMemoryError::Io { path, source }),
        }
    }

    /// The metadata, `None` when there is none yet.
    pub fn read_metadata(&self) -> Result<Option<SessionMemoryMetadata>, SessionMemoryError> {
        let path = self.metadata_path();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(SessionMemoryError::Io { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|source| SessionMemoryError::CorruptMetadata { path, source })
    }

    /// Replaces the summary, then the metadata, each atomically. The order matters: a crash
    /// between the two leaves a newer summary with the older `last_summarized_id`, so
    /// compaction keeps a few items the summary already covers, and never drops one it does
    /// not.
    pub fn write(
        &self,
        summary: &str,
        metadata: &SessionMemoryMetadata,
    ) -> Result<(), SessionMemoryError> {
        let summary_path = self.summary_path();
        write_atomically(&summary_path, summary.as_bytes()).map_err(|source| {
            SessionMemoryError::Io {
                path: summary_path,
                source,
            }
        })?;
        self.write_metadata(metadata)
    }

    /// Replaces the metadata atomically, leaving the summary as it is.
    pub fn write_metadata(
        &self,
        metadata: &SessionMemoryMetadata,
    ) -> Result<(), SessionMemoryError> {
        let metadata_path = self.metadata_path();
        let mut json = serde_json::to_string_pretty(metadata).map_err(|source| {
            SessionMemoryError::CorruptMetadata {
                path: metadata_path.clone(),
                source,
            }
        })?;
        json.push('\n');
        write_atomically(&metadata_path, json.as_bytes()).map_err(|source| SessionMemoryError::Io {
            path: metadata_path,
            source,
        })
    }
}

/// A folder name for `session_id` that cannot escape `session-memory/` and cannot collide with
/// another id's: ASCII letters, digits, `-` and `_` stay; `.` stays except in first position
/// (so neither `.` nor `..` nor a hidden name can result); every other byte becomes `%HH`
/// (and `%` itself is encoded, so the mapping is one-to-one). An encoded name over 100 bytes
/// is cut to its first 64 bytes plus `-` and a 16-digit hash of the whole id.
pub(crate) fn safe_folder_name(session_id: &str) -> String {
    let mut name = String::with_capacity(session_id.len());
    for (position, byte) in session_id.bytes().enumerate() {
        let keep = byte.is_ascii_alphanumeric()
            || byte == b'-'
            || byte == b'_'
            || (byte == b'.' && position > 0);
        if keep {
            name.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(name, "%{byte:02X}");
        }
    }
    if name.len() <= MAX_FOLDER_NAME_BYTES {
        return name;
    }
    // The encoded name is ASCII, so any byte index is a char boundary.
    let prefix = name.get(..SHORTENED_PREFIX_BYTES).unwrap_or_default();
    format!("{prefix}-{:016x}", fnv1a(session_id.as_bytes()))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash: u64, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
#[path = "storage_tests.rs"]
mod tests;
