//! One running language server: the `initialize` handshake, the documents it was told about,
//! the diagnostics it publishes, and its shutdown.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lsp_types::ClientCapabilities;
use lsp_types::PublishDiagnosticsClientCapabilities;
use lsp_types::TextDocumentClientCapabilities;
use lsp_types::TextDocumentSyncClientCapabilities;
use lsp_types::Url;
use lsp_types::WorkspaceClientCapabilities;
use lsp_types::WorkspaceFolder;
use serde_json::Value;
use serde_json::json;
use tokio::process::Child;

use crate::Diagnostic;
use crate::DiagnosticStore;
use crate::LspError;
use crate::LspServerConfig;
use crate::connection::Connection;
use crate::connection::Incoming;
use crate::connection::METHOD_NOT_FOUND;
use crate::process;

/// How long a server may take to answer `initialize` (a first start may index a project).
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a server may take to answer `shutdown` before it is killed.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);

/// A path as the protocol names it.
pub(crate) fn file_uri(path: &Path) -> Result<Url, LspError> {
    Url::from_file_path(path).map_err(|()| LspError::NotAFileUri(path.to_path_buf()))
}

/// A path named by a server, normalised as [`file_uri`] would name it again, so the file a
/// server publishes about is the file the client sent.
fn uri_path(uri: &Url) -> Option<PathBuf> {
    uri.to_file_path().ok()
}

/// The path the store keeps `path`'s diagnostics under: as a server will name it back.
pub(crate) fn store_key(path: &Path) -> PathBuf {
    file_uri(path)
        .ok()
        .and_then(|uri| uri_path(&uri))
        .unwrap_or_else(|| path.to_path_buf())
}

/// What a server sends on its own: diagnostics into the store, configuration from the
/// settings, and the registrations and progress tokens a client may simply accept.
struct ServerInbox {
    language: String,
    config: LspServerConfig,
    store: Arc<DiagnosticStore>,
    folder: Value,
}

impl Incoming for ServerInbox {
    fn notification(&self, method: &str, params: Value) {
        match method {
            "textDocument/publishDiagnostics" => {
                match serde_json::from_value::<lsp_types::PublishDiagnosticsParams>(params) {
                    Ok(published) => {
                        let Some(path) = uri_path(&published.uri) else {
                            tracing::debug!(uri = %published.uri, "diagnostics for a non-file URI skipped");
                            return;
                        };
                        let diagnostics = published
                            .diagnostics
                            .into_iter()
                            .map(Diagnostic::from_lsp)
                            .collect();
                        self.store.publish(path, published.version, diagnostics);
                    }
                    Err(err) => tracing::warn!(
                        language = %self.language,
                        "skipped malformed publishDiagnostics: {err}"
                    ),
                }
            }
            "window/logMessage" | "window/showMessage" => {
                let message = params.get("message").and_then(Value::as_str).unwrap_or("");
                tracing::debug!(language = %self.language, "{message}");
            }
            _ => {}
        }
    }

    fn request(&self, method: &str, params: Value) -> Result<Value, (i64, String)> {
        match method {
            "workspace/configuration" => {
                let items = params
                    .get("items")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                Ok(Value::Array(
                    items
                        .iter()
                        .map(|item| {
                            self.config
                                .setting(item.get("section").and_then(Value::as_str))
                        })
                        .collect(),
                ))
            }
            "workspace/workspaceFolders" => Ok(json!([self.folder])),
            "client/registerCapability"
            | "client/unregisterCapability"
            | "window/workDoneProgress/create"
            | "workspace/diagnostic/refresh"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => Ok(Value::Null),
            _ => Err((
                METHOD_NOT_FOUND,
                format!("agentctx does not handle {method}"),
            )),
        }
    }
}

/// A started, initialised server.
pub(crate) struct LanguageServer {
    language: String,
    config: LspServerConfig,
    child: Child,
    connection: Connection,
    /// The documents it was told about, with the version last sent.
    documents: BTreeMap<PathBuf, i32>,
    store: Arc<DiagnosticStore>,
}

