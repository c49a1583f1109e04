//! The errors of the memory pipeline.

use std::path::PathBuf;

/// What can go wrong in the memory pipeline.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The state database could not be opened or migrated.
    #[error("cannot open the memory state database {path}: {source}")]
    OpenDatabase {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// The state database is locked by another process for longer than the busy timeout.
    #[error("the memory state database {path} is locked by another process: {source}")]
    DatabaseLocked {
        /// The database file.
        path: PathBuf,
        /// The driver's error.
        #[source]
        source: sqlx::Error,
    },
    /// The state database is not a valid SQLite file, or its schema is not ours.
    #[error("the memory state database {path} is corrupt or not ours: {source}")]
    DatabaseCorrupt {
        /// The database file.
        path: PathBuf,
        /// The driver's error.
        #[source]
        source: sqlx::Error,
    },
    /// Any other database failure.
    #[error("memory state database {path}: {source}")]
    Database {
        /// The database file.
        path: PathBuf,
        /// The driver's error.
        #[source]
        source: sqlx::Error,
    },
    /// A file of the memory folder could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done (`cannot write`, `cannot read`, ...).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A session file could not be read.
    #[error(transparent)]
    Rollout(#[from] agentctx_rollout::RolloutError),
    /// The model call failed.
    #[error(transparent)]
    Model(#[from] agentctx_model::ModelError),
    /// The model's window has no room for a session once the instructions and the reply's
    /// reserve are counted.
    #[error(
        "the model's context window ({context_window} tokens) leaves no room for a session after the instructions and the reply"
    )]
    WindowTooSmall {
        /// The model's context window in tokens.
        context_window: i64,
    },
    /// A blocking task (reading session files) did not finish.
    #[error("background task failed: {0}")]
    Task(String),
    /// The consolidator failed.
    #[error("consolidation failed: {0}")]
    Consolidation(String),
    /// Another worker took the job over (its lease expired); this worker's result is dropped.
    #[error("lost ownership of job {kind}/{key}")]
    LostOwnership {
        /// The job kind.
        kind: &'static str,
        /// The job key.
        key: String,
    },
}

impl MemoryError {
    /// Classifies a database error for `path`: a busy/locked database and a corrupt file get
    /// their own variants so the user reads what is wrong with which file.
    pub(crate) fn database(path: &std::path::Path, source: sqlx::Error) -> Self {
        let path = path.to_path_buf();
        let code = match &source {
            sqlx::Error::Database(db) => db.code().map(std::borrow::Cow::into_owned),
            _ => None,
        };
        let message = source.to_string();
        // SQLite result codes: 5 SQLITE_BUSY, 6 SQLITE_LOCKED, 517 SQLITE_BUSY_SNAPSHOT,
        // 11 SQLITE_CORRUPT, 26 SQLITE_NOTADB (https://www.sqlite.org/rescode.html).
        match code.as_deref() {
            Some("5" | "6" | "517" | "261" | "773") => Self::DatabaseLocked { path, source },
            Some("11" | "26") => Self::DatabaseCorrupt { path, source },
            _ if message.contains("database is locked") => Self::DatabaseLocked { path, source },
            _ if message.contains("file is not a database") || message.contains("malformed") => {
                Self::DatabaseCorrupt { path, source }
            }
            _ => Self::Database { path, source },
        }
    }

    /// True when retrying may help (the database was busy).
    pub(crate) fn is_busy(&self) -> bool {
        matches!(self, Self::DatabaseLocked { .. })
    }
}
