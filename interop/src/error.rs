//! Why the harness could not set something up.

use std::path::PathBuf;
use std::time::Duration;

/// A failure of the harness itself (not of the binary under test).
#[derive(Debug, thiserror::Error)]
pub enum InteropError {
    /// A tool the suite needs is not installed.
    #[error("{what} is not installed at {}: {how}", path.display())]
    Missing {
        /// What is missing.
        what: &'static str,
        /// Where it was looked for.
        path: PathBuf,
        /// How to install it.
        how: &'static str,
    },
    /// A server exited before it was ready.
    #[error("{server} exited before it was ready ({status}); its log ({}):\n{log}", log_path.display())]
    Exited {
        /// Which server.
        server: String,
        /// Its exit status.
        status: String,
        /// Where its output went.
        log_path: PathBuf,
        /// The end of its log.
        log: String,
    },
    /// A server did not answer its readiness probe in time.
    #[error("{server} did not accept connections at {url} after {after:?}; its log ({}):\n{log}", log_path.display())]
    NotReady {
        /// Which server.
        server: String,
        /// The address probed.
        url: String,
        /// How long the harness waited.
        after: Duration,
        /// Where its output went.
        log_path: PathBuf,
        /// The end of its log.
        log: String,
    },
    /// A file or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What the harness was doing.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl InteropError {
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let context = context.into();
        move |source| Self::Io { context, source }
    }
}
