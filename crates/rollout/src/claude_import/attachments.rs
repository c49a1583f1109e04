//! Claude Code 2.1.x `attachment` records: the context the harness adds to the next request
//! (reminders, hook context, messages queued while the model worked), as the model saw it.
//!
//! Claude Code writes each as its own record:
//!
//! ```json
//! {"parentUuid":"…","isSidechain":false,"attachment":{"type":"todo_reminder","content":[…],"itemCount":2},"type":"attachment","uuid":"…","timestamp":"…","sessionId":"…","version":"2.1.123"}
//! ```
//!
//! and turns it into a user-role message wrapped in `<system-reminder>` when it builds a request
//! (`normalizeAttachmentForAPI` in its `src/utils/messages.ts`). Later 2.1.x builds also record
//! what they sent, as `rendered: [{"content": …}]` beside `renderedRole`; that text is taken
//! as it is. Without it, the kinds whose rendering is known are rendered here as Claude Code
//! renders them (2.1.88's `normalizeAttachmentForAPI`): hook additional context, the todo and
//! task reminders, and queued commands (a message the user typed while the model worked, a
//! finished background task's notification). Any other kind without `rendered`, and one whose
//! rendering is empty (the model saw nothing), is not read. See docs/design/rollout-formats.md,
//! "Attachments".

use agentctx_protocol::ContentItem;
use serde_json::Value;

use super::content_blocks;

/// The message parts the model saw for an attachment record, `None` when it saw nothing or
/// the kind's rendering is not known.
pub(super) fn attachment_parts(
    attachment: &Value,
    rendered: Option<&Value>,
) -> Option<Vec<ContentItem>> {
    let parts = match rendered {
        Some(rendered) => rendered_parts(rendered),
        None => rendered_here(attachment)?,
    };
    (!parts.is_empty()).then_some(parts)
}

/// The parts of a recorded `rendered` list: each entry's `content`, a string or content blocks.
fn rendered_parts(rendered: &Value) -> Vec<ContentItem> {
    let Some(entries) = rendered.as_array() else {
        return Vec::new();
    };
    let mut parts = Vec::new();
    for content in entries.iter().filter_map(|entry| entry.get("content")) {
        match content {
            Value::String(text) if !text.is_empty() => parts.push(ContentItem::input_text(text)),
            Value::Array(blocks) => parts.extend(blocks.iter().map(content_blocks::user_part)),
            _ => {}
        }
    }
    parts
}

/// The rendering of the kinds Claude Code's `normalizeAttachmentForAPI` renders as one text.
fn rendered_here(attachment: &Value) -> Option<Vec<ContentItem>> {
    let text = |text: String| Some(vec![ContentItem::input_text(system_reminder(&text))]);
    match attachment.get("type").and_then(Value::as_str)? {
        "hook_additional_context" => {
            let context = strings(attachment.get("content")?);
            if context.is_empty() {
                return None;
            }
            let hook = str_field(attachment, "hookName")
                .or_else(|| str_field(attachment, "hookEvent"))
                .unwrap_or_default();
            text(format!(
                "{hook} hook additional context: {}",
                context.join("\n")
            ))
        }
        "todo_reminder" => {
            let items = list(attachment, |index, todo| {
                format!(
                    "{}. [{}] {}",
                    index + 1,
                    str_field(todo, "status").unwrap_or_default(),
                    str_field(todo, "content").unwrap_or_default()
                )
            });
            let mut message = TODO_REMINDER.to_string();
            if !items.is_empty() {
                message.push_str(&format!(
                    "\n\nHere are the existing contents of your todo list:\n\n[{items}]"
                ));
            }
            text(message)
        }
        "task_reminder" => {
            let items = list(attachment, |_, task| {
                let id = match task.get("id") {
                    Some(Value::String(id)) => id.clone(),
                    Some(other @ Value::Number(_)) => other.to_string(),
                    _ => String::new(),
                };
                format!(
                    "#{id}. [{}] {}",
                    str_field(task, "status").unwrap_or_default(),
                    str_field(task, "subject").unwrap_or_default()
                )
            });
            let mut message = TASK_REMINDER.to_string();
            if !items.is_empty() {
                message.push_str(&format!("\n\nHere are the existing tasks:\n\n{items}"));
            }
            text(message)
        }
        "queued_command" => queued_command(attachment),
        _ => None,
    }
}

/// A message queued while the model worked: its text framed by where it came from
/// (`wrapCommandText`), images kept.
fn queued_command(attachment: &Value) -> Option<Vec<ContentItem>> {
    let origin = attachment
        .get("origin")
        .and_then(|origin| origin.get("kind"))
        .and_then(Value::as_str)
        .or_else(|| {
            (str_field(attachment, "commandMode") == Some("task-notification"))
                .then_some("task-notification")
        });
    let (raw, images) = match attachment.get("prompt")? {
        Value::String(prompt) => (prompt.clone(), Vec::new()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            let images = blocks
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("image"))
                .map(content_blocks::user_part)
                .collect();
            (texts.join("\n"), images)
        }
        other => (other.to_string(), Vec::new()),
    };
    let framed = match origin {
        Some("task-notification") => format!("A background agent completed a task:\n{raw}"),
        Some("coordinator") => format!(
            "The coordinator sent a message while you were working:\n{raw}\n\nAddress this before completing your current task."
        ),
        _ => format!(
            "The user sent a new message while you were working:\n{raw}\n\nIMPORTANT: After completing your current task, you MUST address the user's message above. Do not ignore it."
        ),
    };
    let mut parts = vec![ContentItem::input_text(system_reminder(&framed))];
    parts.extend(images);
    Some(parts)
}

/// Claude Code's `wrapInSystemReminder`.
fn system_reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// The text of the todo reminder, as 2.1.88 words it (the newline ends its last sentence).
const TODO_REMINDER: &str = "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable. Make sure that you NEVER mention this reminder to the user\n";

/// The text of the task reminder (task tools `TaskCreate` and `TaskUpdate`), as 2.1.88 words it.
const TASK_REMINDER: &str = "The task tools haven't been used recently. If you're working on tasks that would benefit from tracking progress, consider using TaskCreate to add new tasks and TaskUpdate to update task status (set to in_progress when starting, completed when done). Also consider cleaning up the task list if it has become stale. Only use these if relevant to the current work. This is just a gentle reminder - ignore if not applicable. Make sure that you NEVER mention this reminder to the user\n";

/// The entries of `attachment.content` (an array), each formatted, one per line.
fn list(attachment: &Value, format: impl Fn(usize, &Value) -> String) -> String {
    attachment
        .get("content")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .enumerate()
                .map(|(index, entry)| format(index, entry))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// A string, or the strings of an array.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::Array(values) => values.iter().filter_map(Value::as_str).collect(),
        other => other.as_str().into_iter().collect(),
    }
}

fn str_field<'a>(value: &'a Value, name: &str) -> Option<&'a str> {
    value.get(name).and_then(Value::as_str)
}

#[cfg(test)]
#[path = "attachments_tests.rs"]
mod tests;
