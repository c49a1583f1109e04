//! The readable copy of an opaque compaction item, and the compaction mode setting.
//!
//! A provider's compaction item (`type: "compaction"`, its `encrypted_content` readable only by
//! the provider that wrote it) stands for the part of a history it replaced. agentctx keeps,
//! beside every such item, a readable summary of what it replaced and the identity of the
//! provider that wrote it, as two fields of the item itself: they travel with it through the
//! history, the rollout (`response_item` lines and `compacted` replacement histories), resume,
//! replay and `agentctx compact`. They are harness fields
//! ([`ResponseItem::has_harness_fields`]): a provider request leaves them out, and codex-rs,
//! whose `Compaction { encrypted_content }` does not deny unknown fields, reads the item and
//! ignores them. When the session moves to a provider that cannot read the item, the copy
//! ([`ResponseItem::readable_copy_message`]) is sent in its place. See
//! docs/design/compaction.md, "Remote compaction and the readable copy".

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use crate::COMPACTION_SUMMARY_PREFIX;
use crate::models::ResponseItem;

/// The compaction item field holding the readable summary of what the item replaced.
pub const READABLE_COPY_FIELD: &str = "agentctx_readable_copy";

/// The compaction item field naming the provider that wrote the item (a serialized provider
/// identity: its wire API and host).
pub const WRITTEN_BY_FIELD: &str = "agentctx_written_by";

/// Where full compaction happens: in agentctx, or at the provider (`[compact] mode`, and
/// `compact_mode` of a `[model_providers.<id>]` entry, which wins for that provider).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompactMode {
    /// Our own compaction only: the summary through the session's model, or offline (default:
    /// nothing opaque enters the history unless asked for).
    #[default]
    Local,
    /// The provider's compaction endpoint (OpenAI's `POST /responses/compact`); a provider
    /// without one, or a failing call, falls back to local compaction with a logged reason.
    Remote,
    /// The provider's compaction where the provider has one (codex's choice for OpenAI
    /// providers), else local, silently.
    Auto,
}

impl ResponseItem {
    /// The readable summary kept beside a compaction item, when it has one.
    pub fn readable_copy(&self) -> Option<&str> {
        match self {
            Self::Compaction { extra, .. } => extra.get(READABLE_COPY_FIELD)?.as_str(),
            _ => None,
        }
    }

    /// Keeps `text` as the readable copy of a compaction item; other items are unchanged.
    pub fn set_readable_copy(&mut self, text: impl Into<String>) {
        if let Self::Compaction { extra, .. } = self {
            extra.insert(READABLE_COPY_FIELD.to_string(), Value::String(text.into()));
        }
    }

    /// The recorded writer of a compaction item (a serialized provider identity), when known.
    pub fn compaction_writer(&self) -> Option<&Value> {
        match self {
            Self::Compaction { extra, .. } => extra.get(WRITTEN_BY_FIELD),
            _ => None,
        }
    }

    /// Records `writer` (a serialized provider identity) as the writer of a compaction item;
    /// other items are unchanged.
    pub fn set_compaction_writer(&mut self, writer: Value) {
        if let Self::Compaction { extra, .. } = self {
            extra.insert(WRITTEN_BY_FIELD.to_string(), writer);
        }
    }

    /// What is sent instead of a compaction item a provider cannot read: a `user` message with
    /// the compaction summary prefix and the readable copy, as a local compaction's summary
    /// message reads (so the next model, and a later compaction's digest, take it as an earlier
    /// summary). `None` for other items and for a compaction item without a copy.
    pub fn readable_copy_message(&self) -> Option<ResponseItem> {
        let copy = self.readable_copy()?;
        Some(ResponseItem::user_text(format!(
            "{COMPACTION_SUMMARY_PREFIX}\n{copy}"
        )))
    }
}

#[cfg(test)]
#[path = "compaction_copy_tests.rs"]
mod tests;
