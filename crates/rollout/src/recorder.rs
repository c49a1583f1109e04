//! The session recorder: appends rollout lines to `sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`.
//!
//! The recorder is synchronous, by choice. codex-rs runs a tokio task behind a channel so that
//! async callers never block on disk; here every append is one `write_all` of complete lines to a
//! file opened in append mode, under an exclusive `File::lock`, so lines from concurrent writers
//! (a resumed session in a second process, a sub-agent) never interleave or tear. Such an append
//! is a few microseconds of buffered kernel I/O; async callers that want it off their executor
//! wrap calls in `spawn_blocking`. Keeping the crate free of a runtime keeps it on floor 1 with no
//! async dependency, and makes ordering trivial: a line is in the file when `record_*` returns.
//!
//! Lines reach the operating system at once (readers see them immediately); [`RolloutRecorder::flush`],
//! called once per turn, makes them durable with `fsync`.

use std::fs::File;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::SessionMetaLine;
use chrono::DateTime;
use chrono::Local;
use chrono::Utc;

use crate::error::RolloutError;
use crate::session_path::rollout_path;

/// Format of line timestamps: UTC with milliseconds, as codex-rs writes them.
const LINE_TIMESTAMP_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

/// Appends the lines of one session to its rollout file.
#[derive(Debug)]
pub struct RolloutRecorder {
    path: PathBuf,
    file: File,
    session_id: String,
    buffer: Vec<u8>,
}

impl RolloutRecorder {
    /// Creates a new rollout under `root/sessions/…` stamped with the current local time and
    /// writes `meta` as its first line. An empty `meta.id` gets a fresh UUIDv7; a missing
    /// `meta.timestamp` gets the current time.
    pub fn create(root: &Path, meta: SessionMetaLine) -> Result<Self, RolloutError> {
        Self::create_at(root, meta, Local::now())
    }

    /// [`RolloutRecorder::create`] with an explicit start time (used for the file name).
    pub fn create_at(
        root: &Path,
        mut meta: SessionMetaLine,
        started: DateTime<Local>,
    ) -> Result<Self, RolloutError> {
        if meta.id.is_empty() {
            meta.id = uuid::Uuid::now_v7().to_string();
        }
        if !is_file_name_safe(&meta.id) {
            return Err(RolloutError::InvalidSessionId { id: meta.id });
        }
        let started_utc = started.with_timezone(&Utc);
        if meta.timestamp.is_none() {
            meta.timestamp = Some(started_utc.format(LINE_TIMESTAMP_FORMAT).to_string());
        }
        let path = rollout_path(root, started, &meta.id);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| RolloutError::CreateDir {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|source| RolloutError::Open {
                path: path.clone(),
                source,
            })?;
        let mut recorder = Self {
            path,
            file,
            session_id: meta.id.clone(),
            buffer: Vec::new(),
        };
        let line = RolloutLine::new(
            started_utc.format(LINE_TIMESTAMP_FORMAT).to_string(),
            RolloutItem::SessionMeta(meta),
        );
        recorder.append(std::slice::from_ref(&line))?;
        Ok(recorder)
    }

    /// Reopens an existing rollout to append to it (resume). The session id is `session_id`,
    /// normally the one of the file's first line.
    pub fn resume(path: &Path, session_id: impl Into<String>) -> Result<Self, RolloutError> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| RolloutError::Open {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            session_id: session_id.into(),
            buffer: Vec::new(),
        })
    }

    /// The rollout file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Appends items stamped with the current time, as one locked write.
    pub fn record_items(&mut self, items: &[RolloutItem]) -> Result<(), RolloutError> {
        let timestamp = Utc::now().format(LINE_TIMESTAMP_FORMAT).to_string();
        let lines: Vec<RolloutLine> = items
            .iter()
            .map(|item| RolloutLine::new(timestamp.clone(), item.clone()))
            .collect();
        self.append(&lines)
    }

    /// Appends conversation items stamped with the current time, as one locked write.
    pub fn record_response_items(&mut self, items: &[ResponseItem]) -> Result<(), RolloutError> {
        let items: Vec<RolloutItem> = items
            .iter()
            .cloned()
            .map(RolloutItem::ResponseItem)
            .collect();
        self.record_items(&items)
    }

    /// Appends complete lines (with their own timestamps) as one write under an exclusive lock.
    pub fn append(&mut self, lines: &[RolloutLine]) -> Result<(), RolloutError> {
        if lines.is_empty() {
            return Ok(());
        }
        self.buffer.clear();
        for line in lines {
            serde_json::to_writer(&mut self.buffer, line).map_err(|source| {
                RolloutError::Serialize {
                    path: self.path.clone(),
                    source,
                }
            })?;
            self.buffer.push(b'\n');
        }
        self.file.lock().map_err(|source| RolloutError::Lock {
            path: self.path.clone(),
            source,
        })?;
        let written = self.file.write_all(&self.buffer);
        let unlocked = self.file.unlock();
        written.map_err(|source| RolloutError::Write {
            path: self.path.clone(),
            source,
        })?;
        unlocked.map_err(|source| RolloutError::Lock {
            path: self.path.clone(),
            source,
        })
    }

    /// Makes every line written so far durable (`fsync`); call it at the end of each turn.
    pub fn flush(&mut self) -> Result<(), RolloutError> {
        self.file.sync_data().map_err(|source| RolloutError::Write {
            path: self.path.clone(),
            source,
        })
    }
}

/// Whether `id` can be part of a rollout file name without naming another folder: ASCII
/// letters, digits, `-`, `_`, and `.` anywhere but first (so never `..`). UUIDs, the ids
/// agentctx and codex generate, always pass.
fn is_file_name_safe(id: &str) -> bool {
    !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
