//! The `nested_memory` reminder (catalogue #5, spec §6.2.5): instruction files that sit near the
//! files the model read.
//!
//! For each file fully read since the last turn (the [`crate::FileTracker`]'s triggers), it walks
//! from the file's folder up to the working directory (inclusive) and includes the
//! [`PRIORITY_FILES`] it finds, nearest folder first. Each memory file is included once per
//! session; a host that already put the root `AGENTS.md` into the user instructions marks it with
//! [`crate::FileTracker::mark_memory_file_loaded`]. Reading a memory file directly marks it too.

use std::path::Component;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;

use crate::blocking::run_blocking;
use crate::file_content::MAX_READ_BYTES;
use crate::file_content::excerpt;
use crate::file_tracker::FileTracker;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The files looked for in each folder, in order: the spec's list, then the catalogue's local
/// and `.claude/` variants.
pub const PRIORITY_FILES: &[&str] = &[
    "CLAUDE.md",
    "README.md",
    ".cursorrules",
    ".github/CODE_STYLE.md",
    "AGENTS.md",
    "CLAUDE.local.md",
    ".claude/CLAUDE.md",
];

/// A memory file found for a trigger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// Its path.
    pub path: PathBuf,
    /// Its content (within the catalogue's limits).
    pub content: String,
    /// Lines left out by the limits.
    pub omitted_lines: usize,
}

/// Renders the reminder (spec §6.2.5 format).
pub fn render_nested_memory(files: &[MemoryFile]) -> String {
    files
        .iter()
        .map(|file| {
            let mut section = format!("Contents of {}:\n\n{}", file.path.display(), file.content);
            if file.omitted_lines > 0 {
                section.push_str(&format!(
                    "\n\n({} more lines not shown; read the file to see them)",
                    file.omitted_lines
                ));
            }
            section
        })
        .collect::<Vec<_>>()
        .join("\n\n---\n\n")
}

/// Generates the `nested_memory` reminder.
#[derive(Debug, Clone, Copy, Default)]
pub struct NestedMemoryGenerator;

impl NestedMemoryGenerator {
    /// A new generator.
    pub fn new() -> Self {
        Self
    }

    /// The memory files for `triggers` not yet included this session, marking them included.
    pub fn find_memory_files(
        &self,
        ctx: &GeneratorContext,
        triggers: &[PathBuf],
    ) -> Vec<MemoryFile> {
        find_memory_files(&ctx.cwd, &ctx.file_tracker, triggers)
    }
}

/// [`NestedMemoryGenerator::find_memory_files`] on the parts of the context it needs.
fn find_memory_files(cwd: &Path, tracker: &FileTracker, triggers: &[PathBuf]) -> Vec<MemoryFile> {
    let mut found = Vec::new();
    let cwd = normalize(cwd);
    for trigger in triggers {
        let trigger = absolute(&cwd, trigger);
        if is_priority_file(&trigger) {
            // The model read the memory file itself: it has seen it.
            tracker.mark_memory_file_loaded(&trigger);
            continue;
        }
        let mut folder = trigger.parent();
        while let Some(dir) = folder {
            if !dir.starts_with(&cwd) {
                break;
            }
            for name in PRIORITY_FILES {
                let candidate = dir.join(name);
                if tracker.is_memory_file_loaded(&candidate) || !candidate.is_file() {
                    continue;
                }
                match read_memory_file(&candidate) {
                    Ok(bytes) => {
                        tracker.mark_memory_file_loaded(&candidate);
                        let text = String::from_utf8_lossy(&bytes);
                        let window = excerpt(&text, 1, None);
                        found.push(MemoryFile {
                            path: candidate,
                            omitted_lines: window.total_lines.saturating_sub(window.num_lines),
                            content: window.text,
                        });
                    }
                    Err(error) => {
                        tracing::debug!(path = %candidate.display(), %error, "skipping unreadable memory file");
                    }
                }
            }
            if dir == cwd {
                break;
            }
            folder = dir.parent();
        }
    }
    found
}

/// `path` made absolute against `cwd` (`join` keeps an absolute `path` as it is), normalized.
fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    normalize(&cwd.join(path))
}

/// `path` with `.` and `..` resolved lexically, so a trigger like `cwd/../x` is seen outside
/// `cwd`. Nothing is resolved on disk, so symlink loops cannot trap the walk.
fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// Reads a memory file, refusing one larger than [`MAX_READ_BYTES`].
fn read_memory_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let len = std::fs::metadata(path)?.len();
    if len > MAX_READ_BYTES {
        return Err(std::io::Error::other(format!(
            "memory file too large ({len} bytes)"
        )));
    }
    std::fs::read(path)
}

fn is_priority_file(path: &Path) -> bool {
    PRIORITY_FILES.iter().any(|name| path.ends_with(name))
}

#[async_trait]
impl AttachmentGenerator for NestedMemoryGenerator {
    fn name(&self) -> &str {
        "nested_memory"
    }

    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::NestedMemory
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        let triggers = ctx.file_tracker.take_nested_memory_triggers();
        if triggers.is_empty() {
            return Ok(None);
        }
        // The walk reads files: off the async worker, so the timeout holds.
        let cwd = ctx.cwd.clone();
        let tracker = Arc::clone(&ctx.file_tracker);
        let files = run_blocking(self.name(), move || {
            find_memory_files(&cwd, &tracker, &triggers)
        })
        .await?;
        if files.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::NestedMemory,
            render_nested_memory(&files),
        )))
    }
}

#[cfg(test)]
#[path = "nested_memory_tests.rs"]
mod tests;
