//! Async hook responses (`async_hook_responses`): the system messages and
//! additional context of async hooks that finished, read through
//! [`crate::providers::HookResponseProvider::take_async_responses`] (each handed over once).

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::providers::AsyncHookResponse;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The parts of one response the model sees: its system message, then its additional context.
pub(crate) fn render_async_hook_response(response: &AsyncHookResponse) -> Vec<String> {
    [
        response.response.system_message.as_deref(),
        response.response.additional_context.as_deref(),
    ]
    .into_iter()
    .flatten()
    .filter(|text| !text.trim().is_empty())
    .map(str::to_string)
    .collect()
}

/// Generates the async hook responses reminder.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct AsyncHookResponsesGenerator;

impl AsyncHookResponsesGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(self, ctx: &GeneratorContext) -> GeneratorResult {
        let parts = ctx
            .providers
            .hooks
            .take_async_responses()
            .iter()
            .flat_map(render_async_hook_response)
            .collect::<Vec<_>>();
        if parts.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::AsyncHookResponses,
            parts.join("\n\n"),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for AsyncHookResponsesGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::AsyncHookResponses
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "async_hook_responses_tests.rs"]
mod tests;
