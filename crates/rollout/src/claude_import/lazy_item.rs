//! A Claude Code content block kept as its JSON text until its item is typed.
//!
//! Tool calls and tool results carry most of a transcript's bytes (a tool's output, a call's
//! arguments), and the import's rules never look inside them: the block is kept as it was read
//! and converted into its item only when a reader types the record (see
//! docs/design/rollout-formats.md, "Lazy lines"). A response's usage is kept the same way: the
//! token counts the import adds up are read from it, and the `token_count` event, which keeps
//! the whole usage object, is built only when typed.

use agentctx_protocol::EventMsg;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::TokenCountEvent;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo;
use serde_json::Value;

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
    /// A response's final usage: a `token_count` event.
    TokenCount(Box<LazyTokenCount>),
}

/// A response's final usage, as its JSON text, with the counts the import read from it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LazyTokenCount {
    /// The usage object's JSON text, kept whole in the event as `claude_usage`.
    pub(crate) usage: Box<str>,
    /// The request's counts.
    pub(crate) last: TokenUsage,
    /// The session's counts so far, this request's included.
    pub(crate) total: TokenUsage,
    /// The model that answered (`message.model`), kept in the event as `model`: a transcript
    /// records no window, and the model names it (`claude-opus-4-6[1m]`).
    pub(crate) model: Option<String>,
    /// Whether the response's lines repeated one output count, and the output they show:
    /// kept in the event as `visible_output_bytes` and `output_tokens_repeated`.
    pub(crate) output: super::output_check::OutputCheck,
}

impl PartialEq for LazyBlock {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::ToolResult(a), Self::ToolResult(b)) | (Self::ToolUse(a), Self::ToolUse(b)) => {
                a == b
            }
            (Self::TokenCount(a), Self::TokenCount(b)) => a == b,
            _ => false,
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

    /// The kind of the line the block becomes (`response_item`, `event_msg`).
    pub(crate) fn kind(&self) -> &'static str {
        match self.block {
            LazyBlock::ToolResult(_) | LazyBlock::ToolUse(_) => "response_item",
            LazyBlock::TokenCount(_) => "event_msg",
        }
    }

    /// The type of the item or event the block becomes.
    pub(crate) fn payload_type(&self) -> &'static str {
        match self.block {
            LazyBlock::ToolResult(_) => "function_call_output",
            LazyBlock::ToolUse(_) => "function_call",
            LazyBlock::TokenCount(_) => "token_count",
        }
    }

    /// Written by the model (a tool call), not by the harness or the user.
    pub(crate) fn is_model_output(&self) -> bool {
        matches!(self.block, LazyBlock::ToolUse(_))
    }

    pub(crate) fn item(&self) -> RolloutItem {
        match &self.block {
            LazyBlock::ToolResult(raw) => RolloutItem::ResponseItem(
                content_blocks::tool_result_item(&record_view::to_value(raw)),
            ),
            LazyBlock::ToolUse(raw) => RolloutItem::ResponseItem(content_blocks::tool_use_item(
                &record_view::to_value(raw),
            )),
            LazyBlock::TokenCount(count) => {
                RolloutItem::EventMsg(EventMsg::TokenCount(count.event()))
            }
        }
    }

    pub(crate) fn into_line(self) -> RolloutLine {
        let item = self.item();
        RolloutLine::new(self.timestamp, item)
    }
}

impl LazyTokenCount {
    /// The `token_count` event: the counts, the model that answered as `model`, and the
    /// original usage object as `claude_usage`.
    pub(crate) fn event(&self) -> TokenCountEvent {
        let mut extra = ExtraFields::new();
        if let Some(model) = &self.model {
            extra.insert("model".to_string(), Value::String(model.clone()));
        }
        extra.insert(
            "claude_usage".to_string(),
            record_view::to_value(&self.usage),
        );
        self.output.write(&mut extra);
        TokenCountEvent {
            info: Some(TokenUsageInfo {
                total_token_usage: self.total,
                last_token_usage: self.last,
                model_context_window: None,
                extra: ExtraFields::new(),
            }),
            rate_limits: None,
            extra,
        }
    }
}
