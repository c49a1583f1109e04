//! [`FileTracker`]: the files the model has read, for change detection (see
//! docs/design/reminders.md, "File tracker") and nested
//! memory triggers.
//!
//! A read records the content the model saw, the file's mtime and size, and a content hash.
//! [`FileTracker::detect_changes`] checks each fully read file: same mtime and size means
//! unchanged without reading it; otherwise the file is read and its hash compared, so a `touch`
//! is not a change. File systems stamp mtimes with a coarse clock, so a stamp taken less than
//! [`RACY_STAMP_MARGIN`] after the file's mtime is not trusted (as git's "racy" index entries):
//! such files are compared by content until a later check re-stamps them. The baseline moves only when the caller [acknowledges](FileTracker::acknowledge)
//! a change (the model has been shown it), so a file that changed twice before the model saw the
//! first change is reported once, diffed against what the model last saw.

use std::collections::BTreeSet;
use std::hash::Hash;
use std::hash::Hasher;
use std::io::ErrorKind;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::time::Duration;
use std::time::SystemTime;

use dashmap::DashMap;
use dashmap::DashSet;

use crate::file_content::MAX_READ_BYTES;
use crate::file_system::FileSystemKind;

/// A stamp taken less than this after the file's mtime is not trusted.
pub(crate) const RACY_STAMP_MARGIN: Duration = Duration::from_secs(2);

/// The stat of a file at the time it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Modification time, when the file system reports one.
    pub mtime: Option<SystemTime>,
    /// Size in bytes.
    pub len: u64,
}

impl FileStamp {
    /// The stamp of `path` now.
    pub fn of(path: &Path) -> std::io::Result<Self> {
        let metadata = std::fs::metadata(path)?;
        Ok(Self {
            mtime: metadata.modified().ok(),
            len: metadata.len(),
        })
    }
}

/// What the model last saw of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFileState {
    /// The content the model saw (the whole file for full reads).
    pub content: Arc<str>,
    /// The file's stamp when it was read.
    pub stamp: Option<FileStamp>,
    /// When the stamp was taken.
    pub stamped_at: SystemTime,
    /// Hash of `content`.
    pub content_hash: u64,
    /// The turn it was read on.
    pub read_turn: i32,
    /// The first line read, for partial reads.
    pub offset: Option<usize>,
    /// The number of lines read, for partial reads.
    pub limit: Option<usize>,
    /// Whether the content is still in the model's context: false once compaction dropped
    /// the read ([`FileTracker::forget_reads_in_context`]). Change detection still diffs against
    /// `content`; only the already-read skip of `@` mentions needs the content in context.
    pub in_context: bool,
    /// The file system the file is on: whether an idle check may `stat` it inline
    /// ([`FileTracker::unchanged_by_local_stamps`]). `None` until [`FileTracker::detect_changes`]
    /// (which the `changed_files` generator runs on the blocking pool) looks it up: tracking a
    /// read makes no system call of its own on the caller's thread, which may be an async worker.
    pub file_system: Option<FileSystemKind>,
}

impl ReadFileState {
    /// Whether only part of the file was read.
    pub fn is_partial(&self) -> bool {
        self.offset.is_some() || self.limit.is_some()
    }
}

/// How a tracked file changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChangeKind {
    /// The content differs from what the model saw.
    Modified {
        /// What the model last saw.
        old: Arc<str>,
        /// What is on disk now.
        new: Arc<str>,
        /// The stamp of the new content.
        stamp: FileStamp,
    },
    /// The file no longer exists.
    Deleted,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// How it changed.
    pub kind: FileChangeKind,
}

/// Hash of file content used for change detection.
pub(crate) fn content_hash(content: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    content.hash(&mut hasher);
    hasher.finish()
}

/// Files read in a session; shared across turns in an `Arc`.
#[derive(Debug, Default)]
pub struct FileTracker {
    files: DashMap<PathBuf, ReadFileState>,
    nested_memory_triggers: Mutex<BTreeSet<PathBuf>>,
    loaded_memory_files: DashSet<PathBuf>,
}

