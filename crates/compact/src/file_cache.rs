//! The contents of recently read files, kept so a full compaction can put the newest of them
//! back. Bounded by a token budget: the least recently read files are evicted first, and each
//! file is cut to a per-file limit when it is recorded (see docs/design/compaction.md,
//! "Context restoration").

use std::path::Path;
use std::path::PathBuf;

use agentctx_context::TruncationPolicy;
use agentctx_context::approx_token_count;
use agentctx_context::truncate_text;

/// Tokens one file may occupy in the cache and in the restored context.
pub(crate) const MAX_TOKENS_PER_RESTORED_FILE: usize = 5_000;
/// Tokens all cached (and all restored) files may occupy together.
pub(crate) const RESTORED_FILES_TOKEN_BUDGET: usize = 50_000;

/// One cached file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedFile {
    /// The path as the read tool was given it.
    pub path: PathBuf,
    /// The contents, cut to the per-file limit.
    pub content: String,
    /// Whether the contents were cut.
    pub truncated: bool,
    /// Approximate tokens of `content`.
    pub tokens: usize,
}

/// Recently read files, least recently read first, within a token budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCache {
    entries: Vec<CachedFile>,
    total_tokens: usize,
    budget_tokens: usize,
    per_file_tokens: usize,
}

impl Default for FileCache {
    fn default() -> Self {
        Self::new(RESTORED_FILES_TOKEN_BUDGET, MAX_TOKENS_PER_RESTORED_FILE)
    }
}

impl FileCache {
    /// A cache of at most `budget_tokens`, each file cut to `per_file_tokens`.
    pub fn new(budget_tokens: usize, per_file_tokens: usize) -> Self {
        Self {
            entries: Vec::new(),
            total_tokens: 0,
            budget_tokens,
            per_file_tokens,
        }
    }

    /// Records a read of `path`: it becomes the most recently read file, and the least
    /// recently read ones are evicted until the cache fits its budget again.
    pub fn record_read(&mut self, path: impl Into<PathBuf>, content: &str) {
        let path = path.into();
        self.forget(&path);
        let original_tokens = token_count(content);
        let (content, truncated) = if original_tokens > self.per_file_tokens {
            (
                truncate_text(content, TruncationPolicy::Tokens(self.per_file_tokens)),
                true,
            )
        } else {
            (content.to_string(), false)
        };
        let tokens = token_count(&content);
        self.total_tokens = self.total_tokens.saturating_add(tokens);
        self.entries.push(CachedFile {
            path,
            content,
            truncated,
            tokens,
        });
        // The newest entry is never evicted, even when it alone exceeds the budget.
        while self.total_tokens > self.budget_tokens && self.entries.len() > 1 {
            let evicted = self.entries.remove(0);
            self.total_tokens = self.total_tokens.saturating_sub(evicted.tokens);
        }
    }

    /// Drops `path` (deleted, or its contents no longer valid).
    pub fn forget(&mut self, path: &Path) {
        if let Some(index) = self.entries.iter().position(|entry| entry.path == path) {
            let removed = self.entries.remove(index);
            self.total_tokens = self.total_tokens.saturating_sub(removed.tokens);
        }
    }

    /// The cached files, most recently read first.
    pub fn most_recent_first(&self) -> impl Iterator<Item = &CachedFile> {
        self.entries.iter().rev()
    }

    /// The cached entry of `path`.
    pub fn get(&self, path: &Path) -> Option<&CachedFile> {
        self.entries.iter().find(|entry| entry.path == path)
    }

    /// How many files are cached.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no file is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Approximate tokens of all cached contents.
    pub fn total_tokens(&self) -> usize {
        self.total_tokens
    }
}

pub(crate) fn token_count(text: &str) -> usize {
    usize::try_from(approx_token_count(text)).unwrap_or(usize::MAX)
}

#[cfg(test)]
#[path = "file_cache_tests.rs"]
mod tests;
