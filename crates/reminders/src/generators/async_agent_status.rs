//! Async agent status (in `<system-notification>` tags): an async agent the model launched has
//! ended. Each agent is announced once, when it ends.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::PoisonError;

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::BackgroundTaskInfo;
use crate::generator_context::BackgroundTaskStatus;
use crate::generator_context::BackgroundTaskType;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The notification for one ended agent. A failed agent's `delta_summary` is its error.
pub(crate) fn render_async_agent_status(agent: &BackgroundTaskInfo) -> String {
    let status = match agent.status {
        BackgroundTaskStatus::Running => "running",
        BackgroundTaskStatus::Completed => "completed",
        BackgroundTaskStatus::Failed => "failed",
        BackgroundTaskStatus::Killed => "stopped",
    };
    let error = match (agent.status, &agent.delta_summary) {
        (BackgroundTaskStatus::Failed, Some(error)) => format!(": {error}"),
        _ => String::new(),
    };
    format!(
        "Async agent \"{}\" {status}{error}. The output can be retrieved using AgentOutputTool with agentId: \"{}\"",
        agent.description, agent.task_id
    )
}

/// Generates the notification for async agents that ended since the last turn.
#[derive(Debug, Default)]
pub(crate) struct AsyncAgentStatusGenerator {
    notified: Mutex<HashSet<String>>,
}

impl AsyncAgentStatusGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let mut notified = self.notified.lock().unwrap_or_else(PoisonError::into_inner);
        let lines = ctx
            .background_tasks
            .iter()
            .filter(|task| {
                task.task_type == BackgroundTaskType::AsyncAgent && task.status.is_terminal()
            })
            .filter(|agent| notified.insert(agent.task_id.clone()))
            .map(render_async_agent_status)
            .collect::<Vec<_>>();
        if lines.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::AsyncAgentStatus,
            lines.join("\n"),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for AsyncAgentStatusGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::AsyncAgentStatus
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "async_agent_status_tests.rs"]
mod tests;
