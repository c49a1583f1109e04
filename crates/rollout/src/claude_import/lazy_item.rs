//! A Claude Code content block kept as its JSON text until its item is typed.
//!
//! Tool calls and tool results carry most of a transcript's bytes (a tool's output, a call's
//! arguments), and the import's rules never look inside them: the block is kept as it was read
//! and converted into its item only when a reader types the record (see
//! docs/design/rollout-formats.md, "Lazy lines").

use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;

use super::content_blocks;
use super::record_view;

/// A `tool_result` block of a user record or a `tool_use` block of an assistant record, as read.
#[derive(Debug, Clone)]
pub(crate) struct LazyClaudeItem {
    timestamp: String,
    block: LazyBlock,
}

#[derive(Debug, Clone)]
pub(crate) enum LazyBlock {
    /// A `tool_result` block (its JSON text): a `function_call_output` item.
    ToolResult(Box<str>),
    /// A `tool_use` block (its JSON text): a `function_call` item.
    ToolUse(Box<str>),
}

impl PartialEq for LazyBlock {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::ToolResult(a), Self::ToolResult(b)) | (Self::ToolUse(a), Self::ToolUse(b)) => {
                a == b
            }
            (Self::ToolResult(_), Self::ToolUse(_)) | (Self::ToolUse(_), Self::ToolResult(_)) => {
                false
            }
        }
    }
}

impl PartialEq for LazyClaudeItem {
    fn eq(&self, other: &Self) -> bool {
        self.timestamp == other.timestamp && self.block == other.block
    }
}

impl LazyClaudeItem {
    pub(crate) fn new(timestamp: String, block: LazyBlock) -> Self {
        Self { timestamp, block }
    }

    pub(crate) fn timestamp(&self) -> &str {
        &self.timestamp
    }

    /// The type of the item the block becomes.
    pub(crate) fn payload_type(&self) -> &'static str {
        match self.block {
            LazyBlock::ToolResult(_) => "function_call_output",
            LazyBlock::ToolUse(_) => "function_call",
        }
    }

    /// Written by the model (a tool call), not by the harness or the user.
    pub(crate) fn is_model_output(&self) -> bool {
        matches!(self.block, LazyBlock::ToolUse(_))
    }

    pub(crate) fn item(&self) -> RolloutItem {
        RolloutItem::ResponseItem(self.block.item())
    }

    pub(crate) fn into_line(self) -> RolloutLine {
        let item = self.item();
        RolloutLine::new(self.timestamp, item)
    }
}

impl LazyBlock {
    fn item(&self) -> ResponseItem {
        match self {
            Self::ToolResult(raw) => content_blocks::tool_result_item(&record_view::to_value(raw)),
            Self::ToolUse(raw) => content_blocks::tool_use_item(&record_view::to_value(raw)),
        }
    }
}
