//! The engine's errors.

use agentctx_rollout::RolloutError;

/// A replay that could not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The session file could not be read.
    #[error(transparent)]
    Rollout(#[from] RolloutError),
    /// The runtime the reminder stage runs on could not be started.
    #[error("cannot start the reminder stage's runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// A replay was asked to stop at a compaction the session does not record.
    #[error("the session records {recorded} compaction(s); compaction {requested} was asked for")]
    NoSuchCompaction {
        /// The compaction asked for (1-based).
        requested: usize,
        /// The compactions the session records.
        recorded: usize,
    },
    /// The host could not take a request (`--requests`: the file could not be written).
    #[error("cannot write request {request}: {source}")]
    Sink {
        /// The request (1-based).
        request: usize,
        /// Why.
        source: std::io::Error,
    },
}
