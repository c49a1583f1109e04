//! The critical instruction (catalogue #13 `critical_system_reminder`, spec §6.2.6): the user's
//! always-on instruction from the config, or a sub-agent definition's `critical_system_reminder`.
//! It is injected on every turn while set.

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Generates the critical instruction.
#[derive(Debug, Default, Clone, Copy)]
pub struct CriticalInstructionGenerator;

impl CriticalInstructionGenerator {
    /// A new generator; the instruction comes from [`GeneratorContext::critical_instruction`].
    pub fn new() -> Self {
        Self
    }
}

#[async_trait]
impl AttachmentGenerator for CriticalInstructionGenerator {
    fn name(&self) -> &str {
        "critical_instruction"
    }

    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::CriticalInstruction
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        Ok(ctx
            .critical_instruction
            .as_deref()
            .map(str::trim)
            .filter(|instruction| !instruction.is_empty())
            .map(|instruction| {
                SystemReminder::new(AttachmentType::CriticalInstruction, instruction)
            }))
    }
}

#[cfg(test)]
#[path = "critical_instruction_tests.rs"]
mod tests;
