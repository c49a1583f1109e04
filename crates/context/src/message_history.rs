//! The global prompt history, `history.jsonl`: one `{"session_id","ts","text"}` line per prompt.
//!
//! Appends go through one `O_APPEND` write of a whole line under an exclusive advisory lock
//! (`File::try_lock`, 10 attempts 100 ms apart, counted only while the file does not change, so
//! busy writers never starve one another out), so concurrent writers never interleave. The file
//! is created with mode `0600`. With a `max_bytes` cap, a writer that takes the file over the cap
//! drops the oldest lines down to 80 % of it (never the newest line) and swaps the file
//! atomically (temporary file, fsync, rename) while still holding the lock. Writers that were
//! waiting on the old file notice the swap (its identity changed) and start over on the new one.

use std::fs::File;
use std::fs::OpenOptions;
use std::io::BufRead;
use std::io::BufReader;
use std::io::Read;
use std::io::Seek;
use std::io::SeekFrom;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::thread;
use std::time::Duration;
use std::time::SystemTime;
use std::time::UNIX_EPOCH;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// File name of the history under the agentctx home.
pub(crate) const HISTORY_FILENAME: &str = "history.jsonl";
/// Attempts to take the file lock before giving up.
pub(crate) const MAX_LOCK_RETRIES: u32 = 10;
/// Pause between lock attempts.
pub(crate) const LOCK_RETRY_SLEEP: Duration = Duration::from_millis(100);
/// Fraction of `max_bytes` a trimmed file is cut down to.
pub(crate) const HISTORY_SOFT_CAP_RATIO: f64 = 0.8;

/// One prompt in the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryEntry {
    /// The session (thread) the prompt was typed in.
    pub session_id: String,
    /// Unix seconds.
    pub ts: u64,
    /// The prompt text.
    pub text: String,
}

/// Whether prompts are saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HistoryPersistence {
    /// Save every prompt.
    #[default]
    SaveAll,
    /// Save nothing.
    None,
}

/// `[history]` settings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct MessageHistoryConfig {
    /// Whether prompts are saved.
    pub persistence: HistoryPersistence,
    /// Soft cap on the file size; over it the oldest lines are dropped down to 80 %.
    pub max_bytes: Option<u64>,
}

/// What can go wrong with the history file. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum MessageHistoryError {
    /// The file (or its directory) could not be opened or created.
    #[error("cannot open history file {path}: {source}")]
    Open {
        /// The history file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Another process held the lock through every retry.
    #[error("history file {path} stayed locked after {attempts} attempts")]
    LockTimeout {
        /// The history file.
        path: PathBuf,
        /// Attempts made.
        attempts: u32,
    },
    /// Taking the lock failed for another reason.
    #[error("cannot lock history file {path}: {source}")]
    Lock {
        /// The history file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Reading failed.
    #[error("cannot read history file {path}: {source}")]
    Read {
        /// The history file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Writing, syncing or swapping the file failed.
    #[error("cannot write history file {path}: {source}")]
    Write {
        /// The history file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An entry could not be serialised.
    #[error("cannot serialise a history entry for {path}: {source}")]
    Serialize {
        /// The history file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
}

/// The entries of the file, oldest first, and the lines that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistoryEntries {
    /// Parsed entries, oldest first.
    pub entries: Vec<HistoryEntry>,
    /// 1-based line numbers of lines that were not valid entries (skipped, logged).
    pub skipped_lines: Vec<usize>,
}

/// Identity and size of the file, for [`MessageHistory::lookup`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HistoryMetadata {
    /// Identity of the file (inode on Unix); it changes when the file is trimmed.
    pub log_id: u64,
    /// Number of lines.
    pub entry_count: usize,
}

/// How often, and how far apart, the file lock is tried before giving up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LockRetry {
    /// Attempts before [`MessageHistoryError::LockTimeout`].
    pub(crate) attempts: u32,
    /// Pause between attempts.
    pub(crate) pause: Duration,
}

impl Default for LockRetry {
    fn default() -> Self {
        Self {
            attempts: MAX_LOCK_RETRIES,
            pause: LOCK_RETRY_SLEEP,
        }
    }
}

/// The prompt history file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageHistory {
    path: PathBuf,
    max_bytes: Option<u64>,
    persistence: HistoryPersistence,
    /// Always the default outside tests; tests set it so that no outcome depends on how
    /// fast a loaded machine runs the other lock holders.
    lock_retry: LockRetry,
}

