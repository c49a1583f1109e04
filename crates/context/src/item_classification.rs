//! Which history items are sent to the model. Which the model wrote and where user turns start
//! are `agentctx_protocol::is_model_generated` and `agentctx_protocol::is_user_turn_start`.

use agentctx_protocol::ResponseItem;

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

#[cfg(test)]
#[path = "item_classification_tests.rs"]
mod tests;
