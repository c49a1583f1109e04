//! Teammate messages (`<teammate-message>`): messages that arrived in the teammate mailbox,
//! read through [`crate::providers::TeammateMailbox::take_messages`] (each handed over once).
//! The content carries its own tags, so the type is not wrapped again.

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::providers::TeammateMessage;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// One message in its `<teammate-message teammate_id="…">` element.
pub(crate) fn render_teammate_message(message: &TeammateMessage) -> String {
    let from = message.from.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        "<teammate-message teammate_id=\"{from}\">\n{}\n</teammate-message>",
        message.text
    )
}

/// Generates teammate messages.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct TeammateMessageGenerator;

impl TeammateMessageGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(self, ctx: &GeneratorContext) -> GeneratorResult {
        let messages = ctx.providers.mailbox.take_messages();
        if messages.is_empty() {
            return Ok(None);
        }
        let content = messages
            .iter()
            .map(render_teammate_message)
            .collect::<Vec<_>>()
            .join("\n\n");
        Ok(Some(SystemReminder::new(
            AttachmentType::TeammateMessage,
            content,
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for TeammateMessageGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::TeammateMessage
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "teammate_message_tests.rs"]
mod tests;
