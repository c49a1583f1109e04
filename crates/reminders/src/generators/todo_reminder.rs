//! The todo reminder (Claude Code's `todo_reminders`; see docs/design/reminders.md,
//! "Throttles" and "Texts the model sees").
//!
//! It fires when the TodoWrite tool has not been used for [`TURNS_SINCE_TODO_WRITE`] assistant
//! messages, at most every [`crate::throttle::TURNS_BETWEEN_TODO_REMINDERS`] assistant messages
//! (the orchestrator's throttle on [`GeneratorContext::assistant_messages`], Claude Code 2.1's
//! clock and constants), never while every item is done. It is a standing reminder: within one
//! user turn the orchestrator does not send again a list the model has already seen unchanged
//! (see docs/design/reminders.md, "Standing reminders").

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::generator_context::TodoState;
use crate::throttle::TURNS_SINCE_TODO_WRITE;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The fixed part of the todo reminder, as Claude Code words it.
pub(crate) const TODO_REMINDER_TEXT: &str = "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable. Make sure that you NEVER mention this reminder to the user\n";

/// Renders the reminder: the fixed text, then the numbered list when there are items.
pub(crate) fn render_todo_reminder(todo: &TodoState) -> String {
    let mut message = String::from(TODO_REMINDER_TEXT);
    if !todo.items.is_empty() {
        let formatted_list = todo
            .items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                format!("{}. [{}] {}", index + 1, item.status.as_str(), item.content)
            })
            .collect::<Vec<_>>()
            .join("\n");
        message.push_str("\n\nHere are the existing contents of your todo list:\n\n[");
        message.push_str(&formatted_list);
        message.push(']');
    }
    message
}

/// The turn the "turns since TodoWrite" rule counts from: the last TodoWrite, or the session
/// start when it was never used.
fn last_write_turn(todo: &TodoState) -> i32 {
    todo.last_write_turn.unwrap_or(0)
}

/// Generates the todo reminder.
#[derive(Debug, Default)]
pub(crate) struct TodoReminderGenerator;

impl TodoReminderGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let since_write = ctx
            .assistant_messages
            .saturating_sub(last_write_turn(&ctx.todo));
        if !ctx.todo.tool_available
            || since_write < TURNS_SINCE_TODO_WRITE
            || ctx.todo.all_completed()
        {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::TodoReminder,
            render_todo_reminder(&ctx.todo),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for TodoReminderGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::TodoReminder
    }

    fn throttle_clock(&self, ctx: &GeneratorContext) -> i32 {
        ctx.assistant_messages
    }

    fn trigger_turn(&self, ctx: &GeneratorContext) -> Option<i32> {
        Some(last_write_turn(&ctx.todo))
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "todo_reminder_tests.rs"]
mod tests;