impl FileTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that the model read `path` (stamped from disk now). A full read (no `offset`,
    /// no `limit`) also makes `path` a nested memory trigger.
    pub fn track_read(
        &self,
        path: impl Into<PathBuf>,
        content: impl Into<Arc<str>>,
        turn: i32,
        offset: Option<usize>,
        limit: Option<usize>,
    ) {
        let path = path.into();
        let stamp = FileStamp::of(&path).ok();
        self.track_read_with_stamp(path, content, stamp, turn, offset, limit);
    }

    /// Like [`FileTracker::track_read`] with the stamp given by the caller.
    pub fn track_read_with_stamp(
        &self,
        path: impl Into<PathBuf>,
        content: impl Into<Arc<str>>,
        stamp: Option<FileStamp>,
        turn: i32,
        offset: Option<usize>,
        limit: Option<usize>,
    ) {
        let path = path.into();
        let content = content.into();
        let state = ReadFileState {
            content_hash: content_hash(&content),
            content,
            stamp,
            stamped_at: SystemTime::now(),
            read_turn: turn,
            offset,
            limit,
            in_context: true,
            file_system: None,
        };
        let is_full = !state.is_partial();
        // A partial read of a file whose full content the model already saw, unchanged since,
        // keeps the full baseline.
        let keep_full = !is_full
            && self.files.get(&path).is_some_and(|existing| {
                !existing.is_partial() && existing.stamp.is_some() && existing.stamp == stamp
            });
        if !keep_full {
            self.files.insert(path.clone(), state);
        }
        if is_full {
            self.lock_triggers().insert(path);
        }
    }

    /// Records that the model wrote `path` itself (Write/Edit tools): its own edit is the new
    /// baseline and is never reported as a change.
    pub fn track_write(&self, path: impl Into<PathBuf>, content: impl Into<Arc<str>>, turn: i32) {
        let path = path.into();
        let stamp = FileStamp::of(&path).ok();
        let content = content.into();
        self.files.insert(
            path,
            ReadFileState {
                content_hash: content_hash(&content),
                content,
                stamp,
                stamped_at: SystemTime::now(),
                read_turn: turn,
                offset: None,
                limit: None,
                in_context: true,
                file_system: None,
            },
        );
    }

    /// The state of `path`, if tracked.
    pub fn get(&self, path: &Path) -> Option<ReadFileState> {
        self.files.get(path).map(|entry| entry.value().clone())
    }

    /// All tracked files, sorted by path.
    pub fn tracked_files(&self) -> Vec<(PathBuf, ReadFileState)> {
        let mut files: Vec<_> = self
            .files
            .iter()
            .map(|entry| (entry.key().clone(), entry.value().clone()))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files
    }

    /// Number of tracked files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether nothing is tracked.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Whether `path` was fully read, is still in the model's context and is unchanged on disk
    /// since (used for the silent `already_read_file` case of `@` mentions).
    pub fn is_unchanged_since_read(&self, path: &Path) -> bool {
        let Some(state) = self.get(path) else {
            return false;
        };
        if state.is_partial() || !state.in_context {
            return false;
        }
        match Self::check(path, &state) {
            Ok(CheckOutcome::Unchanged { .. }) => true,
            Ok(CheckOutcome::Changed(_)) | Err(_) => false,
        }
    }

    /// Whether every fully read file is on a local file system and unchanged by its stamp (same
    /// mtime and size as when the model read it, the stamp trusted): what an idle turn finds,
    /// known from one `stat` per file and no read. True when nothing is tracked.
    ///
    /// False as soon as one file needs more: it changed, was deleted or cannot be stat'ed, its
    /// stamp is too close to its mtime to be trusted, or it is on a file system whose `stat` can
    /// hang (network, FUSE, unknown; see [`FileSystemKind`]) or not looked up yet. A file's
    /// file system is looked at before its `stat`, so no file of the second kind is stat'ed. The
    /// caller then runs [`FileTracker::detect_changes`] where a hang is harmless (the
    /// `changed_files` generator: on the blocking pool, under its timeout). Nothing is updated.
    pub fn unchanged_by_local_stamps(&self) -> bool {
        // Nothing tracked (a replay, a session that read no file): answered without the walk,
        // whose iterator holds each shard's lock through an allocation of its own.
        if self.files.is_empty() {
            return true;
        }
        self.files.iter().all(|entry| {
            let state = entry.value();
            state.is_partial()
                || (state.file_system.is_some_and(FileSystemKind::is_local)
                    && FileStamp::of(entry.key()).is_ok_and(|stamp| {
                        state.stamp == Some(stamp) && is_trusted(stamp, state.stamped_at)
                    }))
        })
    }

    /// The fully read files whose content differs from what the model saw, or that were
    /// deleted, sorted by path. Partial reads are skipped. Nothing is updated except the stamp
    /// of files that were touched without a content change, and the file system of files
    /// whose file system was not looked up yet (`statfs`: this can block where a `stat` can).
    pub fn detect_changes(&self) -> Vec<FileChange> {
        let mut changes = Vec::new();
        // Checked in any order and only the changes sorted: sorting every tracked path by its
        // components before each request cost more than a quarter of an idle check.
        let tracked: Vec<(PathBuf, ReadFileState)> = self
            .files
            .iter()
            .map(|entry| (entry.key().clone(), entry.value().clone()))
            .collect();
        for (path, state) in tracked {
            if state.is_partial() {
                continue;
            }
            if state.file_system.is_none()
                && let Some(mut entry) = self.files.get_mut(&path)
            {
                entry.file_system = Some(FileSystemKind::of(&path));
            }
            match Self::check(&path, &state) {
                Ok(CheckOutcome::Unchanged { refreshed: None }) => {}
                Ok(CheckOutcome::Unchanged {
                    refreshed: Some(stamp),
                }) => {
                    if let Some(mut entry) = self.files.get_mut(&path) {
                        entry.stamp = Some(stamp);
                        entry.stamped_at = SystemTime::now();
                    }
                }
                Ok(CheckOutcome::Changed(kind)) => changes.push(FileChange { path, kind }),
                Err(error) => {
                    tracing::debug!(path = %path.display(), %error, "skipping unreadable tracked file");
                }
            }
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        changes
    }

    /// Marks `change` as shown to the model: a modified file's baseline becomes its new content,
    /// a deleted file stops being tracked.
    pub fn acknowledge(&self, change: &FileChange) {
        match &change.kind {
            FileChangeKind::Deleted => {
                self.files.remove(&change.path);
            }
            FileChangeKind::Modified { new, stamp, .. } => {
                if let Some(mut entry) = self.files.get_mut(&change.path) {
                    entry.content_hash = content_hash(new);
                    entry.content = Arc::clone(new);
                    entry.stamp = Some(*stamp);
                    entry.stamped_at = SystemTime::now();
                }
            }
        }
    }

    /// Marks every read as no longer in the model's context (after compaction): an `@` mention
    /// of such a file shows it again. The reads stay tracked, so later edits are still reported
    /// (see docs/design/reminders.md, "Compaction").
    pub fn forget_reads_in_context(&self) {
        for mut entry in self.files.iter_mut() {
            entry.in_context = false;
        }
    }

    /// Stops tracking `path`.
    pub fn untrack(&self, path: &Path) {
        self.files.remove(path);
    }

    /// Takes the nested memory triggers (files fully read since the last call), sorted.
    pub fn take_nested_memory_triggers(&self) -> Vec<PathBuf> {
        std::mem::take(&mut *self.lock_triggers())
            .into_iter()
            .collect()
    }

    /// The nested memory triggers, sorted, left in place: a generator removes them with
    /// [`FileTracker::remove_nested_memory_triggers`] only once its reminder is delivered.
    pub fn nested_memory_triggers(&self) -> Vec<PathBuf> {
        self.lock_triggers().iter().cloned().collect()
    }

    /// Removes `triggers` (handled ones); triggers added since stay.
    pub fn remove_nested_memory_triggers(&self, triggers: &[PathBuf]) {
        let mut pending = self.lock_triggers();
        for trigger in triggers {
            pending.remove(trigger);
        }
    }

    /// Records that the memory file `path` was included; false if it already was.
    pub fn mark_memory_file_loaded(&self, path: &Path) -> bool {
        self.loaded_memory_files.insert(path.to_path_buf())
    }

    /// Whether the memory file `path` was already included.
    pub fn is_memory_file_loaded(&self, path: &Path) -> bool {
        self.loaded_memory_files.contains(path)
    }

    /// Forgets which memory files were included, so they can be included again (after
    /// compaction removed them from the context).
    pub fn forget_loaded_memory_files(&self) {
        self.loaded_memory_files.clear();
    }

    /// Forgets everything (session end).
    pub fn clear(&self) {
        self.files.clear();
        self.lock_triggers().clear();
        self.loaded_memory_files.clear();
    }

    /// Sets the file system `path` is on, as if it had been tracked there (tests of the checks
    /// that depend on it run on whatever file system holds the temporary directory).
    #[cfg(test)]
    pub(crate) fn set_file_system(&self, path: &Path, file_system: FileSystemKind) {
        if let Some(mut entry) = self.files.get_mut(path) {
            entry.file_system = Some(file_system);
        }
    }

    fn lock_triggers(&self) -> std::sync::MutexGuard<'_, BTreeSet<PathBuf>> {
        self.nested_memory_triggers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn check(path: &Path, state: &ReadFileState) -> std::io::Result<CheckOutcome> {
        let stamp = match FileStamp::of(path) {
            Ok(stamp) => stamp,
            Err(error) if error.kind() == ErrorKind::NotFound => {
                return Ok(CheckOutcome::Changed(FileChangeKind::Deleted));
            }
            Err(error) => return Err(error),
        };
        if state.stamp == Some(stamp) && is_trusted(stamp, state.stamped_at) {
            return Ok(CheckOutcome::Unchanged { refreshed: None });
        }
        if stamp.len > MAX_READ_BYTES {
            // Reading (and diffing) it whole every turn would stall the turn; leave it alone.
            return Err(std::io::Error::other(format!(
                "grown past {MAX_READ_BYTES} bytes ({} bytes), not diffed",
                stamp.len
            )));
        }
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == ErrorKind::NotFound => {
                return Ok(CheckOutcome::Changed(FileChangeKind::Deleted));
            }
            Err(error) => return Err(error),
        };
        if bytes.contains(&0) {
            // A binary file: a text diff of it would only put noise into the context.
            return Err(std::io::Error::other("binary content, not diffed"));
        }
        let text = String::from_utf8_lossy(&bytes);
        if content_hash(&text) == state.content_hash && *text == *state.content {
            return Ok(CheckOutcome::Unchanged {
                refreshed: Some(stamp),
            });
        }
        Ok(CheckOutcome::Changed(FileChangeKind::Modified {
            old: Arc::clone(&state.content),
            new: Arc::from(text.as_ref()),
            stamp,
        }))
    }
}

/// Whether a stamp taken at `stamped_at` reliably says the file is unchanged.
fn is_trusted(stamp: FileStamp, stamped_at: SystemTime) -> bool {
    stamp
        .mtime
        .and_then(|mtime| mtime.checked_add(RACY_STAMP_MARGIN))
        .is_some_and(|safe_after| safe_after <= stamped_at)
}

enum CheckOutcome {
    Unchanged { refreshed: Option<FileStamp> },
    Changed(FileChangeKind),
}

#[cfg(test)]
#[path = "file_tracker_tests.rs"]
mod tests;
