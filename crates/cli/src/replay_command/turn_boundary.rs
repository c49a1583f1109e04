//! Where a turn starts: at a message the user really typed.
//!
//! Harness-written `user` messages do not start turns: Codex contextual fragments (environment
//! context, AGENTS.md instructions, skills, shell commands, turn aborts, reminders — the
//! predicate of `agentctx-context`), messages marked injected (Claude Code `isMeta` records,
//! local command output, task notifications and locally answered slash commands, as the
//! importer marks them) and Claude Code's harness text. In a Codex rollout whose items are
//! redacted, the `user_message` events are the turn signal instead (see `session_replay`).

use agentctx_context::is_contextual_user_fragment;
use agentctx_protocol::CLAUDE_CODE_HARNESS_PREFIXES;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::is_contextual_developer_fragment;
use agentctx_rollout::RecordFlags;

/// What a rollback needs to know of a history item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HistoryItemKind {
    /// The user message that starts a turn.
    UserTurn,
    /// A turn-settings update recorded before a turn (a contextual developer section or a
    /// harness-written user message): a rollback trims it with the turn it preceded.
    ContextUpdate,
    /// Anything else.
    Other,
}

/// The kind of `item`, given whether it starts a turn.
pub(crate) fn history_item_kind(item: &ResponseItem, turn_start: bool) -> HistoryItemKind {
    if turn_start {
        return HistoryItemKind::UserTurn;
    }
    match item {
        ResponseItem::Message { role, content, .. }
            if (role == "developer" && content.iter().any(is_contextual_developer_fragment))
                || role == "user" =>
        {
            HistoryItemKind::ContextUpdate
        }
        _ => HistoryItemKind::Other,
    }
}

/// True when `item` is a user message that starts a turn.
pub(crate) fn is_turn_start(item: &ResponseItem, flags: RecordFlags) -> bool {
    let ResponseItem::Message { role, content, .. } = item else {
        return false;
    };
    if role != "user" || flags.injected || item.is_injected() {
        return false;
    }
    let mut texts = content.iter().filter_map(ContentItem::as_text).peekable();
    if texts.peek().is_none() {
        // Only images or unknown parts: still something the user sent.
        return !content.is_empty();
    }
    !texts.any(is_harness_text)
}

fn is_harness_text(text: &str) -> bool {
    let trimmed = text.trim_start();
    is_contextual_user_fragment(text)
        || CLAUDE_CODE_HARNESS_PREFIXES
            .iter()
            .any(|prefix| trimmed.starts_with(prefix))
}

#[cfg(test)]
#[path = "turn_boundary_tests.rs"]
mod tests;
