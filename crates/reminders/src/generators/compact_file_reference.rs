//! Compact file references (`compact_file_reference`): files read before the last
//! compaction that were too large to re-include. Reported once per compaction (when the list
//! changes).

use std::path::PathBuf;

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The note for one file.
pub(crate) fn render_compact_file_reference(filename: &std::path::Path) -> String {
    agentctx_protocol::compact_file_reference_text(&filename.display().to_string())
}

/// Generates compact file references.
#[derive(Debug, Default)]
pub(crate) struct CompactFileReferenceGenerator {
    last: LastReported<Vec<PathBuf>>,
}

impl CompactFileReferenceGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let files = &ctx.compact_file_references;
        if !self.last.changed(files) || files.is_empty() {
            return Ok(None);
        }
        let content = files
            .iter()
            .map(|file| render_compact_file_reference(file))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(Some(SystemReminder::new(
            AttachmentType::CompactFileReference,
            content,
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for CompactFileReferenceGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::CompactFileReference
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
#[path = "compact_file_reference_tests.rs"]
mod tests;
