//! [`FileObserver`]: how the host reports the files its tools read and write, so the engine's
//! changed-file reminders, restoration cache and read ledger know what the model has seen.

use std::path::Path;

/// Told of every file a tool reads or writes.
pub trait FileObserver: Send + Sync {
    /// `path` was read; `content` is the whole file (`offset`/`limit` say what the model saw).
    fn file_read(
        &self,
        path: &Path,
        content: &str,
        turn: i32,
        offset: Option<usize>,
        limit: Option<usize>,
    );
    /// `path` was written by a tool with `content`.
    fn file_written(&self, path: &Path, content: &str, turn: i32);
}
