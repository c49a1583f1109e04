//! The read-set ledger: every file the model has read this session, with a hash of what it
//! read. It survives compaction, so after a summary the model is told which files it has
//! already seen instead of reading them all again, and the host can tell whether a file
//! changed since (see docs/design/compaction.md, "Context restoration").

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::XmlTag;

/// The ledger text: the intro line, then one `- path` line per file.
pub(crate) const READ_LEDGER_TEMPLATE: &str = include_str!("../templates/read_ledger.md");

/// What the ledger knows of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    /// Hash of the contents last read (64-bit FNV-1a, hex): a change detector, not a
    /// cryptographic digest.
    pub content_hash: String,
    /// Order of the last read (higher is newer).
    pub last_read: u64,
}

/// Paths and content hashes of the files read this session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadLedger {
    entries: BTreeMap<PathBuf, LedgerEntry>,
    reads: u64,
}

impl ReadLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that `path` was read with `content`.
    pub fn record_read(&mut self, path: impl Into<PathBuf>, content: &str) {
        self.reads = self.reads.saturating_add(1);
        self.entries.insert(
            path.into(),
            LedgerEntry {
                content_hash: content_hash(content),
                last_read: self.reads,
            },
        );
    }

    /// The entry of `path`, if it was read.
    pub fn get(&self, path: &Path) -> Option<&LedgerEntry> {
        self.entries.get(path)
    }

    /// True when `path` was read and `current` is what was read.
    pub fn is_unchanged(&self, path: &Path, current: &str) -> bool {
        self.get(path)
            .is_some_and(|entry| entry.content_hash == content_hash(current))
    }

    /// Every path read, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.entries.keys().map(PathBuf::as_path)
    }

    /// How many files were read.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was read.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The reminder that lists the files read, most recently read first; `None` when nothing
    /// was read.
    pub fn render(&self) -> Option<String> {
        self.listing()
            .map(|text| XmlTag::SystemReminder.wrap(&text))
    }

    /// The text of [`ReadLedger::render`] before it is wrapped in `<system-reminder>`.
    pub(crate) fn listing(&self) -> Option<String> {
        if self.entries.is_empty() {
            return None;
        }
        let mut entries: Vec<(&PathBuf, &LedgerEntry)> = self.entries.iter().collect();
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.1.last_read));
        let lines = entries
            .iter()
            .map(|(path, _)| format!("- {}", path.display()))
            .collect::<Vec<_>>()
            .join("\n");
        Some(READ_LEDGER_TEMPLATE.replace("{lines}", &lines))
    }
}

/// 64-bit FNV-1a of `text`, as 16 hex digits. Deterministic across runs and platforms.
pub fn content_hash(text: &str) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = text.bytes().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    });
    format!("{hash:016x}")
}

#[cfg(test)]
#[path = "read_ledger_tests.rs"]
mod tests;
