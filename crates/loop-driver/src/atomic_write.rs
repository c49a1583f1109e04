//! Writing a file so that a crash never leaves it torn: a temp file in the same folder, fsync,
//! rename over the target, then fsync of the folder so the rename itself is durable.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating the parent folder when missing. A reader sees
/// either the old content or the new, never a mix, whatever happens during the write.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|err| err.error)?;
    sync_dir(dir)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
#[path = "atomic_write_tests.rs"]
mod tests;
