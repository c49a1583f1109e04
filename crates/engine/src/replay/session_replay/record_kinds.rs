//! The kinds of records the replay reads, and what it reads of some of them: which payloads
//! the reader types as it reads them, the prompt-cache writes of an imported Claude Code count,
//! the model of a settings event, the records that end a session's prefix.

use agentctx_protocol::EventMsg;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::LazyRecord;
use agentctx_rollout::RolloutRecord;
use agentctx_rollout::is_model_generated;
use serde_json::Value;

/// The Codex payloads of the records [`replay_reads`] that the reader can type as it reads them,
/// by the line's `type` and the payload's own (a `token_count` is read in part instead:
/// `read_ahead::token_count_read`).
pub(super) fn replay_types(kind: &str, payload_type: &str) -> bool {
    match kind {
        "response_item" => true,
        "event_msg" => matches!(
            payload_type,
            "user_message" | "thread_rolled_back" | "thread_settings_applied"
        ),
        _ => false,
    }
}

/// The records whose typed payload the replay reads (see [`super::SessionReplayBuilder::observe`]).
pub(super) fn replay_reads(record: &LazyRecord) -> bool {
    match record.kind() {
        "session_meta" | "response_item" | "compacted" | "turn_context" => true,
        "event_msg" => matches!(
            record.payload_type(),
            Some("token_count" | "user_message" | "thread_rolled_back" | "thread_settings_applied")
        ),
        _ => false,
    }
}

/// The tokens an imported Claude Code response wrote to the prompt cache: its original usage
/// object (`claude_usage`, kept by the importer) names them; 0 for any other count.
pub(super) fn claude_cache_write(event: &agentctx_protocol::TokenCountEvent) -> u64 {
    event
        .extra
        .get("claude_usage")
        .and_then(|usage| usage.get("cache_creation_input_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// The model of a `thread_settings_applied` event (codex 0.12x+: the settings a `/model` or
/// `/permissions` change applied, `{"type":"thread_settings_applied","thread_settings":{"model":
/// …}}`).
pub(super) fn thread_settings_model(event: &Value) -> Option<&str> {
    if event.get("type").and_then(Value::as_str) != Some("thread_settings_applied") {
        return None;
    }
    event
        .pointer("/thread_settings/model")
        .and_then(Value::as_str)
}

/// Records that end a session's prefix: the model answered, or the history was rewritten.
pub(super) fn ends_preamble(record: &RolloutRecord) -> bool {
    match &record.line.item {
        RolloutItem::ResponseItem(item) => is_model_generated(item),
        RolloutItem::Compacted(_) | RolloutItem::EventMsg(EventMsg::ThreadRolledBack(_)) => true,
        RolloutItem::SessionMeta(_)
        | RolloutItem::TurnContext(_)
        | RolloutItem::EventMsg(_)
        | RolloutItem::Unknown { .. } => false,
    }
}
