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
use agentctx_rollout::RecordFlags;

/// True when `item` is a user message that starts a turn.
pub fn is_turn_start(item: &ResponseItem, flags: RecordFlags) -> bool {
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
