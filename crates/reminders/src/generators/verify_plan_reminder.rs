//! Verify plan reminder (`verify_plan_reminder`): the approved plan is
//! implemented, so the model should verify it. Fires once each time the host marks the
//! implementation complete.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
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
/// The reminder for a host without the `VerifyPlanExecution` tool (agentctx-core): the same
/// moment, the check left to the model, pointing at the plan file when there is one.
pub(crate) fn render_self_verify_plan_reminder(plan_file: Option<&std::path::Path>) -> String {
    let plan = plan_file.map_or_else(
        || "the plan".to_string(),
        |path| format!("the plan ({})", path.display()),
    );
    format!(
        "You have completed implementing the plan. Before you finish, read {plan} again and check that every item of it was completed correctly; fix what is missing."
    )
}

#[derive(Debug, Default)]
pub(crate) struct VerifyPlanReminderGenerator {
    last: LastReported<bool>,
}

impl VerifyPlanReminderGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let complete = ctx.plan.implementation_complete;
        if !self.last.changed(&complete) || !complete {
            return Ok(None);
        }
        let text = if ctx.plan.without_verify_tool {
            render_self_verify_plan_reminder(ctx.plan.plan_file_path.as_deref())
        } else {
            render_verify_plan_reminder()
        };
        Ok(Some(SystemReminder::new(
            AttachmentType::VerifyPlanReminder,
            text,
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for VerifyPlanReminderGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::VerifyPlanReminder
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
#[path = "verify_plan_reminder_tests.rs"]
mod tests;
