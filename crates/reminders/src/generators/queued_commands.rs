//! Queued commands (`queued_commands`): messages the user sent while the agent was
//! working, read through [`crate::providers::QueuedCommandsProvider`] (each handed over once).

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
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

#[async_trait]
impl AttachmentGenerator for QueuedCommandsGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::QueuedCommands
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
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

#[cfg(test)]
#[path = "queued_commands_tests.rs"]
mod tests;
