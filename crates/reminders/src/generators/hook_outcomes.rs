//! Synchronous hook outcomes (`hook_blocking_error`, `hook_success`,
//! `hook_additional_context`, `hook_stopped_continuation`), read through
//! [`crate::providers::HookResponseProvider::take_hook_outcomes`].
//!
//! The provider hands all outcomes over at once, while each kind has its own generator and the
//! four run concurrently. They share a [`HookOutcomeInbox`]: whichever runs first moves the
//! provider's outcomes into it, and each generator takes out its own kind. Build the four with
//! [`hook_outcome_generators`].

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::providers::HookOutcome;
use crate::providers::HookResponseProvider;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Hook events whose successful output is shown to the model.
pub(crate) const HOOK_SUCCESS_EVENTS: [&str; 2] = ["SessionStart", "UserPromptSubmit"];

/// The attachment type an outcome is reported as.
pub(crate) fn outcome_type(outcome: &HookOutcome) -> AttachmentType {
    match outcome {
        HookOutcome::BlockingError { .. } => AttachmentType::HookBlockingError,
        HookOutcome::Success { .. } => AttachmentType::HookSuccess,
        HookOutcome::AdditionalContext { .. } => AttachmentType::HookAdditionalContext,
        HookOutcome::StoppedContinuation { .. } => AttachmentType::HookStoppedContinuation,
    }
}

/// The text of one outcome, `None` for outcomes the model does not see (a success of another
/// event, empty output, no context lines).
pub(crate) fn render_hook_outcome(outcome: &HookOutcome) -> Option<String> {
    match outcome {
        HookOutcome::BlockingError {
            hook_name,
            command,
            blocking_error,
        } => Some(format!(
            "{hook_name} hook blocking error from command: \"{command}\": {blocking_error}"
        )),
        HookOutcome::Success {
            hook_event,
            hook_name,
            content,
        } => (HOOK_SUCCESS_EVENTS.contains(&hook_event.0.as_str()) && !content.is_empty())
            .then(|| format!("{hook_name} hook success: {content}")),
        HookOutcome::AdditionalContext { hook_name, content } => (!content.is_empty()).then(|| {
            format!(
                "{hook_name} hook additional context: {}",
                content.join("\n")
            )
        }),
        HookOutcome::StoppedContinuation { hook_name, message } => {
            Some(format!("{hook_name} hook stopped continuation: {message}"))
        }
    }
}

/// Outcomes taken from the provider and not yet claimed by their generator.
#[derive(Debug, Default)]
pub(crate) struct HookOutcomeInbox {
    pending: Mutex<Vec<HookOutcome>>,
}

impl HookOutcomeInbox {
    /// Moves the provider's new outcomes in, then takes out those of `attachment_type`.
    pub(crate) fn take(
        &self,
        provider: &dyn HookResponseProvider,
        attachment_type: AttachmentType,
    ) -> Vec<HookOutcome> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        pending.extend(provider.take_hook_outcomes());
        if pending.is_empty() {
            // Before every request, for each of the four types: usually nothing came.
            return Vec::new();
        }
        let (mine, others) = std::mem::take(&mut *pending)
            .into_iter()
            .partition(|outcome| outcome_type(outcome) == attachment_type);
        *pending = others;
        mine
    }
}

/// Generates the reminder for one kind of hook outcome.
#[derive(Debug)]
pub(crate) struct HookOutcomeGenerator {
    attachment_type: AttachmentType,
    inbox: Arc<HookOutcomeInbox>,
}

impl HookOutcomeGenerator {
    /// A generator for `attachment_type` (one of the four hook types) reading `inbox`.
    pub(crate) fn new(attachment_type: AttachmentType, inbox: Arc<HookOutcomeInbox>) -> Self {
        Self {
            attachment_type,
            inbox,
        }
    }
}

/// The four hook outcome generators, sharing one inbox.
pub(crate) fn hook_outcome_generators() -> Vec<Arc<dyn AttachmentGenerator>> {
    let inbox = Arc::new(HookOutcomeInbox::default());
    [
        AttachmentType::HookBlockingError,
        AttachmentType::HookSuccess,
        AttachmentType::HookAdditionalContext,
        AttachmentType::HookStoppedContinuation,
    ]
    .into_iter()
    .map(|attachment_type| {
        Arc::new(HookOutcomeGenerator::new(attachment_type, inbox.clone()))
            as Arc<dyn AttachmentGenerator>
    })
    .collect()
}

impl HookOutcomeGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let lines = self
            .inbox
            .take(ctx.providers.hooks.as_ref(), self.attachment_type)
            .iter()
            .filter_map(render_hook_outcome)
            .collect::<Vec<_>>();
        if lines.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            self.attachment_type,
            lines.join("\n"),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for HookOutcomeGenerator {
    fn attachment_type(&self) -> AttachmentType {
        self.attachment_type
    }

    /// The shared inbox holds every kind until its generator takes it out; a disabled kind's
    /// generator never runs, so its outcomes are dropped here (see docs/design/reminders.md,
    /// "Hook outcomes").
    fn discard_pending(&self, ctx: &GeneratorContext) {
        let dropped = self
            .inbox
            .take(ctx.providers.hooks.as_ref(), self.attachment_type)
            .len();
        if dropped > 0 {
            tracing::debug!(
                attachment_type = %self.attachment_type,
                dropped,
                "hook outcomes of a disabled type dropped"
            );
        }
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "hook_outcomes_tests.rs"]
mod tests;
