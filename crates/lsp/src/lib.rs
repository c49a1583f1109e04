//! A language-server client for agentctx: the diagnostics an editor would show, for the files
//! the agent edits.
//!
//! A session configures servers by file type (`[lsp.<language>]`: a command, the extensions it
//! serves, root markers). [`LspManager`] starts a server the first time the agent writes a
//! file of its type, tells it every new content of the files it writes (`didOpen`, then
//! `didChange` with the whole text), and keeps what the server publishes
//! (`textDocument/publishDiagnostics`). Before the next model request the host waits a bounded
//! time for those diagnostics ([`LspManager::settle`]) and takes the ones the model has not
//! seen ([`LspManager::take_new_diagnostics`]): new errors and warnings, deduplicated,
//! bounded. A server that dies is started again once; the servers stop with the session
//! ([`LspManager::shutdown`]).
//!
//! The protocol's types come from `lsp-types`; the framing (a `Content-Length` header and a
//! JSON body) and the JSON-RPC matching of requests and responses are this crate's own. See
//! docs/design/lsp.md.
//!
//! ```
//! use agentctx_lsp::LspServerConfig;
//!
//! let python: LspServerConfig = serde_json::from_str(
//!     r#"{"command": ["pyright-langserver", "--stdio"], "extensions": ["py"]}"#,
//! )
//! .unwrap();
//! assert!(python.serves(std::path::Path::new("src/app.py")));
//! ```

mod config;
mod connection;
mod diagnostics;
mod error;
mod framing;
mod manager;
mod process;
mod server;

pub use config::DEFAULT_DIAGNOSTICS_WAIT_MS;
pub use config::LspServerConfig;
pub use config::project_root;
pub use diagnostics::Diagnostic;
pub use diagnostics::DiagnosticStore;
pub use diagnostics::FileDiagnostics;
pub use diagnostics::MAX_FILES;
pub use diagnostics::MAX_PER_FILE;
pub use diagnostics::Severity;
pub use error::LspError;
pub use manager::LspManager;
