//! Plan file reference (`plan_file_reference`): a plan file from a previous session
//! (or from before compaction) with its contents. Reported when the file or its contents change.

use std::path::Path;
use std::path::PathBuf;

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::blocking::run_blocking;
use crate::file_content::CappedText;
use crate::file_content::MAX_PLAN_FILE_BYTES;
use crate::file_content::read_capped;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder text. `total_bytes` is the plan file's size when `plan_content` is only its
/// start (cut at [`MAX_PLAN_FILE_BYTES`]): a marker then says what was left out.
pub(crate) fn render_plan_file_reference(
    plan_file_path: &Path,
    plan_content: &str,
    total_bytes: Option<u64>,
) -> String {
    let marker = total_bytes.map_or_else(String::new, |total| {
        format!(
            "\n\n(Plan truncated: showing the first {} of {total} bytes. Read {} for the rest.)",
            plan_content.len(),
            plan_file_path.display()
        )
    });
    agentctx_protocol::plan_file_reference_text(
        &plan_file_path.display().to_string(),
        &format!("{plan_content}{marker}"),
    )
}

/// The plan file's text within [`MAX_PLAN_FILE_BYTES`]: `None` when it is missing or blank.
fn read_plan(path: &Path) -> Result<Option<CappedText>, GeneratorError> {
    match read_capped(path, MAX_PLAN_FILE_BYTES) {
        Ok(plan) if !plan.text.trim().is_empty() => Ok(Some(plan)),
        Ok(_) => Ok(None),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(GeneratorError::io(path, error)),
    }
}

/// Generates the plan file reference from [`crate::PlanState::reference_file`].
#[derive(Debug, Default)]
pub(crate) struct PlanFileReferenceGenerator {
    last: LastReported<Option<(PathBuf, CappedText)>>,
}

#[async_trait]
impl AttachmentGenerator for PlanFileReferenceGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::PlanFileReference
    }

    fn reset(&self) {
        self.last.forget();
    }

    /// Without a plan file to refer to, nothing to read: the generator records that it refers
    /// to none.
    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        if ctx.plan.reference_file.is_some() {
            return None;
        }
        self.last.changed(&None);
        Some(Ok(None))
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        if let Some(answer) = self.generate_now(ctx) {
            return answer;
        }
        let current = match &ctx.plan.reference_file {
            None => None,
            Some(path) => {
                // Reading is blocking work: off the async worker, so the timeout holds.
                let reading = path.clone();
                run_blocking(self.name(), move || read_plan(&reading))
                    .await??
                    .map(|plan| (path.clone(), plan))
            }
        };
        if !self.last.changed(&current) {
            return Ok(None);
        }
        Ok(current.map(|(path, plan)| {
            let total_bytes = plan.truncated.then_some(plan.total_bytes);
            SystemReminder::new(
                AttachmentType::PlanFileReference,
                render_plan_file_reference(&path, plan.text.trim_end(), total_bytes),
            )
        }))
    }
}

#[cfg(test)]
#[path = "plan_file_reference_tests.rs"]
mod tests;
