//! The memory folder (`AGENTCTX_HOME/memories`): its layout, the file names of rollout
//! summaries, the regenerated `raw_memories.md`, and atomic writes.
//!
//! Every file is written through a temp file in the same folder (named with
//! [`TEMP_FILE_PREFIX`]), fsynced and renamed over the target, so a crash never leaves a torn
//! file; temp files a killed process left behind are removed by the next phase 2. See
//! docs/design/memory.md, "The memory folder".

use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;

use chrono::DateTime;
use chrono::SecondsFormat;
use chrono::Utc;

use crate::error::MemoryError;
use crate::state_db::StoredOutput;

/// The memory folder under `AGENTCTX_HOME`.
pub const MEMORIES_DIR: &str = "memories";
/// Always injected (truncated) into developer instructions.
pub const MEMORY_SUMMARY_FILE: &str = "memory_summary.md";
/// The handbook of task learnings.
pub const MEMORY_FILE: &str = "MEMORY.md";
/// Phase-1 raw memories merged, newest first (phase 2's input).
pub const RAW_MEMORIES_FILE: &str = "raw_memories.md";
/// One summary per rollout.
pub const ROLLOUT_SUMMARIES_DIR: &str = "rollout_summaries";
/// Reusable procedures, `skills/<name>/SKILL.md`.
pub const SKILLS_DIR: &str = "skills";
/// Prefix of the temp files of atomic writes (the shared writer's).
pub use agentctx_atomic_file::TEMP_FILE_PREFIX;
/// Longest slug part of a rollout summary file name.
const MAX_SLUG_CHARS: usize = 60;
/// `62^4`: the hash part of a file name is four base-62 digits.
const HASH_SPACE: u64 = 14_776_336;
const BASE62: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The memory folder of `home`.
pub fn memory_root(home: &Path) -> PathBuf {
    home.join(MEMORIES_DIR)
}

/// Writes `bytes` to `path` atomically (temp file in the same folder, fsync, rename, fsync of
/// the folder), creating the folder when missing.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), MemoryError> {
    let io = |source| MemoryError::Io {
        action: "cannot write",
        path: path.to_path_buf(),
        source,
    };
    agentctx_atomic_file::write_atomically(path, bytes).map_err(io)
}

/// Writes `text` unless the file already holds exactly it; true when it wrote.
pub(crate) fn write_if_changed(path: &Path, text: &str) -> Result<bool, MemoryError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    write_atomically(path, text.as_bytes())?;
    Ok(true)
}

/// The file stem of a rollout summary: `YYYY-MM-DDTHH-MM-SS-<hash4>[-<slug>]`. The time is the
/// one in a UUIDv7 thread id, else the source's `updated_at`; the hash makes two threads of the
/// same second distinct.
pub fn rollout_summary_stem(thread_id: &str, updated_at: i64, slug: Option<&str>) -> String {
    let uuid = uuid::Uuid::parse_str(thread_id).ok();
    let seconds = uuid
        .as_ref()
        .and_then(uuid::Uuid::get_timestamp)
        .map(|ts| ts.to_unix().0)
        .and_then(|secs| i64::try_from(secs).ok())
        .unwrap_or(updated_at);
    let time = DateTime::<Utc>::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H-%M-%S");
    let low = match uuid {
        Some(uuid) => (uuid.as_u128() & 0xFFFF_FFFF) as u64,
        None => u64::from(fnv1a32(thread_id)),
    };
    let mut value = low % HASH_SPACE;
    let mut hash = [b'0'; 4];
    for digit in hash.iter_mut().rev() {
        *digit = BASE62.get((value % 62) as usize).copied().unwrap_or(b'0');
        value /= 62;
    }
    let hash = String::from_utf8_lossy(&hash).into_owned();
    match slug.map(normalize_slug).filter(|slug| !slug.is_empty()) {
        Some(slug) => format!("{time}-{hash}-{slug}"),
        None => format!("{time}-{hash}"),
    }
}

