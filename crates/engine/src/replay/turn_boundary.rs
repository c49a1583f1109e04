//! Where a turn starts: at a message the user really typed.
//!
//! The rule is `agentctx_protocol::is_user_turn_start` (no contextual fragment, system reminder
//! or Claude Code harness text, and not marked injected). The replay also honours the injected
//! flag the importer sets on a record (Claude Code `isMeta` records, local command output, task
//! notifications and locally answered slash commands), which the item may not carry. In a Codex
//! rollout whose items are redacted, the `user_message` events are the turn signal instead (see
//! `session_replay`).

use agentctx_protocol::ResponseItem;
use agentctx_protocol::is_user_turn_start;
use agentctx_rollout::RecordFlags;

/// True when `item`, read with the record `flags`, is a user message that starts a turn.
pub fn is_turn_start(item: &ResponseItem, flags: RecordFlags) -> bool {
    !flags.injected && is_user_turn_start(item)
}

#[cfg(test)]
#[path = "turn_boundary_tests.rs"]
mod tests;
