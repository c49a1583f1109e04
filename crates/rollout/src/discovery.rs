//! Discovery of session files under a directory, newest first.
//!
//! Works on a Codex sessions tree (`sessions/YYYY/MM/DD/rollout-….jsonl`) as on any directory of
//! `.jsonl` files, at any depth (`~/.claude/projects/*/*.jsonl` and their `subagents/` folders).
//! A file is dated by the local time in its `rollout-…` name, else by its modification time.

use std::cmp::Reverse;
use std::path::Path;
use std::path::PathBuf;
use std::time::SystemTime;

use chrono::Local;
use chrono::TimeZone;

use crate::error::RolloutError;
use crate::session_path::parse_rollout_file_time;

/// A session file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// The file.
    pub path: PathBuf,
    /// When the session started (from the file name) or was last written (modification time);
    /// `None` when neither is known.
    pub time: Option<SystemTime>,
}

/// Every `.jsonl` file under `root`, newest first (ties broken by path). Symbolic links are not
/// followed. `root` may itself be a file, which is returned alone.
pub fn discover_sessions(root: &Path) -> Result<Vec<SessionFile>, RolloutError> {
    let mut sessions = Vec::new();
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        let entry = entry.map_err(|source| RolloutError::Walk {
            path: root.to_path_buf(),
            source,
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.path();
        if path.extension().and_then(|ext| ext.to_str()) != Some("jsonl") {
            continue;
        }
        let from_name = entry
            .file_name()
            .to_str()
            .and_then(parse_rollout_file_time)
            .and_then(|naive| Local.from_local_datetime(&naive).earliest())
            .map(SystemTime::from);
        let time = from_name.or_else(|| entry.metadata().ok()?.modified().ok());
        sessions.push(SessionFile {
            path: path.to_path_buf(),
            time,
        });
    }
    // Newest first. File-name times have a one-second resolution; within a second the id
    // decides, newest first too, since the recorder's ids are UUIDv7s that sort by creation time.
    sessions.sort_by(|a, b| {
        Reverse(a.time)
            .cmp(&Reverse(b.time))
            .then_with(|| b.path.cmp(&a.path))
    });
    Ok(sessions)
}
