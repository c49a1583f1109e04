//! Harness-written fragments that travel as `user` messages but are not user intent.
//!
//! The environment context, AGENTS.md instructions, skill bodies, user shell commands, turn
//! aborts, subagent notifications and system reminders are sent with the `user` role. They must
//! not count as user turns (rollback, compaction's kept user messages), so each is recognised by
//! its start and end markers, case-insensitively, ignoring surrounding whitespace.

use agentctx_protocol::CONTEXTUAL_USER_MARKERS;
use agentctx_protocol::ContentItem;
use agentctx_protocol::is_contextual_developer_fragment;
use agentctx_protocol::is_system_reminder_text;

/// True when `text` is a contextual fragment or a system reminder.
pub fn is_contextual_user_fragment(text: &str) -> bool {
    if is_system_reminder_text(text) {
        return true;
    }
    let trimmed_start = text.trim_start();
    let trimmed_end = text.trim_end();
    CONTEXTUAL_USER_MARKERS.iter().any(|(start, end)| {
        starts_with_ignore_case(trimmed_start, start) && ends_with_ignore_case(trimmed_end, end)
    })
}

/// True when any text part of `content` is a contextual fragment.
pub(crate) fn is_contextual_user_message_content(content: &[ContentItem]) -> bool {
    content
        .iter()
        .filter_map(ContentItem::as_text)
        .any(is_contextual_user_fragment)
}

/// True when a `developer` message holds a turn-settings section (permissions, model switch,
/// collaboration mode, personality): a rollback may trim it with the turn it preceded.
pub(crate) fn is_contextual_developer_message_content(content: &[ContentItem]) -> bool {
    content.iter().any(is_contextual_developer_fragment)
}

/// True when a `developer` message also holds persistent text (the initial context bundles
/// both): trimming it loses what the settings baseline assumed the model had seen.
pub(crate) fn has_non_contextual_developer_content(content: &[ContentItem]) -> bool {
    content
        .iter()
        .any(|part| !is_contextual_developer_fragment(part))
}

/// Wraps `body` in a fragment's markers: `"{start}\n{body}\n{end}"`.
pub(crate) fn wrap_contextual_fragment(start: &str, body: &str, end: &str) -> String {
    format!("{start}\n{body}\n{end}")
}

fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

fn ends_with_ignore_case(text: &str, suffix: &str) -> bool {
    text.len() >= suffix.len()
        && text
            .as_bytes()
            .get(text.len() - suffix.len()..)
            .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix.as_bytes()))
}

#[cfg(test)]
#[path = "contextual_user_message_tests.rs"]
mod tests;
