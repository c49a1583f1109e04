//! Output style (`output_style`): a non-default output style is active. Reported
//! when the style is set or changes.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The name of the style that needs no reminder.
pub(crate) const DEFAULT_OUTPUT_STYLE: &str = "default";

/// The reminder for the style named `style` (its display name, e.g. "Explanatory").
pub(crate) fn render_output_style(style: &str) -> String {
    format!(
        "{style} output style is active. Remember to follow the specific guidelines for this style."
    )
}

/// The display name of a non-default style: trimmed, first letter upper-cased.
fn active_style(style: Option<&str>) -> Option<String> {
    let style = style?.trim();
    if style.is_empty() || style.eq_ignore_ascii_case(DEFAULT_OUTPUT_STYLE) {
        return None;
    }
    let mut chars = style.chars();
    let first = chars.next()?;
    Some(first.to_uppercase().chain(chars).collect())
}

/// Generates the output style reminder.
#[derive(Debug, Default)]
pub(crate) struct OutputStyleGenerator {
    last: LastReported<Option<String>>,
}

impl OutputStyleGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let style = active_style(ctx.output_style.as_deref());
        if !self.last.changed(&style) {
            return Ok(None);
        }
        Ok(style.map(|style| {
            SystemReminder::new(AttachmentType::OutputStyle, render_output_style(&style))
        }))
    }
}

#[async_trait]
impl AttachmentGenerator for OutputStyleGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::OutputStyle
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
#[path = "output_style_tests.rs"]
mod tests;
