//! The history a provider's own compaction leaves, filtered as codex-rs filters it, and the
//! readable copy kept beside every opaque compaction item. See docs/design/compaction.md,
//! "Remote compaction and the readable copy".
//!
//! codex-rs compacts the history of an OpenAI session remotely (`core/src/compact_remote.rs`,
//! `run_remote_compact_task_inner_impl`, openai/codex 683f0a68): the trailing model-switch
//! message is taken out of the request and the history trimmed to the window from its end
//! (tool outputs and developer messages only), the provider returns a new history, and
//! `process_compacted_history` keeps of it what `should_keep_compacted_history_item` allows and
//! puts the initial context back by the mid-turn / pre-turn rule of local compaction; the
//! model-switch message and the ghost snapshots of the old history follow. This module is that
//! processing without the session around it; the engine's compaction policy makes the call.

use agentctx_context::TokenEstimator;
use agentctx_context::approx_token_count;
use agentctx_context::is_harness_user_text;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use serde_json::Value;

use crate::compacted_history::CarriedItems;
use crate::compacted_history::InitialContextInjection;
use crate::compacted_history::insert_before_last_user_message;
use crate::message_filter::filter_for_summarization;
use crate::offline_summary::summarize_offline;

/// `type`s of items a newer provider (or codex) writes for a compaction that this protocol
/// keeps as unknown items: kept like a `compaction` item (codex-rs keeps
/// `ResponseItem::ContextCompaction` as it keeps `Compaction`).
const OTHER_COMPACTION_TYPES: [&str; 1] = ["context_compaction"];

/// The request a remote compaction sends, and what it carries over: the history without its
/// trailing model-switch message (carried over, put back after the compacted history), without
/// ghost snapshots (never sent; carried over so undo keeps working), and with tool outputs and
/// developer messages dropped from its end while it does not fit the window.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteCompactionInput {
    /// The items to send.
    pub items: Vec<ResponseItem>,
    /// What the compacted history gets back after it.
    pub carried: CarriedItems,
    /// Items dropped from the end so the request fits the window.
    pub trimmed: usize,
}

impl RemoteCompactionInput {
    /// The input of a remote compaction of `history` for a model of `context_window` tokens
    /// (0: unknown, nothing trimmed) with `instructions` as its base instructions.
    /// codex-rs `trim_function_call_history_to_fit_context_window` trims the same way: only a
    /// trailing tool output or developer message (`is_codex_generated_item`) goes, so no call
    /// loses its output and no user or assistant text is lost.
    pub fn new(
        history: &[ResponseItem],
        context_window: u64,
        instructions: &str,
        estimator: &dyn TokenEstimator,
    ) -> Self {
        let mut items = history.to_vec();
        let carried = CarriedItems::take_from(&mut items);
        items.retain(|item| !matches!(item, ResponseItem::GhostSnapshot { .. }));
        let mut trimmed = 0;
        if context_window > 0 {
            let base = approx_token_count(instructions);
            while base.saturating_add(estimator.estimate_items(&items)) > context_window
                && items.last().is_some_and(is_harness_generated)
            {
                items.pop();
                trimmed += 1;
            }
        }
        Self {
            items,
            carried,
            trimmed,
        }
    }
}

/// codex-rs `is_codex_generated_item`: what the harness (not the user, not the model) wrote.
fn is_harness_generated(item: &ResponseItem) -> bool {
    item.is_tool_output() || item.role() == Some("developer")
}

/// Whether an item of a provider's compacted history is kept (codex-rs
/// `should_keep_compacted_history_item`): `compaction` items (and the newer
/// `context_compaction`), assistant messages, and user messages the user wrote (a summary
/// message included). Dropped: developer messages (stale instructions; the initial context is
/// put back fresh), `user` messages holding harness context (environment, AGENTS.md, reminders)
/// or injected by the harness, other roles, reasoning, tool calls and outputs, ghost snapshots,
/// the `compaction_trigger` marker and every other unknown item.
pub fn should_keep_remote_item(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, content, .. } => match role.as_str() {
            "assistant" => true,
            "user" => is_real_user_message(item, content),
            _ => false,
        },
        ResponseItem::Compaction { .. } => true,
        ResponseItem::Other(value) => value
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| OTHER_COMPACTION_TYPES.contains(&kind)),
        ResponseItem::Reasoning { .. }
        | ResponseItem::LocalShellCall { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::GhostSnapshot { .. } => false,
    }
}

/// A `user` message the user wrote: not injected, and no text part of it harness-written (codex
/// `parse_turn_item` gives no user message as soon as one part is a contextual fragment).
fn is_real_user_message(item: &ResponseItem, content: &[ContentItem]) -> bool {
    !item.is_injected()
        && !content.is_empty()
        && !content
            .iter()
            .filter_map(ContentItem::as_text)
            .any(is_harness_user_text)
}

/// The new history from a provider's compacted `remote` history (codex-rs
/// `process_compacted_history`): the items [`should_keep_remote_item`] keeps, in order; mid-turn
/// ([`InitialContextInjection::BeforeLastUserMessage`]) the fresh `initial_context` before the
/// last real user message (before the last summary when none was kept, at the end when neither
/// is there: the compaction item stays last, where models are trained to find it); then the
/// carried model-switch message and ghost snapshots.
pub fn process_remote_history(
    remote: Vec<ResponseItem>,
    initial_context: Vec<ResponseItem>,
    injection: InitialContextInjection,
    carried: CarriedItems,
) -> Vec<ResponseItem> {
    let mut history: Vec<ResponseItem> =
        remote.into_iter().filter(should_keep_remote_item).collect();
    if injection == InitialContextInjection::BeforeLastUserMessage {
        history = insert_before_last_user_message(history, initial_context);
    }
    history.extend(carried.model_switch);
    history.extend(carried.ghost_snapshots);
    history
}

/// The readable copy of what a compaction item replaced: the offline summary
/// ([`summarize_offline`], deterministic, no model) of `replaced` within `max_tokens`. An
/// earlier compaction item among them counts through its own readable copy (the message filter
/// turns it into an earlier summary, which the summary's last section keeps), so a chain of
/// remote compactions stays readable from its start.
pub fn readable_copy(replaced: &[ResponseItem], max_tokens: u64) -> String {
    let budget = usize::try_from(max_tokens).unwrap_or(usize::MAX);
    summarize_offline(&filter_for_summarization(replaced), budget)
}

#[cfg(test)]
#[path = "remote_compaction_tests.rs"]
mod tests;
