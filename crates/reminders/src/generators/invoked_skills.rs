//! Invoked skills (`invoked_skills`): the skills used in this session, so their
//! guidelines stay in force. Reported when the set of invoked skills changes.

use agentctx_protocol::invoked_skills_text;
use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
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

#[async_trait]
impl AttachmentGenerator for InvokedSkillsGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::InvokedSkills
    }

    fn reset(&self) {
        self.last.forget();
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
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

#[cfg(test)]
#[path = "invoked_skills_tests.rs"]
mod tests;