impl MessageHistory {
    /// The history at `path`, without a size cap.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            max_bytes: None,
            persistence: HistoryPersistence::SaveAll,
            lock_retry: LockRetry::default(),
        }
    }

    /// `history.jsonl` under `home`, with the config's cap and persistence.
    pub fn in_home(home: &Path, config: &MessageHistoryConfig) -> Self {
        Self::new(home.join(HISTORY_FILENAME))
            .with_max_bytes(config.max_bytes)
            .with_persistence(config.persistence)
    }

    /// Sets whether appends are written at all.
    pub fn with_persistence(mut self, persistence: HistoryPersistence) -> Self {
        self.persistence = persistence;
        self
    }

    /// Sets the soft cap.
    pub fn with_max_bytes(mut self, max_bytes: Option<u64>) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Sets the lock retry policy.
    #[cfg(test)]
    pub(crate) fn with_lock_retry(mut self, lock_retry: LockRetry) -> Self {
        self.lock_retry = lock_retry;
        self
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `text` for `session_id`, stamped with the current time.
    pub fn append(&self, session_id: &str, text: &str) -> Result<(), MessageHistoryError> {
        let ts = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        self.append_entry(&HistoryEntry {
            session_id: session_id.to_string(),
            ts,
            text: text.to_string(),
        })
    }

    /// Appends one entry as one line, then enforces the cap. Does nothing with
    /// [`HistoryPersistence::None`].
    pub fn append_entry(&self, entry: &HistoryEntry) -> Result<(), MessageHistoryError> {
        if self.persistence == HistoryPersistence::None {
            return Ok(());
        }
        let mut line =
            serde_json::to_string(entry).map_err(|source| MessageHistoryError::Serialize {
                path: self.path.clone(),
                source,
            })?;
        line.push('\n');
        if let Some(parent) = self.path.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent).map_err(|source| self.open_error(source))?;
        }
        let mut file = self.open_locked_for_append()?;
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|source| self.write_error(source))?;
        self.enforce_limit(&mut file)
    }

    /// Reads every entry, oldest first. A missing file has no entries; unreadable lines are
    /// skipped and reported by line number.
    pub fn entries(&self) -> Result<HistoryEntries, MessageHistoryError> {
        let Some(file) = self.open_locked_for_read()? else {
            return Ok(HistoryEntries::default());
        };
        let mut result = HistoryEntries::default();
        for (index, line) in BufReader::new(&file).lines().enumerate() {
            let line = line.map_err(|source| self.read_error(source))?;
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<HistoryEntry>(&line) {
                Ok(entry) => result.entries.push(entry),
                Err(err) => {
                    tracing::warn!(path = %self.path.display(), line = index + 1, %err, "skipping an unreadable history line");
                    result.skipped_lines.push(index + 1);
                }
            }
        }
        Ok(result)
    }

    /// The file's identity and line count; zeros when it does not exist.
    pub fn metadata(&self) -> Result<HistoryMetadata, MessageHistoryError> {
        let Some(mut file) = self.open_locked_for_read()? else {
            return Ok(HistoryMetadata::default());
        };
        let log_id = file_identity(&file).map_err(|source| self.read_error(source))?;
        // Count newlines chunk by chunk: the history can be large and is never loaded whole here.
        let mut chunk = [0u8; 64 * 1024];
        let mut entry_count = 0usize;
        loop {
            let read = match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => read,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => return Err(self.read_error(source)),
            };
            entry_count += chunk
                .get(..read)
                .unwrap_or_default()
                .iter()
                .filter(|byte| **byte == b'\n')
                .count();
        }
        Ok(HistoryMetadata {
            log_id,
            entry_count,
        })
    }

    /// The entry on line `offset` (0-based) of the file whose identity is `log_id`; `None` when
    /// the file changed since `log_id` was read, or the line does not exist or is unreadable.
    pub fn lookup(
        &self,
        log_id: u64,
        offset: usize,
    ) -> Result<Option<HistoryEntry>, MessageHistoryError> {
        let Some(file) = self.open_locked_for_read()? else {
            return Ok(None);
        };
        if file_identity(&file).map_err(|source| self.read_error(source))? != log_id {
            return Ok(None);
        }
        let Some(line) = BufReader::new(&file).lines().nth(offset) else {
            return Ok(None);
        };
        let line = line.map_err(|source| self.read_error(source))?;
        match serde_json::from_str(&line) {
            Ok(entry) => Ok(Some(entry)),
            Err(err) => {
                tracing::warn!(path = %self.path.display(), line = offset + 1, %err, "unreadable history line");
                Ok(None)
            }
        }
    }

    /// Opens the file for appending (created `0600`) and takes the exclusive lock. Starts over
    /// when the file was swapped by a trim while this writer waited for the lock.
    ///
    /// The retry budget counts tries during which nothing happened to the file: while other
    /// writers append or trim, the lock is busy but nobody is stuck, and giving up would lose the
    /// prompt (eight processes appending as fast as they can starved writers out of ten tries a
    /// tenth of a second apart; see docs/reliability.md). Only a holder that keeps the lock
    /// while the file stands still for the whole budget makes the append fail.
    fn open_locked_for_append(&self) -> Result<File, MessageHistoryError> {
        let mut progress = self.progress_probe();
        loop {
            let file = self.open_for_append()?;
            lock_with_retries(&file, LockKind::Exclusive, self.lock_retry, &mut progress)
                .map_err(|err| self.lock_error(err))?;
            if self.is_current(&file) {
                return Ok(file);
            }
        }
    }

    /// A probe that tells, each time it is called, whether the file at the path changed
    /// (another identity or length) since the previous call.
    fn progress_probe(&self) -> impl FnMut() -> bool + use<'_> {
        let mut last = None;
        move || {
            let now = std::fs::metadata(&self.path)
                .ok()
                .map(|metadata| (metadata_identity(&metadata), metadata.len()));
            let changed = last.is_some() && now != last;
            last = now;
            changed
        }
    }

    fn open_for_append(&self) -> Result<File, MessageHistoryError> {
        let mut options = OpenOptions::new();
        options.read(true).append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options
            .open(&self.path)
            .map_err(|source| self.open_error(source))?;
        ensure_owner_only(&file).map_err(|source| self.open_error(source))?;
        Ok(file)
    }

    fn open_locked_for_read(&self) -> Result<Option<File>, MessageHistoryError> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(self.open_error(source)),
        };
        lock_with_retries(
            &file,
            LockKind::Shared,
            self.lock_retry,
            &mut self.progress_probe(),
        )
        .map_err(|err| self.lock_error(err))?;
        Ok(Some(file))
    }

    /// True when `file` is still the file at the path (not replaced by a trim).
    fn is_current(&self, file: &File) -> bool {
        match (file_identity(file), std::fs::metadata(&self.path)) {
            (Ok(open), Ok(on_disk)) => metadata_identity(&on_disk) == open,
            _ => false,
        }
    }

    /// Drops the oldest lines when the file is over the cap. Runs with the exclusive lock held.
    fn enforce_limit(&self, file: &mut File) -> Result<(), MessageHistoryError> {
        let Some(max_bytes) = self.max_bytes else {
            return Ok(());
        };
        let len = file
            .metadata()
            .map_err(|source| self.read_error(source))?
            .len();
        if len <= max_bytes {
            return Ok(());
        }
        let mut contents = Vec::new();
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_end(&mut contents))
            .map_err(|source| self.read_error(source))?;
        let keep_from = trim_offset(&contents, max_bytes);
        let tail = contents.get(keep_from..).unwrap_or_default();
        self.swap_contents(tail)
    }

    /// Replaces the history with `contents` atomically (temp file beside it, fsync, rename,
    /// fsync of the folder). The temp file is created with mode 0600, so the history stays
    /// private after the swap.
    fn swap_contents(&self, contents: &[u8]) -> Result<(), MessageHistoryError> {
        agentctx_atomic_file::write_atomically(&self.path, contents)
            .map_err(|source| self.write_error(source))
    }

    fn open_error(&self, source: std::io::Error) -> MessageHistoryError {
        MessageHistoryError::Open {
            path: self.path.clone(),
            source,
        }
    }

    fn read_error(&self, source: std::io::Error) -> MessageHistoryError {
        MessageHistoryError::Read {
            path: self.path.clone(),
            source,
        }
    }

    fn write_error(&self, source: std::io::Error) -> MessageHistoryError {
        MessageHistoryError::Write {
            path: self.path.clone(),
            source,
        }
    }

    /// The error of a failed lock.
    fn lock_error(&self, err: LockFailure) -> MessageHistoryError {
        match err {
            LockFailure::Busy { tries } => MessageHistoryError::LockTimeout {
                path: self.path.clone(),
                attempts: tries,
            },
            LockFailure::Io(source) => MessageHistoryError::Lock {
                path: self.path.clone(),
                source,
            },
        }
    }
}