impl LanguageServer {
    /// Starts `config`'s server for the workspace `root` and runs the `initialize` handshake.
    pub(crate) async fn start(
        language: &str,
        config: &LspServerConfig,
        root: &Path,
        store: Arc<DiagnosticStore>,
    ) -> Result<Self, LspError> {
        let root_uri = file_uri(root)?;
        let name = root.file_name().map_or_else(
            || root.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        let folder = WorkspaceFolder {
            uri: root_uri.clone(),
            name,
        };
        let process = process::spawn(language, config, root)?;
        let inbox = ServerInbox {
            language: language.to_owned(),
            config: config.clone(),
            store: Arc::clone(&store),
            folder: serde_json::to_value(&folder).unwrap_or(Value::Null),
        };
        let connection =
            Connection::start(language, process.stdin, process.stdout, Arc::new(inbox));
        let capabilities = ClientCapabilities {
            text_document: Some(TextDocumentClientCapabilities {
                synchronization: Some(TextDocumentSyncClientCapabilities {
                    did_save: Some(false),
                    ..TextDocumentSyncClientCapabilities::default()
                }),
                publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                    version_support: Some(true),
                    ..PublishDiagnosticsClientCapabilities::default()
                }),
                ..TextDocumentClientCapabilities::default()
            }),
            workspace: Some(WorkspaceClientCapabilities {
                configuration: Some(true),
                workspace_folders: Some(true),
                ..WorkspaceClientCapabilities::default()
            }),
            ..ClientCapabilities::default()
        };
        // `rootUri` is deprecated in favour of `workspaceFolders`, but servers still read it.
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "agentctx", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": root_uri,
            "workspaceFolders": [folder],
            "capabilities": capabilities,
            "initializationOptions": config.initialization_options,
        });
        connection
            .request("initialize", params, INITIALIZE_TIMEOUT)
            .await?;
        connection.notify("initialized", json!({}))?;
        tracing::info!(%language, root = %root.display(), "language server started");
        Ok(Self {
            language: language.to_owned(),
            config: config.clone(),
            child: process.child,
            connection,
            documents: BTreeMap::new(),
            store,
        })
    }

    /// Whether the server still runs and reads what it is sent.
    pub(crate) fn is_alive(&mut self) -> bool {
        self.connection.is_alive() && matches!(self.child.try_wait(), Ok(None))
    }

    /// The documents it was told about.
    pub(crate) fn documents(&self) -> Vec<PathBuf> {
        self.documents.keys().cloned().collect()
    }

    /// Tells the server the content of `path` is `text` now: `didOpen` the first time, then
    /// `didChange` with the whole text and the next version. Its diagnostics are awaited.
    pub(crate) fn sync(&mut self, path: &Path, text: &str) -> Result<(), LspError> {
        let uri = file_uri(path)?;
        let version = match self.documents.get(path) {
            Some(version) => {
                let next = version.saturating_add(1);
                self.connection.notify(
                    "textDocument/didChange",
                    json!({
                        "textDocument": {"uri": uri, "version": next},
                        "contentChanges": [{"text": text}],
                    }),
                )?;
                next
            }
            None => {
                self.connection.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {
                        "uri": uri,
                        "languageId": self.config.language_id(&self.language),
                        "version": 1,
                        "text": text,
                    }}),
                )?;
                1
            }
        };
        self.documents.insert(path.to_path_buf(), version);
        self.store.expect(&store_key(path), version);
        Ok(())
    }

    /// `shutdown`, then `exit`; a server that does not answer in time is killed.
    pub(crate) async fn shutdown(mut self) {
        let documents: Vec<PathBuf> = self.documents.keys().map(|path| store_key(path)).collect();
        self.store.forget_pending(&documents);
        if self.connection.is_alive() {
            match self
                .connection
                .request("shutdown", Value::Null, SHUTDOWN_TIMEOUT)
                .await
            {
                Ok(_) => {
                    let _ = self.connection.notify("exit", Value::Null);
                }
                Err(err) => tracing::debug!(language = %self.language, "shutdown: {err}"),
            }
        }
        match tokio::time::timeout(SHUTDOWN_TIMEOUT, self.child.wait()).await {
            Ok(_) => {}
            Err(_) => {
                if let Err(err) = self.child.kill().await {
                    tracing::warn!(language = %self.language, "could not kill the language server: {err}");
                }
            }
        }
    }
}
