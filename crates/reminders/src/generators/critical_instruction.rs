//! The critical instruction (Claude Code's `critical_system_reminder`): the user's
//! always-on instruction from the config, or a sub-agent definition's `critical_system_reminder`.
//!
//! With rebuilt placement ([`ReminderPlacement::AfterEnvironmentContext`]) reminders are
//! rebuilt into every prompt, so the instruction is injected on every turn while set. With
//! [`ReminderPlacement::Tail`] (the default) reminders stay in the history: the instruction is
//! injected when it is first set, when it changes, and again after compaction ([`reset`]), never
//! as one more copy per turn of text the model already has.
//!
//! [`reset`]: AttachmentGenerator::reset

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::config::ReminderPlacement;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Generates the critical instruction.
#[derive(Debug, Default)]
pub(crate) struct CriticalInstructionGenerator {
    /// The instruction last put into the history (tail placement only).
    last: LastReported<Option<String>>,
}

impl CriticalInstructionGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let instruction = ctx
            .critical_instruction
            .as_deref()
            .map(str::trim)
            .filter(|instruction| !instruction.is_empty());
        let changed = self.last.changed(&instruction.map(str::to_string));
        let repeat = match ctx.placement {
            ReminderPlacement::AfterEnvironmentContext => true,
            ReminderPlacement::Tail => changed,
        };
        Ok(instruction.filter(|_| repeat).map(|instruction| {
            SystemReminder::new(AttachmentType::CriticalInstruction, instruction)
        }))
    }
}

#[async_trait]
impl AttachmentGenerator for CriticalInstructionGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::CriticalInstruction
    }

    /// After compaction the history no longer holds the instruction: inject it again.
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
#[path = "critical_instruction_tests.rs"]
mod tests;
