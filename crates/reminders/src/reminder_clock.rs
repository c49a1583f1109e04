//! [`ReminderClock`]: Claude Code's clock for the todo reminder, kept from the items the model
//! produced (see docs/design/reminders.md, "Throttles").
//!
//! Claude Code stores each content block of a response as its own assistant message and counts
//! those messages, thinking-only ones left out, to decide when the todo reminder may fire
//! (`getTodoReminderAttachments` in `src/utils/attachments.ts`: turns since the last TodoWrite
//! and since the last reminder). A response of text and a tool call is two such messages; one
//! of thinking and a tool call is one. The clock counts the same from our items, so a live
//! session and the replay of any recorded session run the todo reminder alike.

use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;

/// Tool names that write the todo list: Claude Code's `TodoWrite` and, since 2.1, its task
/// tools `TaskCreate` / `TaskUpdate` (whose `task_reminder` runs on the same clock),
/// agentctx-core's `todo_write` and Codex's `update_plan`.
pub fn is_todo_write(tool_name: &str) -> bool {
    matches!(
        tool_name,
        "TodoWrite" | "todo_write" | "update_plan" | "TaskCreate" | "TaskUpdate"
    )
}

/// Assistant messages so far, and the count after the last todo write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReminderClock {
    /// Assistant messages the model produced in the session.
    pub assistant_messages: i32,
    /// [`ReminderClock::assistant_messages`] right after the last todo write's message.
    pub last_todo_write: Option<i32>,
}

impl ReminderClock {
    /// Counts `item` if the model produced it: one per text part of an assistant message (a
    /// message with none counts one) and one per tool call; reasoning counts nothing.
    pub fn observe(&mut self, item: &ResponseItem) {
        let (messages, tool) = match item {
            ResponseItem::Message { role, content, .. } if role == "assistant" => {
                let texts = content
                    .iter()
                    .filter(|part| matches!(part, ContentItem::OutputText { .. }))
                    .count();
                (i32::try_from(texts.max(1)).unwrap_or(i32::MAX), None)
            }
            ResponseItem::FunctionCall { name, .. } | ResponseItem::CustomToolCall { name, .. } => {
                (1, Some(name.as_str()))
            }
            ResponseItem::LocalShellCall { .. } | ResponseItem::WebSearchCall { .. } => (1, None),
            _ => (0, None),
        };
        self.assistant_messages = self.assistant_messages.saturating_add(messages);
        if tool.is_some_and(is_todo_write) {
            self.last_todo_write = Some(self.assistant_messages);
        }
    }
}

#[cfg(test)]
#[path = "reminder_clock_tests.rs"]
mod tests;
