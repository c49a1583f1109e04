//! [`CoreError`]: what can stop a session or a turn.

use std::path::PathBuf;

use agentctx_model::ModelError;
use agentctx_rollout::RolloutError;

/// Why a session could not start or a turn could not finish.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// The model failed in a way the turn cannot recover from.
    #[error("model request failed: {0}")]
    Model(#[from] ModelError),
    /// The rollout file could not be created, read or appended to.
    #[error("rollout: {0}")]
    Rollout(#[from] RolloutError),
    /// The recorded session to resume holds no session id.
    #[error("{path} has no session_meta line; cannot resume it")]
    NotASession {
        /// The rollout file.
        path: PathBuf,
    },
    /// The turn ran more model requests than the session allows.
    #[error("the turn stopped after {0} model requests")]
    TooManyRequests(u32),
}
