//! The history a full compaction leaves: the fresh initial context, the most recent user
//! messages verbatim, the summary, and what must survive untouched (the model-switch message,
//! ghost snapshots). The layout follows codex-rs `core/src/compact.rs`
//! (`build_compacted_history_with_limit`, `insert_initial_context_before_last_real_user_or_summary`
//! at openai/codex e06dd0e5); see docs/design/compaction.md, "Full compaction".

use agentctx_context::TruncationPolicy;
use agentctx_context::approx_token_count;
use agentctx_context::truncate_text;
use agentctx_protocol::ResponseItem;
use serde::Deserialize;
use serde::Serialize;

use crate::summary_prompt::is_summary_message;

/// Tokens of recent user messages the new history keeps verbatim (codex's
/// `COMPACT_USER_MESSAGE_MAX_TOKENS`).
pub const COMPACT_USER_MESSAGE_MAX_TOKENS: usize = 20_000;

/// Where the fresh initial context goes in the compacted history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitialContextInjection {
    /// Mid-turn: the turn goes on without a new user message, so the initial context is put
    /// back now, before the last user message, and the summary stays the last item (the
    /// position models are trained to find it in).
    BeforeLastUserMessage,
    /// Pre-turn or manual: the history holds no initial context; the next turn injects it in
    /// full, as for a new session.
    DoNotInject,
}

/// Items of the old history a compaction carries over unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CarriedItems {
    /// The trailing `<model_switch>` developer message, taken out of the summary request so it
    /// stays in the distribution the summariser was trained on, and put back after it.
    pub model_switch: Option<ResponseItem>,
    /// Ghost snapshots: never sent to the model, they keep undo working across compactions.
    pub ghost_snapshots: Vec<ResponseItem>,
}

impl CarriedItems {
    /// Takes the trailing model-switch message out of `items` and copies the ghost snapshots.
    pub(crate) fn take_from(items: &mut Vec<ResponseItem>) -> Self {
        let model_switch = agentctx_context::extract_trailing_model_switch_update(items);
        let ghost_snapshots = items
            .iter()
            .filter(|item| matches!(item, ResponseItem::GhostSnapshot { .. }))
            .cloned()
            .collect();
        Self {
            model_switch,
            ghost_snapshots,
        }
    }
}

/// The newest user messages that fit `max_tokens`, in chronological order. Walking from the
/// newest, whole messages are kept while they fit; the first that does not is middle-truncated
/// to what is left of the budget and the walk stops there.
pub(crate) fn select_recent_user_messages(messages: &[String], max_tokens: usize) -> Vec<String> {
    let mut selected = Vec::new();
    let mut remaining = max_tokens;
    for message in messages.iter().rev() {
        if remaining == 0 {
            break;
        }
        let tokens = usize::try_from(approx_token_count(message)).unwrap_or(usize::MAX);
        if tokens <= remaining {
            selected.push(message.clone());
            remaining -= tokens;
        } else {
            selected.push(truncate_text(message, TruncationPolicy::Tokens(remaining)));
            break;
        }
    }
    selected.reverse();
    selected
}

/// Builds the compacted history: the selected user messages (each a `user` message), the
/// summary message last; with [`InitialContextInjection::BeforeLastUserMessage`] the initial
/// context is spliced in before the last real user message (else before the summary); then
/// the model-switch message and the ghost snapshots.
pub fn build_compacted_history(
    initial_context: Vec<ResponseItem>,
    user_messages: &[String],
    summary_text: &str,
    injection: InitialContextInjection,
    carried: CarriedItems,
) -> Vec<ResponseItem> {
    build_compacted_history_with_limit(
        initial_context,
        user_messages,
        summary_text,
        injection,
        carried,
        COMPACT_USER_MESSAGE_MAX_TOKENS,
    )
}

pub(crate) fn build_compacted_history_with_limit(
    initial_context: Vec<ResponseItem>,
    user_messages: &[String],
    summary_text: &str,
    injection: InitialContextInjection,
    carried: CarriedItems,
    max_tokens: usize,
) -> Vec<ResponseItem> {
    let mut history: Vec<ResponseItem> = select_recent_user_messages(user_messages, max_tokens)
        .into_iter()
        .map(ResponseItem::user_text)
        .collect();
    history.push(ResponseItem::user_text(summary_text));
    if injection == InitialContextInjection::BeforeLastUserMessage {
        history = insert_before_last_user_message(history, initial_context);
    }
    history.extend(carried.model_switch);
    history.extend(carried.ghost_snapshots);
    history
}

/// Splices `initial_context` in before the last real user message, or before the last
/// summary when no real user message was kept.
pub(crate) fn insert_before_last_user_message(
    mut history: Vec<ResponseItem>,
    initial_context: Vec<ResponseItem>,
) -> Vec<ResponseItem> {
    let is_user = |item: &ResponseItem| item.role() == Some("user");
    let index = history
        .iter()
        .rposition(|item| is_user(item) && !is_summary_message(item))
        .or_else(|| history.iter().rposition(is_summary_message));
    match index {
        Some(index) => {
            history.splice(index..index, initial_context);
        }
        None => history.extend(initial_context),
    }
    history
}

/// One line per item, `NN:type/role:text`, newlines shown as `\n`: how tests, snapshots and
/// the command line show a history.
pub fn render_history(items: &[ResponseItem]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let text = match item {
                ResponseItem::FunctionCall {
                    name, arguments, ..
                } => format!("{name} {arguments}"),
                ResponseItem::FunctionCallOutput { output, .. }
                | ResponseItem::CustomToolCallOutput { output, .. } => output.text_content(),
                ResponseItem::CustomToolCall { name, input, .. } => format!("{name} {input}"),
                other => other.message_text().unwrap_or_default(),
            };
            format!(
                "{index:02}:{}/{}:{}",
                item.type_name(),
                item.role().unwrap_or("-"),
                text.replace('\n', "\\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[path = "compacted_history_tests.rs"]
mod tests;
