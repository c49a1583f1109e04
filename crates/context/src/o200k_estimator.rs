//! Exact token counts with the o200k tokenizer (GPT-4o, o-series, GPT-5), behind the `tiktoken`
//! feature.
//!
//! Text is tokenized for real; an item counts the tokens of what the model reads (message text,
//! tool names and arguments, tool outputs, reasoning summaries) plus [`ITEM_OVERHEAD_TOKENS`] of
//! framing. Images keep the fixed estimate (codex's resized-image cost), encrypted
//! blobs the length rule, ghost snapshots zero: the tokenizer cannot see into them either.

use agentctx_protocol::ContentItem;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ReasoningSummary;
use agentctx_protocol::ResponseItem;
use serde_json::Value;
use tiktoken_rs::CoreBPE;

use crate::token_estimator::ENCRYPTED_CONTENT_OVERHEAD_BYTES;
use crate::token_estimator::IMAGE_BYTES_ESTIMATE;
use crate::token_estimator::TokenEstimator;
use crate::token_estimator::approx_tokens_from_byte_count;

/// Tokens of framing counted per item (role, type and separators).
pub(crate) const ITEM_OVERHEAD_TOKENS: u64 = 4;

/// Exact o200k token counts (the tokenizer is loaded once per process).
#[derive(Clone)]
pub struct O200kTokenEstimator {
    bpe: &'static CoreBPE,
}

impl std::fmt::Debug for O200kTokenEstimator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("O200kTokenEstimator")
    }
}

impl Default for O200kTokenEstimator {
    fn default() -> Self {
        Self::new()
    }
}

impl O200kTokenEstimator {
    /// The estimator over the shared o200k tokenizer.
    pub fn new() -> Self {
        Self {
            bpe: tiktoken_rs::o200k_base_singleton(),
        }
    }

    fn count(&self, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        self.bpe.encode_ordinary(text).len() as u64
    }

    fn image_tokens() -> u64 {
        approx_tokens_from_byte_count(IMAGE_BYTES_ESTIMATE)
    }

    fn encrypted_tokens(encoded_len: usize) -> u64 {
        approx_tokens_from_byte_count(
            ((encoded_len as u64).saturating_mul(3) / 4)
                .saturating_sub(ENCRYPTED_CONTENT_OVERHEAD_BYTES),
        )
    }

    fn output_tokens(&self, output: &FunctionCallOutputPayload) -> u64 {
        match &output.body {
            FunctionCallOutputBody::Text(text) => self.count(text),
            FunctionCallOutputBody::ContentItems(parts) => parts
                .iter()
                .map(|part| match part {
                    FunctionCallOutputContentItem::InputText { text } => self.count(text),
                    FunctionCallOutputContentItem::InputImage { .. } => Self::image_tokens(),
                    FunctionCallOutputContentItem::Other(value) => self.value_tokens(value),
                })
                .fold(0, u64::saturating_add),
            FunctionCallOutputBody::Other(value) => self.value_tokens(value),
        }
    }

    fn value_tokens(&self, value: &Value) -> u64 {
        match value {
            Value::Null => 0,
            Value::String(text) => self.count(text),
            other => self.count(&other.to_string()),
        }
    }
}

impl TokenEstimator for O200kTokenEstimator {
    fn estimate_text(&self, text: &str) -> u64 {
        self.count(text)
    }

    fn estimate_item(&self, item: &ResponseItem) -> u64 {
        let body = match item {
            ResponseItem::GhostSnapshot { .. } => return 0,
            ResponseItem::Reasoning {
                encrypted_content: Some(content),
                ..
            }
            | ResponseItem::Compaction {
                encrypted_content: content,
                ..
            } => return Self::encrypted_tokens(content.len()),
            ResponseItem::Message { content, .. } => content
                .iter()
                .map(|part| match part {
                    ContentItem::InputText { text } | ContentItem::OutputText { text } => {
                        self.count(text)
                    }
                    ContentItem::InputImage { .. } => Self::image_tokens(),
                    ContentItem::Other(value) => self.value_tokens(value),
                })
                .fold(0, u64::saturating_add),
            ResponseItem::Reasoning {
                summary, content, ..
            } => {
                let summary_tokens = summary
                    .iter()
                    .map(|part| match part {
                        ReasoningSummary::SummaryText { text } => self.count(text),
                        ReasoningSummary::Other(value) => self.value_tokens(value),
                    })
                    .fold(0, u64::saturating_add);
                let content_tokens = content
                    .iter()
                    .flatten()
                    .map(|part| match part {
                        ReasoningContent::ReasoningText { text }
                        | ReasoningContent::Text { text } => self.count(text),
                        ReasoningContent::Other(value) => self.value_tokens(value),
                    })
                    .fold(0, u64::saturating_add);
                summary_tokens.saturating_add(content_tokens)
            }
            ResponseItem::FunctionCall {
                name, arguments, ..
            } => self.count(name).saturating_add(self.count(arguments)),
            ResponseItem::CustomToolCall { name, input, .. } => {
                self.count(name).saturating_add(self.count(input))
            }
            ResponseItem::FunctionCallOutput { output, .. }
            | ResponseItem::CustomToolCallOutput { output, .. } => self.output_tokens(output),
            ResponseItem::LocalShellCall { action, .. } => self.value_tokens(action),
            ResponseItem::WebSearchCall { action, .. } => action
                .as_ref()
                .map_or(0, |action| self.value_tokens(action)),
            ResponseItem::Other(value) => self.value_tokens(value),
        };
        body.saturating_add(ITEM_OVERHEAD_TOKENS)
    }
}

#[cfg(test)]
#[path = "o200k_estimator_tests.rs"]
mod tests;