/// A slug made safe for a file name: lowercase, non-alphanumerics to `_`, at most 60 chars,
/// no trailing `_`.
pub fn normalize_slug(slug: &str) -> String {
    let mapped: String = slug
        .chars()
        .take(MAX_SLUG_CHARS)
        .map(|ch| {
            if ch.is_ascii_alphanumeric() {
                ch.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    mapped.trim_end_matches('_').to_string()
}

fn fnv1a32(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// RFC 3339 of unix seconds (UTC).
pub(crate) fn rfc3339(seconds: i64) -> String {
    DateTime::<Utc>::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The stem of `output`'s rollout summary file.
pub(crate) fn stem_of(output: &StoredOutput) -> String {
    rollout_summary_stem(
        &output.thread.id,
        output.source_updated_at,
        output.output.rollout_slug.as_deref(),
    )
}

/// The text of a rollout summary file.
pub(crate) fn rollout_summary_file_text(output: &StoredOutput) -> String {
    let thread = &output.thread;
    let mut text = format!(
        "thread_id: {}\nupdated_at: {}\nrollout_path: {}\ncwd: {}\n",
        thread.id,
        rfc3339(output.source_updated_at),
        thread.rollout_path.display(),
        thread.cwd.as_deref().unwrap_or("unknown"),
    );
    if let Some(branch) = &thread.git_branch {
        text.push_str(&format!("git_branch: {branch}\n"));
    }
    text.push('\n');
    text.push_str(output.output.rollout_summary.trim());
    text.push('\n');
    text
}

/// Writes one summary file per retained output and removes the files of outputs no longer
/// retained. Returns the stems written or kept.
pub(crate) fn sync_rollout_summaries(
    root: &Path,
    outputs: &[StoredOutput],
) -> Result<BTreeSet<String>, MemoryError> {
    let dir = root.join(ROLLOUT_SUMMARIES_DIR);
    std::fs::create_dir_all(&dir).map_err(|source| MemoryError::Io {
        action: "cannot create",
        path: dir.clone(),
        source,
    })?;
    let mut keep = BTreeSet::new();
    for output in outputs {
        let stem = stem_of(output);
        write_if_changed(
            &dir.join(format!("{stem}.md")),
            &rollout_summary_file_text(output),
        )?;
        keep.insert(stem);
    }
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let is_md = path.extension().is_some_and(|ext| ext == "md");
            let stem = path
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned());
            if is_md && stem.is_some_and(|stem| !keep.contains(&stem)) {
                std::fs::remove_file(&path).map_err(|source| MemoryError::Io {
                    action: "cannot remove",
                    path: path.clone(),
                    source,
                })?;
            }
        }
    }
    Ok(keep)
}

/// The text of `raw_memories.md` for `outputs` (given newest first).
pub(crate) fn raw_memories_text(outputs: &[StoredOutput]) -> String {
    let mut text = String::from("# Raw Memories\n\n");
    if outputs.is_empty() {
        text.push_str("No raw memories yet.\n");
        return text;
    }
    text.push_str("Merged stage-1 raw memories (latest first):\n\n");
    for output in outputs {
        let thread = &output.thread;
        text.push_str(&format!(
            "## Thread `{}`\nupdated_at: {}\ncwd: {}\nrollout_path: {}\nrollout_summary_file: {}.md\n\n{}\n\n",
            thread.id,
            rfc3339(output.source_updated_at),
            thread.cwd.as_deref().unwrap_or("unknown"),
            thread.rollout_path.display(),
            stem_of(output),
            output.output.raw_memory.trim(),
        ));
    }
    text
}

/// Rebuilds `raw_memories.md` from `outputs` (newest first).
pub(crate) fn rebuild_raw_memories(
    root: &Path,
    outputs: &[StoredOutput],
) -> Result<(), MemoryError> {
    write_if_changed(&root.join(RAW_MEMORIES_FILE), &raw_memories_text(outputs))?;
    Ok(())
}

/// Reads a file of the memory folder; `None` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, MemoryError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(MemoryError::Io {
            action: "cannot read",
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Removes the consolidated files (no memories left to consolidate).
pub(crate) fn remove_consolidated(root: &Path) -> Result<(), MemoryError> {
    for name in [MEMORY_FILE, MEMORY_SUMMARY_FILE] {
        let path = root.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(MemoryError::Io {
                    action: "cannot remove",
                    path,
                    source,
                });
            }
        }
    }
    let skills = root.join(SKILLS_DIR);
    match std::fs::remove_dir_all(&skills) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(MemoryError::Io {
            action: "cannot remove",
            path: skills,
            source,
        }),
    }
}

#[cfg(test)]
#[path = "storage_tests.rs"]
mod tests;
