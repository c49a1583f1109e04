//! What the reader yields: records with their source line and flags, and skipped lines.

use std::fmt;

use agentctx_protocol::PermissionMode;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use serde::Serialize;

/// One rollout line read from a file, in the Codex envelope whatever the source format.
#[derive(Debug, Clone, PartialEq)]
pub struct RolloutRecord {
    /// The 1-based line of the source file the record comes from (for records merged from
    /// several lines, the first of them).
    pub line_number: usize,
    /// The record.
    pub line: RolloutLine,
    /// What the source said about the record beyond the item itself.
    pub flags: RecordFlags,
}

impl RolloutRecord {
    /// The conversation item of a `response_item` record.
    pub fn response_item(&self) -> Option<&ResponseItem> {
        match &self.line.item {
            RolloutItem::ResponseItem(item) => Some(item),
            RolloutItem::SessionMeta(_)
            | RolloutItem::Compacted(_)
            | RolloutItem::TurnContext(_)
            | RolloutItem::EventMsg(_)
            | RolloutItem::Unknown { .. } => None,
        }
    }
}

/// Flags a source format attaches to a record. Codex rollouts set none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct RecordFlags {
    /// Context the harness injected, not typed by the user (Claude Code `isMeta` records).
    pub injected: bool,
    /// Part of a sub-agent branch rather than the main conversation (Claude Code `isSidechain`).
    pub sidechain: bool,
    /// The permission mode the user was in when the record was written (Claude Code
    /// `permissionMode` on user records); plan mode entered with shift+tab shows only here.
    pub permission_mode: Option<PermissionMode>,
}

/// A line the reader could not use, with the reason. The rest of the file is still read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    /// The 1-based line number.
    pub line_number: usize,
    /// Why the line was skipped (lowercase, no trailing period).
    pub reason: String,
}

impl fmt::Display for SkippedLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line_number, self.reason)
    }
}

/// One step of reading a file.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "records are the common case; boxing them would allocate once more per line"
)]
pub enum ReadEvent {
    /// A usable record.
    Record(RolloutRecord),
    /// A line that was skipped.
    Skipped(SkippedLine),
}
