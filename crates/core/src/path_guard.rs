//! Keeps file tools inside the working directory.
//!
//! A path from the model is resolved against the working directory and refused when it leaves
//! it: through `..`, as an absolute path elsewhere, or through a symlink whose target is outside
//! (the deepest existing ancestor is canonicalised, so a link anywhere on the way counts). The
//! session's own files outside the working directory (the plan file under the home) are allowed
//! one by one, and the read-only tools may also read inside the session's readable folders (the
//! persisted tool results, the memory folder: [`resolve_readable`]). See docs/design/core.md,
//! "Tools".

use std::path::Component;
use std::path::Path;
use std::path::PathBuf;

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PathEscape {
    /// The path is empty.
    #[error("empty path")]
    Empty,
    /// The path, written out, lies outside the working directory.
    #[error("{path} is outside the working directory {cwd}; file tools only work inside it")]
    Outside {
        /// The path as given.
        path: String,
        /// The working directory.
        cwd: PathBuf,
    },
    /// A symlink on the way leads outside the working directory.
    #[error("{path} leads outside the working directory {cwd} through a symlink; refused")]
    Symlink {
        /// The path as given.
        path: String,
        /// The working directory.
        cwd: PathBuf,
    },
}

/// Resolves `raw` (relative to `cwd`, or absolute) to a path inside `cwd`, or to one of
/// `allowed_files` exactly.
pub(crate) fn resolve_in_cwd(
    cwd: &Path,
    allowed_files: &[PathBuf],
    raw: &str,
) -> Result<PathBuf, PathEscape> {
    if raw.trim().is_empty() {
        return Err(PathEscape::Empty);
    }
    let joined = normalize(&cwd.join(raw));
    if allowed_files.iter().any(|file| normalize(file) == joined) {
        return Ok(joined);
    }
    let cwd_norm = normalize(cwd);
    if !joined.starts_with(&cwd_norm) {
        return Err(PathEscape::Outside {
            path: raw.to_string(),
            cwd: cwd.to_path_buf(),
        });
    }
    let cwd_real = cwd.canonicalize().unwrap_or_else(|_| cwd_norm.clone());
    // The deepest ancestor that exists, canonicalised, tells where the path really goes; the
    // rest does not exist yet and so holds no symlink.
    let mut existing = joined.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if existing.symlink_metadata().is_ok() {
            break;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => break,
        }
    }
    let real_base = existing.canonicalize().map_err(|_| PathEscape::Symlink {
        path: raw.to_string(),
        cwd: cwd.to_path_buf(),
    })?;
    if !real_base.starts_with(&cwd_real) {
        return Err(PathEscape::Symlink {
            path: raw.to_string(),
            cwd: cwd.to_path_buf(),
        });
    }
    Ok(rest
        .iter()
        .rev()
        .fold(real_base, |path, name| path.join(name)))
}

/// Resolves `raw` for a tool that only reads: inside `cwd` (or one of `allowed_files`) as
/// [`resolve_in_cwd`] does, else inside one of `readable_dirs` — folders of the session outside
/// the working directory that the model is pointed to (the tool results micro-compaction
/// persisted, the memory folder) — its real path, links resolved, still inside that folder.
/// Every other path outside the working directory is refused as [`resolve_in_cwd`] refuses it.
pub(crate) fn resolve_readable(
    cwd: &Path,
    allowed_files: &[PathBuf],
    readable_dirs: &[PathBuf],
    raw: &str,
) -> Result<PathBuf, PathEscape> {
    let outside = match resolve_in_cwd(cwd, allowed_files, raw) {
        Err(outside @ PathEscape::Outside { .. }) => outside,
        resolved => return resolved,
    };
    let joined = normalize(&cwd.join(raw));
    for dir in readable_dirs {
        if !joined.starts_with(normalize(dir)) {
            continue;
        }
        let Ok(real_dir) = dir.canonicalize() else {
            // The folder does not exist: nothing in it to read.
            return Ok(joined);
        };
        return match joined.canonicalize() {
            Ok(real) if real.starts_with(&real_dir) => Ok(real),
            Ok(_) => Err(PathEscape::Symlink {
                path: raw.to_string(),
                cwd: cwd.to_path_buf(),
            }),
            // Not there: the read fails as a missing file does.
            Err(_) => Ok(joined),
        };
    }
    Err(outside)
}

/// Removes `.` and folds `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
#[path = "path_guard_tests.rs"]
mod tests;
