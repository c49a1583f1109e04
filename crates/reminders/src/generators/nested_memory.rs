//! The `nested_memory` reminder: instruction files that sit near the files the model read (see
//! docs/design/reminders.md, "nested_memory").
//!
//! For each file fully read since the last turn (the [`crate::FileTracker`]'s triggers), it walks
//! from the file's folder up to the working directory (inclusive) and includes the
//! [`PRIORITY_FILES`] it finds, nearest folder first. Each memory file is included once per
//! session; a host that already put the root `AGENTS.md` into the user instructions marks it with
//! [`crate::FileTracker::mark_memory_file_loaded`]. Reading a memory file directly marks it too.
//! A memory file's `@path` imports follow it, up to [`MAX_IMPORT_DEPTH`] levels, inside the
//! working directory.

use std::collections::BTreeSet;
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
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::generators::at_mentioned_files::parse_file_mentions;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The files looked for in each folder, in order: the common instruction files, then the local
/// and `.claude/` variants.
pub(crate) const PRIORITY_FILES: &[&str] = &[
    "CLAUDE.md",
    "README.md",
    ".cursorrules",
    ".github/CODE_STYLE.md",
    "AGENTS.md",
    "CLAUDE.local.md",
    ".claude/CLAUDE.md",
];

/// Most levels of `@path` imports followed from a memory file (`MAX_IMPORT_DEPTH`).
pub(crate) const MAX_IMPORT_DEPTH: usize = 5;

/// A memory file found for a trigger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemoryFile {
    /// Its path.
    pub path: PathBuf,
    /// Its content (within the catalogue's limits).
    pub content: String,
    /// Lines left out by the limits.
    pub omitted_lines: usize,
}

/// Renders the reminder: one section per file, separated by a rule.
pub(crate) fn render_nested_memory(files: &[MemoryFile]) -> String {
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
pub(crate) struct NestedMemoryGenerator;

/// What one walk found. Nothing is marked loaded during the walk: the walk runs on the
/// blocking pool, and a run the orchestrator's timeout dropped must leave no trace (see
/// docs/design/reminders.md, "Timeouts leave no trace"), so the marks wait for
/// [`MemoryWalk::commit`].
#[derive(Debug, Default)]
struct MemoryWalk {
    /// The memory files to show, nearest folder first.
    files: Vec<MemoryFile>,
    /// Every memory file the model will have seen: those in `files`, and those it read itself.
    seen: BTreeSet<PathBuf>,
}

impl MemoryWalk {
    fn is_seen(&self, tracker: &FileTracker, path: &Path) -> bool {
        self.seen.contains(path) || tracker.is_memory_file_loaded(path)
    }

    /// Marks the memory files of this walk loaded: the reminder that shows them is delivered.
    fn commit(&self, tracker: &FileTracker) {
        for path in &self.seen {
            tracker.mark_memory_file_loaded(path);
        }
    }
}

/// The memory files for `triggers` not yet included this session (nearest folder first), without
/// marking anything.
fn find_memory_files(cwd: &Path, tracker: &FileTracker, triggers: &[PathBuf]) -> MemoryWalk {
    let mut walk = MemoryWalk::default();
    let cwd = normalize(cwd);
    for trigger in triggers {
        let trigger = absolute(&cwd, trigger);
        if is_priority_file(&trigger) {
            // The model read the memory file itself: it has seen it.
            walk.seen.insert(trigger);
            continue;
        }
        let mut folder = trigger.parent();
        while let Some(dir) = folder {
            if !dir.starts_with(&cwd) {
                break;
            }
            for name in PRIORITY_FILES {
                include(&dir.join(name), &cwd, tracker, 0, &mut walk);
            }
            if dir == cwd {
                break;
            }
            folder = dir.parent();
        }
    }
    walk
}

/// Includes the memory file `path` unless it was already included or is not a readable file,
/// then the files it imports (`@path` on a line outside code fences, relative to its folder),
/// up to [`MAX_IMPORT_DEPTH`] levels. Imports stay inside `cwd`; including a file marks it
/// seen, so an import cycle ends.
fn include(path: &Path, cwd: &Path, tracker: &FileTracker, depth: usize, walk: &mut MemoryWalk) {
    if walk.is_seen(tracker, path) || !path.is_file() {
        return;
    }
    let bytes = match read_memory_file(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::debug!(path = %path.display(), %error, "skipping unreadable memory file");
            return;
        }
    };
    walk.seen.insert(path.to_path_buf());
    let text = String::from_utf8_lossy(&bytes);
    let window = excerpt(&text, 1, None);
    walk.files.push(MemoryFile {
        path: path.to_path_buf(),
        omitted_lines: window.total_lines.saturating_sub(window.num_lines),
        content: window.text,
    });
    if depth >= MAX_IMPORT_DEPTH {
        return;
    }
    let folder = path.parent().unwrap_or(cwd);
    for import in parse_file_mentions(&outside_code_fences(&text), &|_| false) {
        if import.path.starts_with('~') {
            // The home folder is the host's business, not a project import.
            continue;
        }
        let imported = absolute(folder, Path::new(&import.path));
        if imported.starts_with(cwd) {
            include(&imported, cwd, tracker, depth + 1, walk);
        }
    }
}

/// The lines of `text` outside fenced code blocks (an `@` in code is not an import).
fn outside_code_fences(text: &str) -> String {
    let mut in_fence = false;
    let mut kept = String::with_capacity(text.len());
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
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
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::NestedMemory
    }

    /// Nothing to say when no file read since the last run was under a directory not yet looked
    /// at.
    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        ctx.file_tracker
            .nested_memory_triggers()
            .is_empty()
            .then_some(Ok(None))
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        let triggers = ctx.file_tracker.nested_memory_triggers();
        if triggers.is_empty() {
            return Ok(None);
        }
        // The walk reads files: off the async worker, so the timeout holds. The triggers stay
        // and nothing is marked loaded until the result is back, so a run the timeout dropped
        // is simply done again on the next turn.
        let cwd = ctx.cwd.clone();
        let tracker = Arc::clone(&ctx.file_tracker);
        let (walk, triggers) = run_blocking(self.name(), move || {
            let walk = find_memory_files(&cwd, &tracker, &triggers);
            (walk, triggers)
        })
        .await?;
        walk.commit(&ctx.file_tracker);
        ctx.file_tracker.remove_nested_memory_triggers(&triggers);
        if walk.files.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::NestedMemory,
            render_nested_memory(&walk.files),
        )))
    }
}

#[cfg(test)]
#[path = "nested_memory_tests.rs"]
mod tests;
