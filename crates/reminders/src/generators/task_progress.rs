//! Task progress (`task_progress`): the latest progress message of running
//! background tasks, when it changed since last reported. The orchestrator's throttle keeps
//! [`crate::throttle::PROGRESS_TURN_THRESHOLD`] turns between two updates.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::PoisonError;

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::BackgroundTaskStatus;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Generates task progress updates.
#[derive(Debug, Default)]
pub(crate) struct TaskProgressGenerator {
    reported: Mutex<HashMap<String, String>>,
}

impl TaskProgressGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let mut reported = self.reported.lock().unwrap_or_else(PoisonError::into_inner);
        let mut messages = Vec::new();
        for task in ctx
            .background_tasks
            .iter()
            .filter(|task| task.status == BackgroundTaskStatus::Running)
        {
            let Some(message) = task.progress_message.as_deref() else {
                continue;
            };
            if message.trim().is_empty()
                || reported.get(&task.task_id).map(String::as_str) == Some(message)
            {
                continue;
            }
            reported.insert(task.task_id.clone(), message.to_string());
            messages.push(message.to_string());
        }
        if messages.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::TaskProgress,
            messages.join("\n"),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for TaskProgressGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::TaskProgress
    }

    fn reset(&self) {
        self.reported
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "task_progress_tests.rs"]
mod tests;
