//! The `changed_files` reminder: files the model read that changed on disk since (see
//! docs/design/reminders.md, "changed_files").
//!
//! It carries diffs only, never whole files. The diffs of one turn stay under a token cap
//! (default 5,000, [`crate::GeneratorContext::changed_files_token_cap`]); files that do not fit
//! are named in a closing note instead. A deleted file is reported as deleted. A file is diffed
//! against what the model last saw, so two edits before the model saw the first give one
//! combined diff. Every reported file is acknowledged in the [`crate::FileTracker`], so the
//! same change is never reported twice.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use crate::blocking::run_blocking;
use crate::diff::DiffOptions;
use crate::diff::unified_diff_with_line_numbers;
use crate::file_tracker::FileChange;
use crate::file_tracker::FileChangeKind;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;
use agentctx_context::approx_token_count;

/// The section of one modified file, word for word as docs/design/reminders.md gives it (Claude
/// Code's wording), with its closing blank line: sections are concatenated.
pub(crate) fn render_modified(path: &Path, diff: &str) -> String {
    format!(
        "Note: {} was modified, either by the user or by a linter. This change was intentional, so make sure to take it into account as you proceed (ie. don't revert it unless the user asks you to). Don't tell the user this, since they are already aware. Here are the relevant changes (shown with line numbers):\n{diff}\n\n",
        path.display()
    )
}

/// The section of one deleted file, closed like a modified one.
pub(crate) fn render_deleted(path: &Path) -> String {
    format!(
        "Note: {} was deleted, either by the user or by another process. It no longer exists, so don't rely on the contents you read earlier and don't recreate it unless the user asks you to. Don't tell the user this, since they are already aware.\n\n",
        path.display()
    )
}

/// The closing note naming the files whose diffs did not fit under the cap; `after_others` when
/// other files' changes were shown above it.
pub(crate) fn render_cut_note(cut: &[&Path], token_cap: usize, after_others: bool) -> String {
    let count = cut.len();
    let also = if after_others { " also" } else { "" };
    let mut note = format!(
        "Note: {count} file(s) you read were{also} modified, but their changes are not shown to keep this reminder under {token_cap} tokens. Read them again before relying on their contents:"
    );
    for path in cut {
        let _ = write!(note, "\n- {}", path.display());
    }
    note
}

/// Generates the `changed_files` reminder.
#[derive(Debug, Clone, Default)]
pub struct ChangedFilesGenerator {
    diff_options: DiffOptions,
}

impl ChangedFilesGenerator {
    /// A generator with the given diff options.
    pub fn with_diff_options(diff_options: DiffOptions) -> Self {
        Self { diff_options }
    }

    /// The reminder text for `changes`: one section per file while the total stays under
    /// `token_cap` (each ends with a blank line), then a note naming the files
    /// that were cut. `None` when nothing remains.
    pub fn render(&self, changes: &[FileChange], token_cap: usize) -> Option<String> {
        let mut sections: Vec<String> = Vec::new();
        let mut cut: Vec<&Path> = Vec::new();
        let mut used = 0usize;
        for change in changes {
            let section = match &change.kind {
                FileChangeKind::Deleted => render_deleted(&change.path),
                FileChangeKind::Modified { old, new, .. } => {
                    let diff = unified_diff_with_line_numbers(old, new, self.diff_options);
                    if diff.is_empty() {
                        continue;
                    }
                    render_modified(&change.path, &diff)
                }
            };
            let cost = usize::try_from(approx_token_count(&section)).unwrap_or(usize::MAX);
            if used.saturating_add(cost) > token_cap {
                cut.push(&change.path);
                continue;
            }
            used += cost;
            sections.push(section);
        }
        if !cut.is_empty() {
            let note = render_cut_note(&cut, token_cap, !sections.is_empty());
            sections.push(note);
        }
        if sections.is_empty() {
            None
        } else {
            Some(sections.concat())
        }
    }
}

#[async_trait]
impl AttachmentGenerator for ChangedFilesGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::ChangedFiles
    }

    /// An idle turn (nothing tracked, or every file on a local disk with its stamp unchanged)
    /// is known from a `stat` per file, which on a local file system answers at once: checked
    /// inline, without the hop to the blocking pool, which costs more than those `stat`s.
    /// Files on network or FUSE mounts, whose `stat` can hang, are never looked at here.
    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        ctx.file_tracker
            .unchanged_by_local_stamps()
            .then_some(Ok(None))
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        if let Some(answer) = self.generate_now(ctx) {
            return answer;
        }
        // Detecting and diffing reads files: off the async worker, so the timeout holds. The
        // changes are acknowledged only once the result is back, so a turn that times out
        // leaves them to be reported on the next one.
        let tracker = Arc::clone(&ctx.file_tracker);
        let generator = self.clone();
        let token_cap = ctx.changed_files_token_cap;
        let (changes, content) = run_blocking(self.name(), move || {
            let changes = tracker.detect_changes();
            let content = generator.render(&changes, token_cap);
            (changes, content)
        })
        .await?;
        for change in &changes {
            ctx.file_tracker.acknowledge(change);
        }
        Ok(content.map(|content| SystemReminder::new(AttachmentType::ChangedFiles, content)))
    }
}

#[cfg(test)]
#[path = "changed_files_tests.rs"]
mod tests;
