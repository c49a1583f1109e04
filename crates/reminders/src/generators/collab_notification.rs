//! Collab notification (`collab_notification`): unread teammate messages, read
//! through [`crate::providers::TeammateMailbox::unread_chats`]. Reported when the unread counts
//! change.

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::providers::CollabChat;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The reminder for chats with unread messages.
pub(crate) fn render_collab_notification(chats: &[CollabChat]) -> String {
    let total: i64 = chats.iter().map(|chat| i64::from(chat.unread_count)).sum();
    let senders = chats
        .iter()
        .map(|chat| {
            if chat.handle == "self" {
                format!("self ({} new)", chat.unread_count)
            } else {
                format!("@{} ({} new)", chat.handle, chat.unread_count)
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    let plural = if total == 1 { "" } else { "s" };
    format!(
        "You have {total} unread collab message{plural} from: {senders}. Use the CollabRead tool to read these messages."
    )
}

/// Generates the collab notification.
#[derive(Debug, Default)]
pub(crate) struct CollabNotificationGenerator {
    last: LastReported<Vec<CollabChat>>,
}

impl CollabNotificationGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let chats = ctx
            .providers
            .mailbox
            .unread_chats()
            .into_iter()
            .filter(|chat| chat.unread_count > 0)
            .collect::<Vec<_>>();
        if !self.last.changed(&chats) || chats.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::CollabNotification,
            render_collab_notification(&chats),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for CollabNotificationGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::CollabNotification
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
#[path = "collab_notification_tests.rs"]
mod tests;
