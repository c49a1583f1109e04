//! Parsing `git status --porcelain=v1 -z` output.
//!
//! The `-z` form is used because it is the only one that is exact: paths are never quoted or
//! escaped (a path with spaces, quotes or non-ASCII bytes comes through verbatim), and a rename
//! or copy lists its new and old paths as two NUL-terminated fields instead of `old -> new`,
//! which is ambiguous when a path contains ` -> `. See git-status(1), "Porcelain Format
//! Version 1" (<https://git-scm.com/docs/git-status#_porcelain_format_version_1>).

use serde::Deserialize;
use serde::Serialize;

/// One entry of `git status --porcelain=v1 -z`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusEntry {
    /// The index (staged) status letter, `X`.
    pub index: char,
    /// The work-tree status letter, `Y`.
    pub worktree: char,
    /// The path, relative to the repository root (the new path of a rename or copy).
    pub path: String,
    /// The old path of a rename or copy.
    pub original_path: Option<String>,
}

impl StatusEntry {
    /// Every path this entry touches: the path, and the old path of a rename (which must be
    /// staged too, or the rename would be committed as a copy).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.original_path.as_deref())
    }

    /// True for a path git does not track yet (`??`).
    pub fn is_untracked(&self) -> bool {
        self.index == '?' && self.worktree == '?'
    }
}

/// A malformed porcelain record (git wrote something this parser does not understand).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed `git status --porcelain=v1 -z` record at byte {offset}: {record:?}")]
pub struct PorcelainError {
    /// Where the record starts in the output.
    pub offset: usize,
    /// The record, lossily decoded.
    pub record: String,
}

/// Parses the NUL-separated records of `git status --porcelain=v1 -z`. Paths that are not UTF-8
/// are decoded lossily (the replacement character marks the bad bytes).
pub fn parse_porcelain_z(output: &[u8]) -> Result<Vec<StatusEntry>, PorcelainError> {
    let mut entries = Vec::new();
    let mut offset = 0;
    let mut fields = output.split(|byte| *byte == 0).peekable();
    while let Some(record) = fields.next() {
        let start = offset;
        offset += record.len() + 1;
        if record.is_empty() {
            // The output ends with a NUL, which leaves one empty field at the end.
            if fields.peek().is_none() {
                break;
            }
            return Err(malformed(start, record));
        }
        let (Some(&x), Some(&y), Some(&b' ')) = (record.first(), record.get(1), record.get(2))
        else {
            return Err(malformed(start, record));
        };
        let path = record
            .get(3..)
            .filter(|path| !path.is_empty())
            .ok_or_else(|| malformed(start, record))?;
        let (index, worktree) = (char::from(x), char::from(y));
        let original_path = if matches!(index, 'R' | 'C') || matches!(worktree, 'R' | 'C') {
            let old = fields
                .next()
                .filter(|old| !old.is_empty())
                .ok_or_else(|| malformed(start, record))?;
            offset += old.len() + 1;
            Some(String::from_utf8_lossy(old).into_owned())
        } else {
            None
        };
        entries.push(StatusEntry {
            index,
            worktree,
            path: String::from_utf8_lossy(path).into_owned(),
            original_path,
        });
    }
    Ok(entries)
}

fn malformed(offset: usize, record: &[u8]) -> PorcelainError {
    PorcelainError {
        offset,
        record: String::from_utf8_lossy(record).into_owned(),
    }
}

#[cfg(test)]
#[path = "porcelain_tests.rs"]
mod tests;
