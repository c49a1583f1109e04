//! What the reader yields: records with their source line and flags, and skipped lines.

use std::borrow::Cow;
use std::fmt;

use agentctx_protocol::EventMsg;
use agentctx_protocol::LazyRolloutLine;
use agentctx_protocol::PayloadFidelity;
use agentctx_protocol::PermissionMode;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use serde::Serialize;
use serde_json::Value;

use crate::claude_import::LazyClaudeItem;

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

/// One record read lazily: its line number, flags, kind and payload type are known, and its
/// payload is typed only when asked ([`LazyRecord::item`], [`LazyRecord::into_record`]).
///
/// Codex rollout lines in the current envelope stay JSON text until then
/// ([`LazyRolloutLine`]), and so do the tool calls and tool results of a Claude Code transcript
/// (the content block they come from); the other records of those formats (legacy Codex lines,
/// imported messages, reasoning, usage) are typed as they are read. See docs/design/rollout-formats.md, "Lazy lines".
#[derive(Debug, Clone, PartialEq)]
pub struct LazyRecord {
    /// The 1-based line of the source file the record comes from (for records merged from
    /// several lines, the first of them).
    pub line_number: usize,
    /// What the source said about the record beyond the item itself.
    pub flags: RecordFlags,
    line: LazyLine,
}

#[derive(Debug, Clone, PartialEq)]
enum LazyLine {
    Raw(LazyRolloutLine),
    /// Boxed: typed lines come from the rarer formats, and a `RolloutLine` is three times the
    /// size of a lazy one.
    Typed(Box<RolloutLine>),
    /// A Claude Code tool call or tool result, typed from its content block when asked.
    Claude(LazyClaudeItem),
}

impl LazyRecord {
    pub(crate) fn raw(line_number: usize, line: LazyRolloutLine) -> Self {
        Self {
            line_number,
            flags: RecordFlags::default(),
            line: LazyLine::Raw(line),
        }
    }

    pub(crate) fn typed(record: RolloutRecord) -> Self {
        Self {
            line_number: record.line_number,
            flags: record.flags,
            line: LazyLine::Typed(Box::new(record.line)),
        }
    }

    pub(crate) fn claude(line_number: usize, flags: RecordFlags, item: LazyClaudeItem) -> Self {
        Self {
            line_number,
            flags,
            line: LazyLine::Claude(item),
        }
    }

    /// The typed line, when the record was typed as it was read.
    pub(crate) fn typed_line(&self) -> Option<&RolloutLine> {
        match &self.line {
            LazyLine::Typed(line) => Some(line),
            LazyLine::Raw(_) | LazyLine::Claude(_) => None,
        }
    }

    /// See [`LazyRecord::typed_line`].
    pub(crate) fn typed_line_mut(&mut self) -> Option<&mut RolloutLine> {
        match &mut self.line {
            LazyLine::Typed(line) => Some(line),
            LazyLine::Raw(_) | LazyLine::Claude(_) => None,
        }
    }

    /// The Claude Code content block, when the record is one kept untyped.
    pub(crate) fn claude_item(&self) -> Option<&LazyClaudeItem> {
        match &self.line {
            LazyLine::Claude(item) => Some(item),
            LazyLine::Raw(_) | LazyLine::Typed(_) => None,
        }
    }

    /// The line's `type` (`response_item`, `event_msg`, ...).
    pub fn kind(&self) -> &str {
        match &self.line {
            LazyLine::Raw(line) => line.kind(),
            LazyLine::Typed(line) => line.item.kind(),
            LazyLine::Claude(item) => item.kind(),
        }
    }

    /// The payload's own `type` when it has a string one: the item type of a `response_item`
    /// (`message`, `function_call`, ...), the event of an `event_msg` (`token_count`, ...).
    pub fn payload_type(&self) -> Option<&str> {
        match &self.line {
            LazyLine::Raw(line) => line.payload_type(),
            LazyLine::Typed(line) => typed_payload_type(&line.item),
            LazyLine::Claude(item) => Some(item.payload_type()),
        }
    }

    /// The line's timestamp (empty when it had none).
    pub fn timestamp(&self) -> &str {
        match &self.line {
            LazyLine::Raw(line) => line.timestamp(),
            LazyLine::Typed(line) => &line.timestamp,
            LazyLine::Claude(item) => item.timestamp(),
        }
    }

    /// The lazy line, when the record is one (a Codex line in the current envelope).
    pub fn lazy_line(&self) -> Option<&LazyRolloutLine> {
        match &self.line {
            LazyLine::Raw(line) => Some(line),
            LazyLine::Typed(_) | LazyLine::Claude(_) => None,
        }
    }

