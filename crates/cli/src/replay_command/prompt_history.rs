//! The token size of the history the model saw, through compactions.
//!
//! Only sizes are kept, not the items, so replaying a session of hundreds of megabytes holds a
//! few numbers per user message in memory.

use agentctx_context::TokenEstimator;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::ResponseItem;

use super::turn_boundary::is_turn_start;
use agentctx_rollout::RecordFlags;

/// Budget of user messages codex keeps when it rebuilds a history after a compaction that did
/// not record its replacement (`COMPACT_USER_MESSAGE_MAX_TOKENS`).
const COMPACT_USER_MESSAGE_MAX_TOKENS: u64 = 20_000;

/// Estimated size of what the next request will send.
#[derive(Debug, Default)]
pub(crate) struct PromptHistory {
    instructions_tokens: u64,
    item_tokens: u64,
    user_message_tokens: Vec<u64>,
}

impl PromptHistory {
    /// Sets the size of the base instructions sent with every request.
    pub(crate) fn set_instructions_tokens(&mut self, tokens: u64) {
        self.instructions_tokens = tokens;
    }

    /// Size of the base instructions.
    pub(crate) fn instructions_tokens(&self) -> u64 {
        self.instructions_tokens
    }

    /// Estimated tokens of the prompt: instructions plus history.
    pub(crate) fn prompt_tokens(&self) -> u64 {
        self.instructions_tokens.saturating_add(self.item_tokens)
    }

    /// Adds an item of `tokens` tokens; real user messages are remembered for compactions.
    pub(crate) fn record(&mut self, tokens: u64, is_user_turn: bool) {
        self.item_tokens = self.item_tokens.saturating_add(tokens);
        if is_user_turn {
            self.user_message_tokens.push(tokens);
        }
    }

    /// Applies a compaction: the replacement history when recorded, else codex's rebuild (the
    /// newest user messages within 20,000 tokens, then the summary as a user message).
    pub(crate) fn compact(&mut self, compacted: &CompactedItem, estimator: &dyn TokenEstimator) {
        match &compacted.replacement_history {
            Some(items) => {
                self.item_tokens = 0;
                self.user_message_tokens.clear();
                for item in items {
                    let tokens = estimator.estimate_item(item);
                    self.record(tokens, is_turn_start(item, RecordFlags::default()));
                }
            }
            None => {
                let mut kept = Vec::new();
                let mut budget = COMPACT_USER_MESSAGE_MAX_TOKENS;
                for &tokens in self.user_message_tokens.iter().rev() {
                    if budget == 0 {
                        break;
                    }
                    let taken = tokens.min(budget);
                    kept.push(taken);
                    budget -= taken;
                }
                kept.reverse();
                let summary =
                    estimator.estimate_item(&ResponseItem::user_text(compacted.message.clone()));
                self.item_tokens = kept.iter().sum::<u64>().saturating_add(summary);
                self.user_message_tokens = kept;
            }
        }
    }
}

#[cfg(test)]
#[path = "prompt_history_tests.rs"]
mod tests;
