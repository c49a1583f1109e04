//! IDE context (`ide_selection`, `ide_opened_file`), read through
//! [`crate::providers::IdeProvider`]. Each is reported when it changes: a new selection, or a
//! newly opened file while nothing is selected.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::providers::IdeOpenedFile;
use crate::providers::IdeSelection;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Selections longer than this many characters are cut.
pub(crate) const MAX_SELECTION_CHARS: usize = 2_000;

/// The reminder for a selection.
pub(crate) fn render_ide_selection(selection: &IdeSelection) -> String {
    let content = if selection.content.chars().count() > MAX_SELECTION_CHARS {
        let cut = selection
            .content
            .chars()
            .take(MAX_SELECTION_CHARS)
            .collect::<String>();
        format!("{cut}\n... (truncated)")
    } else {
        selection.content.clone()
    };
    format!(
        "The user selected the lines {} to {} from {}:\n{content}\n\nThis may or may not be related to the current task.",
        selection.line_start,
        selection.line_end,
        selection.filename.display()
    )
}

/// The reminder for an opened file.
pub(crate) fn render_ide_opened_file(file: &IdeOpenedFile) -> String {
    format!(
        "The user opened the file {} in the IDE. This may or may not be related to the current task.",
        file.filename.display()
    )
}

/// Generates the IDE selection reminder.
#[derive(Debug, Default)]
pub(crate) struct IdeSelectionGenerator {
    last: LastReported<Option<IdeSelection>>,
}

impl IdeSelectionGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let selection = ctx
            .providers
            .ide
            .selection()
            .filter(|selection| !selection.content.is_empty());
        if !self.last.changed(&selection) {
            return Ok(None);
        }
        Ok(selection.map(|selection| {
            SystemReminder::new(
                AttachmentType::IdeSelection,
                render_ide_selection(&selection),
            )
        }))
    }
}

#[async_trait]
impl AttachmentGenerator for IdeSelectionGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::IdeSelection
    }

    fn reset(&self) {
        self.last.forget();
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

/// Generates the IDE opened-file reminder (only while nothing is selected).
#[derive(Debug, Default)]
pub(crate) struct IdeOpenedFileGenerator {
    last: LastReported<Option<IdeOpenedFile>>,
}

impl IdeOpenedFileGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let ide = &ctx.providers.ide;
        let selected = ide
            .selection()
            .is_some_and(|selection| !selection.content.is_empty());
        let file = if selected { None } else { ide.opened_file() };
        if !self.last.changed(&file) {
            return Ok(None);
        }
        Ok(file.map(|file| {
            SystemReminder::new(AttachmentType::IdeOpenedFile, render_ide_opened_file(&file))
        }))
    }
}

#[async_trait]
impl AttachmentGenerator for IdeOpenedFileGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::IdeOpenedFile
    }

    fn reset(&self) {
        self.last.forget();
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "ide_tests.rs"]
mod tests;