    /// The typed item, without the fidelity record a rewrite needs: for readers that never
    /// write the record back. Equal to the item of [`LazyRecord::into_record`] for any payload
    /// without duplicate member names (see [`LazyRolloutLine::item`]).
    pub fn item(&self) -> Cow<'_, RolloutItem> {
        match &self.line {
            LazyLine::Raw(line) => Cow::Owned(line.item()),
            LazyLine::Typed(line) => Cow::Borrowed(&line.item),
            LazyLine::Claude(item) => Cow::Owned(item.item()),
        }
    }

    /// The record typed without the fidelity record a rewrite needs: equal to
    /// [`LazyRecord::into_record`] except that its line's `fidelity` is empty, so writing it
    /// back may differ from the file. For readers that look at items and never write them.
    pub fn into_read_only_record(self) -> RolloutRecord {
        let line = match self.line {
            LazyLine::Raw(line) => {
                let (timestamp, item, extra) = line.into_item();
                RolloutLine {
                    timestamp,
                    item,
                    extra,
                    fidelity: PayloadFidelity::default(),
                }
            }
            LazyLine::Typed(line) => *line,
            LazyLine::Claude(item) => item.into_line(),
        };
        RolloutRecord {
            line_number: self.line_number,
            line,
            flags: self.flags,
        }
    }

    /// The record with the payload as the reader's [`agentctx_protocol::ReadInPart`] read it
    /// (see [`crate::RolloutReader::reading_in_part`]), its line's `fidelity` empty; the item
    /// is taken out of this record. `None` when it was not read in part.
    pub fn take_part_read_record(&mut self) -> Option<RolloutRecord> {
        let LazyLine::Raw(line) = &mut self.line else {
            return None;
        };
        let item = line.take_part_read()?;
        Some(RolloutRecord {
            line_number: self.line_number,
            line: RolloutLine {
                timestamp: line.timestamp().to_string(),
                item,
                extra: line.extra().clone(),
                fidelity: PayloadFidelity::default(),
            },
            flags: self.flags,
        })
    }

    /// The typed record, exactly as the typed reader yields it (fidelity included).
    pub fn into_record(self) -> RolloutRecord {
        let line = match self.line {
            LazyLine::Raw(line) => line.into_line(),
            LazyLine::Typed(line) => *line,
            LazyLine::Claude(item) => item.into_line(),
        };
        RolloutRecord {
            line_number: self.line_number,
            line,
            flags: self.flags,
        }
    }
}

/// The payload type of a typed item, as [`LazyRolloutLine::payload_type`] reads it from the text.
fn typed_payload_type(item: &RolloutItem) -> Option<&str> {
    match item {
        RolloutItem::ResponseItem(ResponseItem::Other(value))
        | RolloutItem::EventMsg(EventMsg::Other(value))
        | RolloutItem::Unknown { payload: value, .. } => value.get("type").and_then(Value::as_str),
        RolloutItem::ResponseItem(item) => Some(item.type_name()),
        RolloutItem::EventMsg(event) => Some(match event {
            EventMsg::TokenCount(_) => "token_count",
            EventMsg::ContextCompacted(_) => "context_compacted",
            EventMsg::UserMessage(_) => "user_message",
            EventMsg::AgentMessage(_) => "agent_message",
            EventMsg::AgentReasoning(_) => "agent_reasoning",
            EventMsg::AgentReasoningRawContent(_) => "agent_reasoning_raw_content",
            EventMsg::TurnAborted(_) => "turn_aborted",
            EventMsg::ThreadRolledBack(_) => "thread_rolled_back",
            EventMsg::Other(_) => return None,
        }),
        RolloutItem::SessionMeta(_) | RolloutItem::Compacted(_) | RolloutItem::TurnContext(_) => {
            None
        }
    }
}

/// One step of reading a file lazily.
#[derive(Debug, Clone, PartialEq)]
pub enum LazyReadEvent {
    /// A usable record, typed on demand.
    Record(LazyRecord),
    /// A line that was skipped.
    Skipped(SkippedLine),
}

impl LazyReadEvent {
    /// The event as the typed reader yields it.
    pub fn into_typed(self) -> ReadEvent {
        match self {
            Self::Record(record) => ReadEvent::Record(record.into_record()),
            Self::Skipped(line) => ReadEvent::Skipped(line),
        }
    }
}

impl From<ReadEvent> for LazyReadEvent {
    fn from(event: ReadEvent) -> Self {
        match event {
            ReadEvent::Record(record) => Self::Record(LazyRecord::typed(record)),
            ReadEvent::Skipped(line) => Self::Skipped(line),
        }
    }
}
