//! Background task status (Claude Code's `task_status`), for shells and remote
//! sessions; async agents have their own notification
//! ([`crate::generators::async_agent_status`]).
//!
//! Derived from state: a task is reported when its status or its output changed since it was
//! last reported, once when it ends, and then never again. A task that is merely still running
//! with no new output is not mentioned.

use std::collections::HashMap;
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

/// The wire name of a task type.
pub(crate) fn task_type_name(task_type: BackgroundTaskType) -> &'static str {
    match task_type {
        BackgroundTaskType::Shell => "shell",
        BackgroundTaskType::AsyncAgent => "async_agent",
        BackgroundTaskType::RemoteSession => "remote_session",
    }
}

/// One line about `task`; `has_new_output` says whether its output grew since the last report.
pub(crate) fn render_task_line(task: &BackgroundTaskInfo, has_new_output: bool) -> String {
    if task.status == BackgroundTaskStatus::Killed {
        return format!(
            "Task \"{}\" ({}) was stopped before it finished.",
            task.description, task.task_id
        );
    }
    let mut parts = Vec::new();
    if task.task_type == BackgroundTaskType::Shell {
        parts.push(format!("Background Bash {}", task.task_id));
        if let Some(command) = &task.command {
            parts.push(format!("(command: {command})"));
        }
        parts.push(format!("(status: {})", task.status.as_str()));
        if let Some(code) = task.exit_code {
            parts.push(format!("(exit code: {code})"));
        }
        if has_new_output {
            parts.push(
                "Has new output available. You can check its output using the BashOutput tool."
                    .to_string(),
            );
        }
    } else {
        parts.push(format!("Task {}", task.task_id));
        parts.push(format!("(type: {})", task_type_name(task.task_type)));
        parts.push(format!("(status: {})", task.status.as_str()));
        parts.push(format!("(description: {})", task.description));
        if let Some(delta) = &task.delta_summary {
            parts.push(format!("Delta: {delta}"));
        }
        parts.push("You can check its output using the TaskOutput tool.".to_string());
    }
    parts.join(" ")
}

/// What was last reported about one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reported {
    status: BackgroundTaskStatus,
    output_len: u64,
}

impl Reported {
    /// What the model knows of a task it started: running, no output.
    const STARTED: Reported = Reported {
        status: BackgroundTaskStatus::Running,
        output_len: 0,
    };
}

/// Generates background task status updates.
#[derive(Debug, Default)]
pub(crate) struct BackgroundTaskGenerator {
    reported: Mutex<HashMap<String, Reported>>,
}

impl BackgroundTaskGenerator {
    /// The lines for the tasks whose state changed since they were last reported; records them.
    fn updates(&self, tasks: &[BackgroundTaskInfo]) -> Vec<String> {
        let mut reported = self.reported.lock().unwrap_or_else(PoisonError::into_inner);
        let mut lines = Vec::new();
        for task in tasks
            .iter()
            .filter(|task| task.task_type != BackgroundTaskType::AsyncAgent)
        {
            let last = reported
                .get(&task.task_id)
                .copied()
                .unwrap_or(Reported::STARTED);
            if last.status.is_terminal() {
                continue;
            }
            let now = Reported {
                status: task.status,
                output_len: task.output_len,
            };
            if now == last {
                continue;
            }
            lines.push(render_task_line(task, now.output_len != last.output_len));
            reported.insert(task.task_id.clone(), now);
        }
        lines
    }
}

impl BackgroundTaskGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        if !ctx.is_main_agent {
            return Ok(None);
        }
        let lines = self.updates(&ctx.background_tasks);
        if lines.is_empty() {
            return Ok(None);
        }
        // One line per task, each ending with a newline, as docs/design/reminders.md
        // ("Background tasks") shows.
        let content: String = lines.iter().map(|line| format!("{line}\n")).collect();
        Ok(Some(SystemReminder::new(
            AttachmentType::BackgroundTask,
            content,
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for BackgroundTaskGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::BackgroundTask
    }

    /// Ended tasks stay reported (never again); running ones are reported afresh when they change
    /// or have output, since the compacted history may no longer mention them.
    fn reset(&self) {
        self.reported
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, reported| reported.status.is_terminal());
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "background_task_tests.rs"]
mod tests;
