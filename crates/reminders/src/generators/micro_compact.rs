//! Micro-compact notice (`micro_compact`): old tool results were cleared to save
//! context since the last turn.

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The notice for `cleared_count` cleared tool results.
pub(crate) fn render_micro_compact(cleared_count: usize) -> String {
    format!("Micro-compact cleared {cleared_count} tool result(s) to reduce context size.")
}

/// Generates the micro-compact notice.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct MicroCompactGenerator;

impl MicroCompactGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(self, ctx: &GeneratorContext) -> GeneratorResult {
        if ctx.micro_compact_cleared == 0 {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::MicroCompact,
            render_micro_compact(ctx.micro_compact_cleared),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for MicroCompactGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::MicroCompact
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "micro_compact_tests.rs"]
mod tests;
