//! Invoked skills (`invoked_skills`): the skills used in this session, so their
//! guidelines stay in force. Reported when the set of invoked skills changes.

use agentctx_protocol::invoked_skills_text;
use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::generator_context::InvokedSkill;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder text.
pub(crate) fn render_invoked_skills(skills: &[InvokedSkill]) -> String {
    invoked_skills_text(skills)
}

/// Generates the invoked skills reminder.
#[derive(Debug, Default)]
pub(crate) struct InvokedSkillsGenerator {
    last: LastReported<Vec<InvokedSkill>>,
}

impl InvokedSkillsGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let skills = &ctx.invoked_skills;
        if !self.last.changed(skills) || skills.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::InvokedSkills,
            render_invoked_skills(skills),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for InvokedSkillsGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::InvokedSkills
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
#[path = "invoked_skills_tests.rs"]
mod tests;
