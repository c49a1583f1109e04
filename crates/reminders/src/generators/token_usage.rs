//! Token usage (`token_usage`): the context window use, when enabled
//! (`enable_token_usage`). Reported when it changed since last reported.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::ContextTokenUsage;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder text.
pub(crate) fn render_token_usage(usage: &ContextTokenUsage) -> String {
    format!(
        "Token usage: {}/{}; {} remaining",
        usage.used, usage.total, usage.remaining
    )
}

/// Generates the token usage reminder.
#[derive(Debug, Default)]
pub(crate) struct TokenUsageGenerator {
    last: LastReported<Option<ContextTokenUsage>>,
}

impl TokenUsageGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        if !self.last.changed(&ctx.token_usage) {
            return Ok(None);
        }
        Ok(ctx.token_usage.as_ref().map(|usage| {
            SystemReminder::new(AttachmentType::TokenUsage, render_token_usage(usage))
        }))
    }
}

#[async_trait]
impl AttachmentGenerator for TokenUsageGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::TokenUsage
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
#[path = "token_usage_tests.rs"]
mod tests;
