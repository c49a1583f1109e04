//! What can go wrong between agentctx and a language server.

use std::path::PathBuf;

/// A language server could not be started, or stopped answering.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// `[lsp.<language>]` has an empty `command`.
    #[error("[lsp.{language}] has no command")]
    NoCommand {
        /// The table's name.
        language: String,
    },
    /// The server's program could not be started.
    #[error("could not start the {language} language server `{program}`: {source}")]
    Spawn {
        /// The table's name.
        language: String,
        /// The program of `command`.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// Reading from or writing to the server failed.
    #[error("the language server's pipe failed: {0}")]
    Io(#[from] std::io::Error),
    /// The server wrote something that is not a JSON-RPC frame.
    #[error("the language server wrote a malformed frame: {0}")]
    Frame(String),
    /// The server exited (or closed its output) while a request waited.
    #[error("the {language} language server exited")]
    Exited {
        /// The table's name.
        language: String,
    },
    /// The server did not answer in time.
    #[error("the {language} language server did not answer `{method}` within {seconds} s")]
    Timeout {
        /// The table's name.
        language: String,
        /// The request.
        method: String,
        /// The time it had.
        seconds: u64,
    },
    /// The server answered a request with an error.
    #[error("the {language} language server refused `{method}`: {message} ({code})")]
    Refused {
        /// The table's name.
        language: String,
        /// The request.
        method: String,
        /// JSON-RPC's error code.
        code: i64,
        /// The server's message.
        message: String,
    },
    /// A path that cannot be written as a `file://` URI (not absolute).
    #[error("{} cannot be named by a file URI", .0.display())]
    NotAFileUri(PathBuf),
    /// The server failed before and was already restarted once.
    #[error("the {language} language server failed and is not restarted again: {reason}")]
    GaveUp {
        /// The table's name.
        language: String,
        /// The last failure.
        reason: String,
    },
}
