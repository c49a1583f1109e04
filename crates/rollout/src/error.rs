//! The errors of the rollout crate; every variant names the file it concerns.

use std::io;
use std::path::PathBuf;

/// Why a rollout could not be written, read or found.
#[derive(Debug, thiserror::Error)]
pub enum RolloutError {
    /// The file could not be opened.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Reading failed part-way through the file.
    #[error("cannot read {path} after line {line}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The last line read completely (1-based; 0 before the first).
        line: usize,
        /// The operating system's error.
        source: io::Error,
    },
    /// The session id cannot be part of a file name: it is empty after `..`-style parts, or
    /// holds a character other than ASCII letters, digits, `-`, `_` and a non-leading `.`, so
    /// the rollout could land outside its day folder.
    #[error("session id {id:?} cannot name a rollout file (letters, digits, `-`, `_`, `.` only)")]
    InvalidSessionId {
        /// The id as given.
        id: String,
    },
    /// A directory of the sessions tree could not be created.
    #[error("cannot create directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Appending to the file failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The exclusive append lock could not be taken.
    #[error("cannot lock {path}: {source}")]
    Lock {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// A line could not be turned into JSON.
    #[error("cannot serialize a rollout line for {path}: {source}")]
    Serialize {
        /// The file the line was meant for.
        path: PathBuf,
        /// The serializer's error.
        source: serde_json::Error,
    },
    /// No line of the file looks like a Codex rollout or a Claude Code transcript.
    #[error(
        "{path} is not a codex rollout or claude code transcript ({lines} lines, none recognised)"
    )]
    UnrecognizedFormat {
        /// The file.
        path: PathBuf,
        /// How many lines were read.
        lines: usize,
    },
    /// Walking a directory of sessions failed.
    #[error("cannot list sessions under {path}: {source}")]
    Walk {
        /// The directory (or the entry that failed).
        path: PathBuf,
        /// The walker's error.
        source: walkdir::Error,
    },
}
