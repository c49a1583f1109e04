//! Which history items are sent to the model, which the model wrote, and where user turns start.

use agentctx_protocol::ResponseItem;

use crate::contextual_user_message::is_contextual_user_message_content;

/// True for items the Responses API accepts in a prompt (and ghost snapshots, which history keeps
/// for undo and [`crate::ContextManager::for_prompt`] strips): every message except `system` ones,
/// calls and outputs, reasoning, web searches and compactions. Unknown item types are not kept.
pub(crate) fn is_api_message(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, .. } => role != "system",
        ResponseItem::Reasoning { .. }
        | ResponseItem::LocalShellCall { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Compaction { .. } => true,
        ResponseItem::Other(_) => false,
    }
}

/// True for items the model produced: assistant messages, reasoning, tool calls, web searches
/// and compactions.
pub(crate) fn is_model_generated_item(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, .. } => role == "assistant",
        ResponseItem::Reasoning { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::LocalShellCall { .. }
        | ResponseItem::Compaction { .. } => true,
        ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Other(_) => false,
    }
}

/// True for a `user` message the user wrote: the start of a user turn. Contextual fragments
/// (environment context, AGENTS.md instructions, skills, ...), system reminders and messages
/// marked injected (imported Claude Code `isMeta` records) are not.
pub(crate) fn is_user_turn_boundary(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, content, .. } if role == "user" => {
            !item.is_injected() && !is_contextual_user_message_content(content)
        }
        _ => false,
    }
}

#[cfg(test)]
#[path = "item_classification_tests.rs"]
mod tests;
