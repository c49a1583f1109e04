//! USD budget (`budget_usd`): spend against `max_budget_usd`, when set. Reported
//! when it changed since last reported.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::BudgetInfo;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Formats dollars as JavaScript would print the number, after rounding to 1/100 of a cent so
/// that float noise (`0.30000000000000004`) never reaches the model.
pub(crate) fn format_usd(amount: f64) -> String {
    let rounded = (amount * 10_000.0).round() / 10_000.0;
    // `-0` prints as "-0"; a budget never is.
    let rounded = if rounded == 0.0 { 0.0 } else { rounded };
    format!("{rounded}")
}

/// The reminder text.
pub(crate) fn render_budget_usd(budget: &BudgetInfo) -> String {
    format!(
        "USD budget: ${}/${}; ${} remaining",
        format_usd(budget.used),
        format_usd(budget.total),
        format_usd(budget.remaining)
    )
}

/// Generates the budget reminder.
#[derive(Debug, Default)]
pub(crate) struct BudgetUsdGenerator {
    last: LastReported<Option<String>>,
}

impl BudgetUsdGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let text = ctx.budget.as_ref().map(render_budget_usd);
        if !self.last.changed(&text) {
            return Ok(None);
        }
        Ok(text.map(|text| SystemReminder::new(AttachmentType::BudgetUsd, text)))
    }
}

#[async_trait]
impl AttachmentGenerator for BudgetUsdGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::BudgetUsd
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
#[path = "budget_usd_tests.rs"]
mod tests;
