//! Queued commands (`queued_commands`): messages the user sent while the agent was
//! working, read through [`crate::providers::QueuedCommandsProvider`] (each handed over once).

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::providers::QueuedCommand;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder for one queued command.
pub(crate) fn render_queued_command(command: &QueuedCommand) -> String {
    format!(
        "The user sent a new message while you were working:\n{}\n\nIMPORTANT: After completing your current task, you MUST address the user's message above. Do not ignore it.",
        command.prompt
    )
}

/// Generates the queued commands reminder.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct QueuedCommandsGenerator;

impl QueuedCommandsGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(self, ctx: &GeneratorContext) -> GeneratorResult {
        let rendered = ctx
            .providers
            .queued_commands
            .take_queued_commands()
            .iter()
            .filter(|command| !command.prompt.trim().is_empty())
            .map(render_queued_command)
            .collect::<Vec<_>>();
        if rendered.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::QueuedCommands,
            rendered.join("\n\n"),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for QueuedCommandsGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::QueuedCommands
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "queued_commands_tests.rs"]
mod tests;
