//! Placing reminders into the conversation, and recognising them again (see
//! docs/design/reminders.md, "Placement").
//!
//! Two placements ([`ReminderPlacement`]):
//!
//! - [`ReminderPlacement::Tail`] (default): the reminders of a turn are appended to the history
//!   right after the turn's user input and stay there. Each prompt is then the previous prompt
//!   plus new items, byte for byte, so the provider's prompt cache keeps hitting.
//! - [`ReminderPlacement::AfterEnvironmentContext`] (the rebuilt placement): the reminders are inserted
//!   into the *prompt view* after the environment context and user instructions, rebuilt on
//!   every turn and never recorded. Keep the turn's reminders and inject them into every prompt
//!   of that turn (follow-ups after tool calls): generators report a change once, so the next
//!   turn's reminders will not repeat it.
//!
//! Call [`inject_system_reminders`] once per turn, right after recording the user input (for
//! `Tail`) or on each prompt view of the turn (for `AfterEnvironmentContext`).

use std::borrow::Borrow;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ENVIRONMENT_CONTEXT_OPEN_TAG;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TEAMMATE_MESSAGE_OPEN_TAG;
use agentctx_protocol::is_agents_md_message;
use agentctx_protocol::is_system_reminder_message;

use crate::config::ReminderPlacement;
use crate::types::SystemReminder;

/// Inserts `reminders` (already in injection order) into `history` as user messages and returns
/// the index of the first one (`history.len()` unchanged when there are none).
pub fn inject_system_reminders(
    history: &mut Vec<ResponseItem>,
    reminders: &[SystemReminder],
    placement: ReminderPlacement,
) -> usize {
    let position = match placement {
        ReminderPlacement::Tail => history.len(),
        ReminderPlacement::AfterEnvironmentContext => after_environment_context_position(history),
    };
    if reminders.is_empty() {
        return position;
    }
    tracing::debug!(
        count = reminders.len(),
        position,
        ?placement,
        "injecting system reminders"
    );
    let items = reminders.iter().map(SystemReminder::to_response_item);
    history.splice(position..position, items);
    position
}

/// Where [`ReminderPlacement::AfterEnvironmentContext`] inserts: after the last environment
/// context or user instructions message and any reminders that already follow it. Without
/// either, after the leading developer and system messages. `history` holds items or anything
/// borrowing them (a prompt's `Cow`s).
pub fn after_environment_context_position<T: Borrow<ResponseItem>>(history: &[T]) -> usize {
    let anchor = history
        .iter()
        .map(Borrow::borrow)
        .rposition(|item| is_environment_context(item) || is_user_instructions(item));
    let mut position = match anchor {
        Some(index) => index + 1,
        None => history
            .iter()
            .map(Borrow::borrow)
            .position(|item: &ResponseItem| !matches!(item.role(), Some("developer" | "system")))
            .unwrap_or(history.len()),
    };
    while history
        .get(position)
        .is_some_and(|item| is_reminder_item(item.borrow()))
    {
        position += 1;
    }
    position
}

/// Whether `item` is a reminder the harness injected: a user message whose text starts with
/// one of the reminder tags or with `<teammate-message`.
pub fn is_reminder_item(item: &ResponseItem) -> bool {
    is_system_reminder_message(item) || user_text_starts_with(item, &[TEAMMATE_MESSAGE_OPEN_TAG])
}

/// `items` without reminders (for compaction summaries).
pub fn filter_system_reminders(items: &[ResponseItem]) -> Vec<ResponseItem> {
    items
        .iter()
        .filter(|item| !is_reminder_item(item))
        .cloned()
        .collect()
}

/// Removes reminders from `items` in place; returns how many were removed.
pub fn remove_system_reminders(items: &mut Vec<ResponseItem>) -> usize {
    let before = items.len();
    items.retain(|item| !is_reminder_item(item));
    before - items.len()
}

/// Whether `item` is the environment context message.
pub fn is_environment_context(item: &ResponseItem) -> bool {
    user_text_starts_with(item, &[ENVIRONMENT_CONTEXT_OPEN_TAG])
}

/// Whether `item` is a user instructions message: the AGENTS.md message, in codex's current or
/// older form (`agentctx_protocol::is_agents_md_message`).
pub fn is_user_instructions(item: &ResponseItem) -> bool {
    is_agents_md_message(item)
}

fn user_text_starts_with(item: &ResponseItem, prefixes: &[&str]) -> bool {
    let ResponseItem::Message { role, content, .. } = item else {
        return false;
    };
    role == "user"
        && content.iter().filter_map(ContentItem::as_text).any(|text| {
            let text = text.trim_start();
            prefixes.iter().any(|prefix| text.starts_with(prefix))
        })
}

#[cfg(test)]
#[path = "injection_tests.rs"]
mod tests;
