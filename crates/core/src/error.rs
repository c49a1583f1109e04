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
    /// The next request does not fit the model's context window, even after compaction:
    /// nothing was sent. The instructions, tool schemas and what compaction cannot shrink (the
    /// initial context, the restored state) are too large for the window.
    #[error(
        "the request needs about {prompt_tokens} tokens but at most {limit} fit the context window \
         of {window_tokens} tokens ({reserved_output_tokens} kept for the answer), even after \
         compacting the history; shorten the instructions or use a model with a larger window"
    )]
    ContextWindowFull {
        /// Our estimate of the request.
        prompt_tokens: u64,
        /// The blocking limit: the most a request may hold.
        limit: u64,
        /// The model's window.
        window_tokens: u64,
        /// Tokens of the window kept for the answer.
        reserved_output_tokens: u64,
    },
    /// The turn ran more model requests than the session allows.
    #[error("the turn stopped after {0} model requests")]
    TooManyRequests(u32),
}
