//! The XML tags that wrap system reminders, and the predicates that recognise them.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::models::ContentItem;
use crate::models::ResponseItem;

/// Opening tag of a system reminder.
pub const SYSTEM_REMINDER_OPEN_TAG: &str = "<system-reminder>";
/// Closing tag of a system reminder.
pub const SYSTEM_REMINDER_CLOSE_TAG: &str = "</system-reminder>";
/// Opening tag of a system notification (async agent status).
pub(crate) const SYSTEM_NOTIFICATION_OPEN_TAG: &str = "<system-notification>";
/// Closing tag of a system notification.
pub(crate) const SYSTEM_NOTIFICATION_CLOSE_TAG: &str = "</system-notification>";
/// Opening tag of new diagnostics.
pub(crate) const NEW_DIAGNOSTICS_OPEN_TAG: &str = "<new-diagnostics>";
/// Closing tag of new diagnostics.
pub(crate) const NEW_DIAGNOSTICS_CLOSE_TAG: &str = "</new-diagnostics>";
/// Opening tag of session memory.
pub(crate) const SESSION_MEMORY_OPEN_TAG: &str = "<session-memory>";
/// Closing tag of session memory.
pub(crate) const SESSION_MEMORY_CLOSE_TAG: &str = "</session-memory>";
/// Opening of a teammate message (attributes follow the tag name).
pub const TEAMMATE_MESSAGE_OPEN_TAG: &str = "<teammate-message";

/// The opening tags that mark a message as harness-injected reminder content.
pub(crate) const REMINDER_OPEN_TAGS: [&str; 4] = [
    SYSTEM_REMINDER_OPEN_TAG,
    SYSTEM_NOTIFICATION_OPEN_TAG,
    SESSION_MEMORY_OPEN_TAG,
    NEW_DIAGNOSTICS_OPEN_TAG,
];

/// The tag a reminder's content is wrapped in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum XmlTag {
    /// `<system-reminder>`, the default; content on its own lines.
    SystemReminder,
    /// `<system-notification>` for async agent status; no newlines.
    SystemNotification,
    /// `<new-diagnostics>` for diagnostics; no newlines.
    NewDiagnostics,
    /// `<session-memory>` for past-session summaries; content on its own lines.
    SessionMemory,
    /// No wrapping.
    None,
}

impl XmlTag {
    /// Wraps `content` in this tag, byte for byte as the model must see it (see
    /// docs/design/reminders.md for the texts).
    pub fn wrap(self, content: &str) -> String {
        match self {
            Self::SystemReminder => {
                format!("{SYSTEM_REMINDER_OPEN_TAG}\n{content}\n{SYSTEM_REMINDER_CLOSE_TAG}")
            }
            Self::SystemNotification => {
                format!("{SYSTEM_NOTIFICATION_OPEN_TAG}{content}{SYSTEM_NOTIFICATION_CLOSE_TAG}")
            }
            Self::NewDiagnostics => {
                format!("{NEW_DIAGNOSTICS_OPEN_TAG}{content}{NEW_DIAGNOSTICS_CLOSE_TAG}")
            }
            Self::SessionMemory => {
                format!("{SESSION_MEMORY_OPEN_TAG}\n{content}\n{SESSION_MEMORY_CLOSE_TAG}")
            }
            Self::None => content.to_string(),
        }
    }
}

/// True when `text` starts with one of the reminder tags (leading whitespace ignored).
pub fn is_system_reminder_text(text: &str) -> bool {
    let text = text.trim_start();
    REMINDER_OPEN_TAGS.iter().any(|tag| text.starts_with(tag))
}

/// True when any text part of a message's content is a reminder.
pub(crate) fn is_system_reminder_content(content: &[ContentItem]) -> bool {
    content
        .iter()
        .filter_map(ContentItem::as_text)
        .any(is_system_reminder_text)
}

/// True when `item` is a user message carrying a reminder.
pub fn is_system_reminder_message(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, content, .. } if role == "user" => {
            is_system_reminder_content(content)
        }
        _ => false,
    }
}
