//! `agentctx-atomic-file`: the one way agentctx writes a file it owns, so that a crash never
//! leaves it torn.
//!
//! Floor 0: it depends on no other agentctx crate, so every crate that writes files (skills'
//! usage file, compaction's session memory and tool results, the memory folder, the loop
//! context, the core's plan files and edits) shares this one implementation.
//!
//! A write goes to a temp file in the target's own folder (named with [`TEMP_FILE_PREFIX`]),
//! is fsynced, renamed over the target (atomic on POSIX file systems), and the folder is
//! fsynced so the rename itself survives a power loss. A reader sees the old content or the
//! new, never a mix. A process killed between the steps can leave a temp file behind, never a
//! torn target; [`remove_stale_temp_files`] removes such leftovers.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("notes/summary.md");
//! agentctx_atomic_file::write_atomically(&path, b"# Summary\n")?;
//! assert_eq!(std::fs::read_to_string(&path)?, "# Summary\n");
//! assert_eq!(agentctx_atomic_file::remove_stale_temp_files(dir.path()), 0);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::Write;
use std::path::Path;

/// Prefix of the temp files of atomic writes, so leftovers of a killed writer can be found.
pub const TEMP_FILE_PREFIX: &str = ".agentctx-tmp-";

/// Writes `bytes` to `path` atomically, creating the parent folder when missing. A reader sees
/// either the old content or the new, never a mix, whatever happens during the write.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_FILE_PREFIX)
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|err| err.error)?;
    sync_dir(dir)
}

/// Fsyncs a folder so a rename inside it is durable.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Fsyncs a folder so a rename inside it is durable (a no-op where folders cannot be opened).
#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Removes the temp files of atomic writes a killed process left anywhere under `root`;
/// returns how many. Folders it cannot read are skipped.
pub fn remove_stale_temp_files(root: &Path) -> usize {
    let mut removed = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if entry
                .file_name()
                .to_string_lossy()
                .starts_with(TEMP_FILE_PREFIX)
                && std::fs::remove_file(&path).is_ok()
            {
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
