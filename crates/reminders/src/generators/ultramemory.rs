//! Ultra memory (`ultramemory`): memory content the host supplies, shown as is.
//! Reported when it changes.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Generates the ultra memory reminder from [`GeneratorContext::ultramemory`].
#[derive(Debug, Default)]
pub(crate) struct UltramemoryGenerator {
    last: LastReported<Option<String>>,
}

impl UltramemoryGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let content = ctx
            .ultramemory
            .as_deref()
            .map(str::trim)
            .filter(|content| !content.is_empty())
            .map(str::to_string);
        if !self.last.changed(&content) {
            return Ok(None);
        }
        Ok(content.map(|content| SystemReminder::new(AttachmentType::Ultramemory, content)))
    }
}

#[async_trait]
impl AttachmentGenerator for UltramemoryGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::Ultramemory
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
#[path = "ultramemory_tests.rs"]
mod tests;
