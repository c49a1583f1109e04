//! Harness-written fragments that travel as `user` messages but are not user intent.
//!
//! The environment context, AGENTS.md instructions, skill bodies, user shell commands, turn
//! aborts, subagent notifications and system reminders are sent with the `user` role. They must
//! not count as user turns (rollback, compaction's kept user messages), so each is recognised by
//! its start and end markers, case-insensitively, ignoring surrounding whitespace.

use agentctx_protocol::ContentItem;
use agentctx_protocol::is_contextual_developer_fragment;
// The predicates are defined once, in `agentctx-protocol`, beside the markers they read.
pub use agentctx_protocol::is_contextual_user_fragment;
pub(crate) use agentctx_protocol::is_contextual_user_message_content;

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

#[cfg(test)]
#[path = "contextual_user_message_tests.rs"]
mod tests;
