//! What a history item is, in the words every crate uses: an item the model generated, and a
//! `user` message that starts a user turn. The context manager (rollback, token accounting),
//! the recorded-session reader, the replay and the reminder clock all ask these questions, so
//! each has one answer, here (docs/design/context-and-tokens.md, "Contextual fragments").

use crate::context_markers::is_harness_user_text;
use crate::models::ContentItem;
use crate::models::ResponseItem;

/// True for an item the model produced: an assistant message, reasoning, a function, custom
/// tool or local shell call, a web search, or a server-side compaction. codex-rs's rule
/// (`core/src/context_manager/history.rs`, `is_model_generated_item`): the items after the last
/// of them are what the last token count has not measured, and a run of them is one model
/// response. Tool outputs, `user`, `developer` and `system` messages, ghost snapshots and
/// items of an unknown type are not.
pub fn is_model_generated(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, .. } => role == "assistant",
        ResponseItem::Reasoning { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::LocalShellCall { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::Compaction { .. } => true,
        ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Other(_) => false,
    }
}

/// True for a message that starts a user turn: a `user` message the user typed. Not one
/// marked injected (harness text an importer or the engine marked: Claude Code `isMeta`
/// records, restored context), and not one any text part of which is harness text
/// ([`crate::is_harness_user_text`]: a contextual fragment such as the environment context or
/// AGENTS.md instructions, a system reminder, Claude Code's command output or notifications).
/// A message of images alone, or of no part at all, is the user's.
///
/// codex-rs's rule (`core/src/context_manager/history.rs`, `is_user_turn_boundary`, with
/// `core/src/event_mapping.rs`, `is_contextual_user_message_content`: one contextual part makes
/// the whole message context), with agentctx's injected mark and Claude Code's harness text
/// added. Rollback counts turns by it, so does the replay.
pub fn is_user_turn_start(item: &ResponseItem) -> bool {
    let ResponseItem::Message { role, content, .. } = item else {
        return false;
    };
    role == "user"
        && !item.is_injected()
        && !content
            .iter()
            .filter_map(ContentItem::as_text)
            .any(is_harness_user_text)
}

#[cfg(test)]
#[path = "item_classification_tests.rs"]
mod tests;
