//! The language servers of one session: started lazily for the first file of their type,
//! restarted once if they die, shut down with the session.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;

use crate::DiagnosticStore;
use crate::FileDiagnostics;
use crate::LspError;
use crate::LspServerConfig;
use crate::config::project_root;
use crate::server::LanguageServer;
use crate::server::store_key;

/// A configured server's state.
enum Slot {
    /// Running; `restarted` once it was started again after dying.
    Running {
        server: Box<LanguageServer>,
        restarted: bool,
    },
    /// Failed for good (would not start, or died again after its restart).
    Failed(String),
}

/// The keys the store keeps `paths` under.
fn keys(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths.iter().map(|path| store_key(path)).collect()
}

/// The language servers of a session (`[lsp.<language>]`), keyed by that name.
///
/// ```no_run
/// # async fn demo() -> Result<(), agentctx_lsp::LspError> {
/// use std::collections::BTreeMap;
/// use agentctx_lsp::{LspManager, LspServerConfig};
///
/// let python = LspServerConfig {
///     command: vec!["pyright-langserver".into(), "--stdio".into()],
///     extensions: vec!["py".into()],
///     ..LspServerConfig::default()
/// };
/// let lsp = LspManager::new(BTreeMap::from([("python".to_owned(), python)]), "/work/app".into());
/// lsp.file_changed(std::path::Path::new("/work/app/main.py"), "x: int = 'a'\n").await?;
/// lsp.settle().await;
/// for file in lsp.take_new_diagnostics() {
///     println!("{}: {:?}", file.path.display(), file.diagnostics);
/// }
/// lsp.shutdown().await;
/// # Ok(()) }
/// ```
pub struct LspManager {
    cwd: PathBuf,
    configs: BTreeMap<String, LspServerConfig>,
    slots: Mutex<HashMap<String, Slot>>,
    store: Arc<DiagnosticStore>,
}

impl std::fmt::Debug for LspManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspManager")
            .field("cwd", &self.cwd)
            .field("servers", &self.configs.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl LspManager {
    /// The servers of `configs` for a session working in `cwd`; none is started yet.
    pub fn new(configs: BTreeMap<String, LspServerConfig>, cwd: PathBuf) -> Self {
        Self {
            cwd,
            configs,
            slots: Mutex::new(HashMap::new()),
            store: Arc::new(DiagnosticStore::default()),
        }
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.configs.is_empty()
    }

    /// The server configured for `path`, by its extension (the first by name when two claim
    /// it).
    pub fn server_for(&self, path: &Path) -> Option<(&str, &LspServerConfig)> {
        self.configs
            .iter()
            .find(|(_, config)| config.serves(path))
            .map(|(language, config)| (language.as_str(), config))
    }

    /// The diagnostics every server published.
    pub fn store(&self) -> &Arc<DiagnosticStore> {
        &self.store
    }

    /// The agent changed `path` (absolute) to `text`: the server for its type (started now if
    /// it is not running; started again, once, if it died) is told. A file no server serves is
    /// ignored.
    pub async fn file_changed(&self, path: &Path, text: &str) -> Result<(), LspError> {
        let Some((language, config)) = self.server_for(path) else {
            return Ok(());
        };
        let mut slots = self.slots.lock().await;
        let running = match slots.remove(language) {
            None => self
                .start(language, config, &self.root_for(path, config))
                .await
                .map(|server| (Box::new(server), false)),
            Some(Slot::Failed(reason)) => {
                slots.insert(language.to_owned(), Slot::Failed(reason.clone()));
                return Err(LspError::GaveUp {
                    language: language.to_owned(),
                    reason,
                });
            }
            Some(Slot::Running {
                mut server,
                restarted,
            }) => {
                if server.is_alive() {
                    Ok((server, restarted))
                } else if restarted {
                    let reason = "it exited again after a restart".to_owned();
                    self.store.forget_pending(&keys(&server.documents()));
                    tracing::warn!(%language, "the language server {reason}; no diagnostics from it");
                    slots.insert(language.to_owned(), Slot::Failed(reason.clone()));
                    return Err(LspError::GaveUp {
                        language: language.to_owned(),
                        reason,
                    });
                } else {
                    self.restart(language, config, path, &server.documents())
                        .await
                        .map(|server| (Box::new(server), true))
                }
            }
        };
        match running {
            Ok((mut server, restarted)) => {
                let synced = server.sync(path, text);
                slots.insert(language.to_owned(), Slot::Running { server, restarted });
                synced
            }
            Err(err) => {
                slots.insert(language.to_owned(), Slot::Failed(err.to_string()));
                Err(err)
            }
        }
    }

    async fn start(
        &self,
        language: &str,
        config: &LspServerConfig,
        root: &Path,
    ) -> Result<LanguageServer, LspError> {
        LanguageServer::start(language, config, root, Arc::clone(&self.store)).await
    }

    /// Starts a server that died again, and tells it the files the dead one had open (but
    /// `changed`, which the caller sends next).
    async fn restart(
        &self,
        language: &str,
        config: &LspServerConfig,
        changed: &Path,
        documents: &[PathBuf],
    ) -> Result<LanguageServer, LspError> {
        self.store.forget_pending(&keys(documents));
        tracing::warn!(%language, "the language server exited; starting it again");
        let first = documents.first().map_or(changed, PathBuf::as_path);
        let mut server = self
            .start(language, config, &self.root_for(first, config))
            .await?;
        for document in documents.iter().filter(|document| *document != changed) {
            match std::fs::read_to_string(document) {
                Ok(text) => server.sync(document, &text)?,
                Err(err) => tracing::debug!(path = %document.display(), "not reopened: {err}"),
            }
        }
        Ok(server)
    }

    fn root_for(&self, path: &Path, config: &LspServerConfig) -> PathBuf {
        project_root(path, &self.cwd, &config.root_markers)
    }

    /// Waits until the files sent to the servers have their diagnostics, at most the longest
    /// `diagnostics_wait_ms` of the configured servers.
    pub async fn settle(&self) {
        let wait = self
            .configs
            .values()
            .map(LspServerConfig::diagnostics_wait)
            .max()
            .unwrap_or(Duration::ZERO);
        self.store.settle(wait).await;
    }

    /// The diagnostics published since the last call that the model was not told about
    /// ([`DiagnosticStore::take_new`]).
    pub fn take_new_diagnostics(&self) -> Vec<FileDiagnostics> {
        self.store.take_new()
    }

    /// The names of the servers running now.
    pub async fn running(&self) -> Vec<String> {
        let mut slots = self.slots.lock().await;
        let mut running: Vec<String> = slots
            .iter_mut()
            .filter_map(|(language, slot)| match slot {
                Slot::Running { server, .. } => server.is_alive().then(|| language.clone()),
                Slot::Failed(_) => None,
            })
            .collect();
        running.sort();
        running
    }

    /// Shuts every running server down (`shutdown`, `exit`, killed if it does not stop).
    pub async fn shutdown(&self) {
        let slots: Vec<Slot> = self
            .slots
            .lock()
            .await
            .drain()
            .map(|(_, slot)| slot)
            .collect();
        for slot in slots {
            if let Slot::Running { server, .. } = slot {
                server.shutdown().await;
            }
        }
    }
}