/// The offset of the first line to keep so that what follows fits in
/// `max(max_bytes * 0.8, length of the newest line)`.
pub(crate) fn trim_offset(contents: &[u8], max_bytes: u64) -> usize {
    let len = contents.len();
    let soft_cap = (max_bytes as f64 * HISTORY_SOFT_CAP_RATIO).floor() as usize;
    // The newest line (with its newline) is always kept.
    let body = contents.strip_suffix(b"\n").unwrap_or(contents);
    let newest_start = body
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |index| index + 1);
    let soft_cap = soft_cap.max(len - newest_start);
    if len <= soft_cap {
        return 0;
    }
    let must_drop = len - soft_cap;
    // First line start at or after `must_drop`.
    let mut start = 0;
    for (index, byte) in contents.iter().enumerate() {
        if *byte == b'\n' {
            start = index + 1;
            if start >= must_drop {
                break;
            }
        }
    }
    start.min(newest_start)
}

#[derive(Debug, Clone, Copy)]
enum LockKind {
    Exclusive,
    Shared,
}

enum LockFailure {
    /// Still locked by another holder after this many tries.
    Busy {
        tries: u32,
    },
    Io(std::io::Error),
}

/// Tries to lock until `retry.attempts` tries in a row (at least one) found it busy while the
/// file did not change, pausing between tries; `progress` tells whether the file changed since
/// it was last asked, which starts the count again. Returns the tries since the last change.
fn lock_with_retries(
    file: &File,
    kind: LockKind,
    retry: LockRetry,
    progress: &mut dyn FnMut() -> bool,
) -> Result<u32, LockFailure> {
    let attempts = retry.attempts.max(1);
    let mut tries = 0;
    // The first call only records the file's state.
    progress();
    loop {
        tries += 1;
        let result = match kind {
            LockKind::Exclusive => file.try_lock(),
            LockKind::Shared => file.try_lock_shared(),
        };
        match result {
            Ok(()) => return Ok(tries),
            Err(std::fs::TryLockError::WouldBlock) if tries >= attempts => {
                return Err(LockFailure::Busy { tries });
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                thread::sleep(retry.pause);
                if progress() {
                    tries = 0;
                }
            }
            Err(std::fs::TryLockError::Error(err)) => return Err(LockFailure::Io(err)),
        }
    }
}

#[cfg(unix)]
fn ensure_owner_only(file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = file.metadata()?;
    if metadata.permissions().mode() & 0o777 != 0o600 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn ensure_owner_only(_file: &File) -> std::io::Result<()> {
    Ok(())
}

fn file_identity(file: &File) -> std::io::Result<u64> {
    Ok(metadata_identity(&file.metadata()?))
}

#[cfg(unix)]
fn metadata_identity(metadata: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    metadata.ino() ^ metadata.dev().rotate_left(32)
}

#[cfg(not(unix))]
fn metadata_identity(metadata: &std::fs::Metadata) -> u64 {
    metadata
        .created()
        .ok()
        .and_then(|created| created.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}

#[cfg(test)]
#[path = "message_history_tests.rs"]
mod tests;
