//! Plan file reference (catalogue #29 `plan_file_reference`): a plan file from a previous session
//! (or from before compaction) with its contents. Reported when the file or its contents change.

use std::path::Path;
use std::path::PathBuf;

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder text.
pub fn render_plan_file_reference(plan_file_path: &Path, plan_content: &str) -> String {
    format!(
        "A plan file exists from plan mode at: {}\n\nPlan contents:\n\n{plan_content}\n\nIf this plan is relevant to the current work and not already complete, continue working on it.",
        plan_file_path.display()
    )
}

/// Generates the plan file reference from [`crate::PlanState::reference_file`].
#[derive(Debug, Default)]
pub struct PlanFileReferenceGenerator {
    last: LastReported<Option<(PathBuf, String)>>,
}

#[async_trait]
impl AttachmentGenerator for PlanFileReferenceGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::PlanFileReference
    }

    fn reset(&self) {
        self.last.forget();
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        let current = match &ctx.plan.reference_file {
            None => None,
            Some(path) => match std::fs::read_to_string(path) {
                Ok(content) if !content.trim().is_empty() => Some((path.clone(), content)),
                Ok(_) => None,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
                Err(error) => return Err(GeneratorError::io(path, error)),
            },
        };
        if !self.last.changed(&current) {
            return Ok(None);
        }
        Ok(current.map(|(path, content)| {
            SystemReminder::new(
                AttachmentType::PlanFileReference,
                render_plan_file_reference(&path, content.trim_end()),
            )
        }))
    }
}

#[cfg(test)]
#[path = "plan_file_reference_tests.rs"]
mod tests;
