//! The `tool_result` reminder: tool calls of the last turn that failed.
//!
//! A tool's output already tells the model what happened, but a failure among several parallel
//! calls, or at the top of a long output, is easy to overlook, and a turn that goes on as if a
//! failed write had happened wastes the next ones. So on the turn after tools ran, the failed
//! calls are named once with how long they ran; calls that all succeeded say nothing (see
//! docs/design/reminders.md, "tool_result").

use std::fmt::Write as _;

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::generator_context::ToolResultInfo;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder text for the failed calls among `results` (`None` when none failed).
pub(crate) fn render_tool_results(results: &[ToolResultInfo]) -> Option<String> {
    let failed: Vec<&ToolResultInfo> = results.iter().filter(|result| !result.success).collect();
    if failed.is_empty() {
        return None;
    }
    let mut text = match (failed.len(), results.len()) {
        (_, 1) => "The tool call of your last turn failed:".to_string(),
        (failed, total) if failed == total => {
            format!("All {total} tool calls of your last turn failed:")
        }
        (failed, total) => format!("{failed} of the {total} tool calls of your last turn failed:"),
    };
    for result in failed {
        let _ = write!(text, "\n- {} ({})", result.tool_name, result.call_id);
        if result.duration_ms > 0 {
            let _ = write!(text, ", after {}", render_duration(result.duration_ms));
        }
    }
    text.push_str(
        "\nTheir results say why. Do not rely on what they were meant to do: fix the cause or take another way.",
    );
    Some(text)
}

/// `40 ms` below a second, `61.5 s` from there.
fn render_duration(duration_ms: i64) -> String {
    if duration_ms < 1_000 {
        format!("{duration_ms} ms")
    } else {
        format!("{}.{} s", duration_ms / 1_000, duration_ms % 1_000 / 100)
    }
}

/// Generates the `tool_result` reminder from [`GeneratorContext::last_tool_results`].
#[derive(Debug, Default)]
pub(crate) struct ToolResultGenerator {
    /// The results last reported, so a host that leaves them set does not repeat them.
    last: LastReported<Vec<ToolResultInfo>>,
}

impl ToolResultGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        if !self.last.changed(&ctx.last_tool_results) {
            return Ok(None);
        }
        Ok(render_tool_results(&ctx.last_tool_results)
            .map(|content| SystemReminder::new(AttachmentType::ToolResult, content)))
    }
}

#[async_trait]
impl AttachmentGenerator for ToolResultGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::ToolResult
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
#[path = "tool_result_tests.rs"]
mod tests;
