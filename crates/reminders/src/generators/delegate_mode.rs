//! Delegate mode reminders (`delegate_mode`, `delegate_mode_exit`): a team lead
//! in delegate mode may only coordinate its team. The delegate mode reminder fires when the mode
//! is entered (or its team changes), not on every turn; the exit reminder on the turn after
//! leaving.

use std::path::Path;

use std::path::PathBuf;

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder while delegate mode is active.
pub(crate) fn render_delegate_mode(team_name: &str, task_list_path: &Path) -> String {
    let task_list_path = task_list_path.display();
    format!(
        r#"## Delegate Mode

You are in delegate mode for team "{team_name}". In this mode, you can ONLY use the following tools:
- TeammateTool: For spawning teammates, sending messages, and team coordination
- TaskCreate: For creating new tasks
- TaskGet: For retrieving task details
- TaskUpdate: For updating task status and adding comments
- TaskList: For listing all tasks

You CANNOT use any other tools (Bash, Read, Write, Edit, etc.) until you exit delegate mode.

**Task list location:** {task_list_path}

Focus on coordinating work by creating tasks, assigning them to teammates, and monitoring progress. Use the Teammate tool to communicate with your team."#
    )
}

/// The reminder on the turn after delegate mode was left.
pub(crate) const DELEGATE_MODE_EXIT_TEXT: &str = "## Exited Delegate Mode\n\nYou have exited delegate mode. You can now use all tools (Bash, Read, Write, Edit, etc.) and take actions directly. Continue with your tasks.";

/// Generates the delegate mode reminder when delegate mode is entered with a known team.
#[derive(Debug, Default)]
pub(crate) struct DelegateModeGenerator {
    last: LastReported<Option<(String, PathBuf)>>,
}

impl DelegateModeGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let delegate = &ctx.delegate;
        let team = match (
            delegate.active,
            &delegate.team_name,
            &delegate.task_list_path,
        ) {
            (true, Some(team_name), Some(task_list_path)) => {
                Some((team_name.clone(), task_list_path.clone()))
            }
            _ => None,
        };
        if !self.last.changed(&team) {
            return Ok(None);
        }
        Ok(team.map(|(team_name, task_list_path)| {
            SystemReminder::new(
                AttachmentType::DelegateMode,
                render_delegate_mode(&team_name, &task_list_path),
            )
        }))
    }
}

#[async_trait]
impl AttachmentGenerator for DelegateModeGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::DelegateMode
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

/// Generates the exit reminder once, on the turn after delegate mode was left.
#[derive(Debug, Default)]
pub(crate) struct DelegateModeExitGenerator {
    last: LastReported<bool>,
}

impl DelegateModeExitGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let exited = ctx.delegate.just_exited && !ctx.delegate.active;
        if !self.last.changed(&exited) || !exited {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::DelegateModeExit,
            DELEGATE_MODE_EXIT_TEXT,
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for DelegateModeExitGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::DelegateModeExit
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
#[path = "delegate_mode_tests.rs"]
mod tests;
