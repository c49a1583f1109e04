//! Verify plan reminder (`verify_plan_reminder`): the approved plan is
//! implemented, so the model should verify it. Fires once each time the host marks the
//! implementation complete.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The tool that verifies a plan's execution.
pub(crate) const VERIFY_PLAN_TOOL: &str = "VerifyPlanExecution";
/// The tool that launches agents, which must not be used for verification.
pub(crate) const AGENT_TOOL: &str = "Task";

/// The reminder text.
pub(crate) fn render_verify_plan_reminder() -> String {
    format!(
        "You have completed implementing the plan. Please call the \"{VERIFY_PLAN_TOOL}\" tool directly (NOT the {AGENT_TOOL} tool or an agent) to verify that all plan items were completed correctly."
    )
}

/// Generates the verify plan reminder.
#[derive(Debug, Default)]
pub(crate) struct VerifyPlanReminderGenerator {
    last: LastReported<bool>,
}

#[async_trait]
impl AttachmentGenerator for VerifyPlanReminderGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::VerifyPlanReminder
    }

    fn reset(&self) {
        self.last.forget();
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        let complete = ctx.plan.implementation_complete;
        if !self.last.changed(&complete) || !complete {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::VerifyPlanReminder,
            render_verify_plan_reminder(),
        )))
    }
}

#[cfg(test)]
#[path = "verify_plan_reminder_tests.rs"]
mod tests;
