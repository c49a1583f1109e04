//! Where a turn starts: at a message the user really typed.
//!
//! Harness-written `user` messages do not start turns: Codex contextual fragments (environment
//! context, AGENTS.md instructions, skills, shell commands, turn aborts, reminders — the
//! predicate of `agentctx-context`), Claude Code records flagged `isMeta`, Claude Code's local
//! command output and interruption markers.

use agentctx_context::is_contextual_user_fragment;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RecordFlags;

/// Claude Code text that travels as a user message but was written by the harness.
const CLAUDE_HARNESS_PREFIXES: [&str; 4] = [
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "[Request interrupted by user",
];

/// True when `item` is a user message that starts a turn.
pub(crate) fn is_turn_start(item: &ResponseItem, flags: RecordFlags) -> bool {
    let ResponseItem::Message { role, content, .. } = item else {
        return false;
    };
    if role != "user" || flags.injected {
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
        || CLAUDE_HARNESS_PREFIXES
            .iter()
            .any(|prefix| trimmed.starts_with(prefix))
}

#[cfg(test)]
#[path = "turn_boundary_tests.rs"]
mod tests;
