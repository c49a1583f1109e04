//! The diagnostics servers publish, and which of them are new to the model.
//!
//! A server publishes the full list of a file's diagnostics whenever it changes
//! (`textDocument/publishDiagnostics`). The store keeps the latest list per file and what was
//! already reported, so [`DiagnosticStore::take_new`] returns only diagnostics the model has
//! not been told about: an error reported once is not repeated on every request, an error
//! fixed and made again is new again, and a file whose errors are gone yields nothing.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::collections::HashSet;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::time::Duration;

use tokio::sync::Notify;

/// The most files one [`DiagnosticStore::take_new`] returns.
pub const MAX_FILES: usize = 10;

/// The most diagnostics one file contributes to one [`DiagnosticStore::take_new`].
pub const MAX_PER_FILE: usize = 10;

/// How serious a diagnostic is (LSP's `DiagnosticSeverity`; a server that sends none means an
/// error, as the specification leaves it to the client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// Information.
    Information,
    /// A hint.
    Hint,
}

impl Severity {
    /// From the protocol's value.
    pub(crate) fn from_lsp(severity: Option<lsp_types::DiagnosticSeverity>) -> Self {
        match severity {
            Some(lsp_types::DiagnosticSeverity::WARNING) => Self::Warning,
            Some(lsp_types::DiagnosticSeverity::INFORMATION) => Self::Information,
            Some(lsp_types::DiagnosticSeverity::HINT) => Self::Hint,
            _ => Self::Error,
        }
    }
}

/// One diagnostic, with 1-based positions as an editor shows them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// The server's message.
    pub message: String,
    /// Its severity.
    pub severity: Severity,
    /// The line (1-based).
    pub line: u32,
    /// The column (1-based, in the server's UTF-16 units).
    pub column: u32,
    /// The rule or error code (`reportAssignmentType`, `E0308`), when the server gives one.
    pub code: Option<String>,
    /// Who reported it (`Pyright`, `rustc`), when the server says.
    pub source: Option<String>,
}

impl Diagnostic {
    /// From the protocol's diagnostic.
    pub(crate) fn from_lsp(diagnostic: lsp_types::Diagnostic) -> Self {
        let code = diagnostic.code.map(|code| match code {
            lsp_types::NumberOrString::Number(number) => number.to_string(),
            lsp_types::NumberOrString::String(text) => text,
        });
        Self {
            message: diagnostic.message,
            severity: Severity::from_lsp(diagnostic.severity),
            line: diagnostic.range.start.line.saturating_add(1),
            column: diagnostic.range.start.character.saturating_add(1),
            code,
            source: diagnostic.source,
        }
    }

    /// What makes two reports the same diagnostic: a diagnostic whose line moved because lines
    /// were added above it is still the same one.
    fn key(&self) -> (Severity, String, Option<String>) {
        (self.severity, self.message.clone(), self.code.clone())
    }
}

/// The new diagnostics of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiagnostics {
    /// The file.
    pub path: PathBuf,
    /// Its diagnostics the model was not told about yet, errors first, at most
    /// [`MAX_PER_FILE`].
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Default)]
struct State {
    /// The latest list each file was published with (errors and warnings only).
    current: BTreeMap<PathBuf, Vec<Diagnostic>>,
    /// What was reported of each file.
    reported: HashMap<PathBuf, HashSet<(Severity, String, Option<String>)>>,
    /// Files told to a server and not yet published since, with the document version awaited.
    pending: HashMap<PathBuf, i32>,
}

/// The diagnostics of every server of a session.
#[derive(Debug, Default)]
pub struct DiagnosticStore {
    state: Mutex<State>,
    published: Notify,
}

impl DiagnosticStore {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `path` was sent to a server as document `version`: its diagnostics are awaited.
    pub(crate) fn expect(&self, path: &Path, version: i32) {
        self.state().pending.insert(path.to_path_buf(), version);
    }

    /// A server stopped: nothing it was sent will be published.
    pub(crate) fn forget_pending(&self, paths: &[PathBuf]) {
        let mut state = self.state();
        for path in paths {
            state.pending.remove(path);
        }
        drop(state);
        self.published.notify_waiters();
    }

    /// A server published `diagnostics` for `path` (of document `version`, when it says).
    /// Information and hints are dropped: the model is told about errors and warnings.
    pub(crate) fn publish(
        &self,
        path: PathBuf,
        version: Option<i32>,
        diagnostics: Vec<Diagnostic>,
    ) {
        let kept: Vec<Diagnostic> = diagnostics
            .into_iter()
            .filter(|diagnostic| diagnostic.severity <= Severity::Warning)
            .collect();
        let mut state = self.state();
        // A list for an older version than the one sent is stale: the awaited one follows.
        let answered = match (state.pending.get(&path), version) {
            (Some(awaited), Some(version)) => version >= *awaited,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if answered {
            state.pending.remove(&path);
        }
        if kept.is_empty() {
            state.current.remove(&path);
        } else {
            state.current.insert(path, kept);
        }
        drop(state);
        self.published.notify_waiters();
    }

    /// Waits until every file sent to a server has its diagnostics published, or `wait` has
    /// passed (on tokio's clock).
    pub async fn settle(&self, wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let published = self.published.notified();
            tokio::pin!(published);
            published.as_mut().enable();
            if self.state().pending.is_empty() {
                return;
            }
            if tokio::time::timeout_at(deadline, published).await.is_err() {
                return;
            }
        }
    }

    /// Files still awaiting their diagnostics.
    pub fn pending(&self) -> Vec<PathBuf> {
        let mut pending: Vec<PathBuf> = self.state().pending.keys().cloned().collect();
        pending.sort();
        pending
    }

    /// The diagnostics published since the last call that the model was not told about,
    /// bounded to [`MAX_FILES`] files of [`MAX_PER_FILE`] each; those returned count as
    /// reported. A diagnostic that went away and comes back is new again.
    pub fn take_new(&self) -> Vec<FileDiagnostics> {
        let mut state = self.state();
        let State {
            current, reported, ..
        } = &mut *state;
        // A file with no diagnostics now forgets what was reported of it.
        reported.retain(|path, _| current.contains_key(path));
        let mut files = Vec::new();
        for (path, diagnostics) in current.iter() {
            let seen = reported.entry(path.clone()).or_default();
            // What is no longer published is forgotten, so it is new if it comes back.
            let now: HashSet<_> = diagnostics.iter().map(Diagnostic::key).collect();
            seen.retain(|key| now.contains(key));
            if files.len() == MAX_FILES {
                continue;
            }
            let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
            sorted.sort_by_key(|diagnostic| {
                (diagnostic.severity, diagnostic.line, diagnostic.column)
            });
            let mut taken = HashSet::new();
            let new: Vec<Diagnostic> = sorted
                .into_iter()
                .filter(|diagnostic| {
                    let key = diagnostic.key();
                    !seen.contains(&key) && taken.insert(key)
                })
                .take(MAX_PER_FILE)
                .cloned()
                .collect();
            if new.is_empty() {
                continue;
            }
            seen.extend(new.iter().map(Diagnostic::key));
            files.push(FileDiagnostics {
                path: path.clone(),
                diagnostics: new,
            });
        }
        files
    }

    /// The latest diagnostics of `path` (errors and warnings), reported or not.
    pub fn current(&self, path: &Path) -> Vec<Diagnostic> {
        self.state().current.get(path).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
#[path = "diagnostics_tests.rs"]
mod tests;
