//! Names of session files: `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`.
//!
//! As in codex-rs, the directory date and the time in the file name are local time, with `-`
//! instead of `:`.

use std::path::Path;
use std::path::PathBuf;

use chrono::DateTime;
use chrono::Datelike;
use chrono::Local;
use chrono::NaiveDateTime;

/// Name of the directory that holds the dated session folders.
pub(crate) const SESSIONS_SUBDIR: &str = "sessions";

/// Format of the time in a rollout file name.
const FILE_TIME_FORMAT: &str = "%Y-%m-%dT%H-%M-%S";

/// Length of a formatted file time (`2025-11-02T09-00-00`).
const FILE_TIME_LEN: usize = 19;

/// The path of a new rollout under `root`:
/// `root/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<session_id>.jsonl`.
pub(crate) fn rollout_path(root: &Path, started: DateTime<Local>, session_id: &str) -> PathBuf {
    root.join(SESSIONS_SUBDIR)
        .join(format!("{:04}", started.year()))
        .join(format!("{:02}", started.month()))
        .join(format!("{:02}", started.day()))
        .join(format!(
            "rollout-{}-{session_id}.jsonl",
            started.format(FILE_TIME_FORMAT)
        ))
}

/// The local start time written in a rollout file name, `None` for other names.
pub(crate) fn parse_rollout_file_time(file_name: &str) -> Option<NaiveDateTime> {
    let rest = file_name.strip_prefix("rollout-")?;
    let time = rest.get(..FILE_TIME_LEN)?;
    NaiveDateTime::parse_from_str(time, FILE_TIME_FORMAT).ok()
}

#[cfg(test)]
#[path = "session_path_tests.rs"]
mod tests;
