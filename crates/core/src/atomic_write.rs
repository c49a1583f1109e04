//! Atomic file writes: a temp file in the same folder, fsynced, then renamed over the target,
//! so a crash never leaves a torn file.

use std::io::Write;
use std::path::Path;

/// Writes `content` to `path` atomically, creating missing parent folders.
pub(crate) fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let parent = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let mut temp = tempfile::NamedTempFile::new_in(parent)?;
    temp.write_all(content)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|err| err.error)?;
    Ok(())
}
