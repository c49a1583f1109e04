//! Diagnostics from real language servers for the files the agent writes (`[lsp.<language>]`,
//! `agentctx-lsp`), fed to the `lsp_diagnostics` reminder.
//!
//! The file tools tell their observers every new content of a file they write or edit; the
//! observer here keeps those of the file types a server is configured for. Before the next model
//! request the session sends them to their servers (started on first use, restarted once if
//! they die), waits a bounded time for the diagnostics they publish, and lets the reminder take
//! the new ones. A server that cannot start is logged once and leaves the session without its
//! diagnostics; the turn goes on. Servers are killed when the session is dropped and shut down
//! cleanly by [`LspExt::shutdown`]. See docs/design/lsp.md.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_engine::FileObserver;
use agentctx_lsp::LspManager;
use agentctx_lsp::LspServerConfig;
use agentctx_reminders::Diagnostic;
use agentctx_reminders::DiagnosticFile;
use agentctx_reminders::DiagnosticSeverity;
use agentctx_reminders::DiagnosticsProvider;
use agentctx_reminders::GeneratorContext;

/// The files written since the last request, in order, with their content then.
type Changes = Arc<Mutex<Vec<(PathBuf, String)>>>;

/// The session's language servers.
pub(crate) struct LspExt {
    manager: Arc<LspManager>,
    changes: Changes,
}

impl LspExt {
    /// The servers of `configs` for a session in `cwd`; `None` when none is configured.
    pub(crate) fn new(configs: &BTreeMap<String, LspServerConfig>, cwd: &Path) -> Option<Self> {
        if configs.is_empty() {
            return None;
        }
        Some(Self {
            manager: Arc::new(LspManager::new(configs.clone(), cwd.to_path_buf())),
            changes: Arc::default(),
        })
    }

    /// The observer the file tools notify.
    pub(crate) fn observer(&self) -> Arc<dyn FileObserver> {
        Arc::new(WriteObserver {
            manager: Arc::clone(&self.manager),
            changes: Arc::clone(&self.changes),
        })
    }

    /// Before a model request: sends the files written since the last one to their servers,
    /// waits for their diagnostics, and gives `ctx` the new ones.
    pub(crate) async fn before_request(&self, ctx: &mut GeneratorContext) {
        let changes =
            std::mem::take(&mut *self.changes.lock().unwrap_or_else(PoisonError::into_inner));
        let mut sent = false;
        for (path, text) in changes {
            match self.manager.file_changed(&path, &text).await {
                Ok(()) => sent = true,
                Err(err) => {
                    tracing::warn!(path = %path.display(), "no diagnostics for this file: {err}")
                }
            }
        }
        if sent {
            self.manager.settle().await;
        }
        ctx.providers.diagnostics = Arc::new(LspDiagnostics(Arc::clone(&self.manager)));
    }

    /// Shuts the servers down (`shutdown`, `exit`).
    pub(crate) async fn shutdown(&self) {
        self.manager.shutdown().await;
    }
}

/// Keeps the writes of files some server serves.
struct WriteObserver {
    manager: Arc<LspManager>,
    changes: Changes,
}

impl FileObserver for WriteObserver {
    fn file_read(
        &self,
        _path: &Path,
        _content: &str,
        _turn: i32,
        _offset: Option<usize>,
        _limit: Option<usize>,
    ) {
    }

    fn file_written(&self, path: &Path, content: &str, _turn: i32) {
        if self.manager.server_for(path).is_some() {
            self.changes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((path.to_path_buf(), content.to_owned()));
        }
    }
}

/// The servers' new diagnostics, as the `lsp_diagnostics` reminder reads them.
#[derive(Debug)]
struct LspDiagnostics(Arc<LspManager>);

impl DiagnosticsProvider for LspDiagnostics {
    fn take_new_lsp_diagnostics(&self) -> Vec<DiagnosticFile> {
        self.0
            .take_new_diagnostics()
            .into_iter()
            .map(|file| DiagnosticFile {
                file_path: file.path,
                diagnostics: file.diagnostics.into_iter().map(diagnostic).collect(),
            })
            .collect()
    }
}

fn diagnostic(diagnostic: agentctx_lsp::Diagnostic) -> Diagnostic {
    let position = |value: u32| i32::try_from(value).unwrap_or(i32::MAX);
    Diagnostic {
        message: diagnostic.message,
        severity: match diagnostic.severity {
            agentctx_lsp::Severity::Error => DiagnosticSeverity::Error,
            agentctx_lsp::Severity::Warning => DiagnosticSeverity::Warning,
            agentctx_lsp::Severity::Information => DiagnosticSeverity::Info,
            agentctx_lsp::Severity::Hint => DiagnosticSeverity::Hint,
        },
        line: position(diagnostic.line),
        column: Some(position(diagnostic.column)),
        code: diagnostic.code,
        source: diagnostic.source,
    }
}
