//! The token size of the history the model saw, through compactions and rollbacks.
//!
//! Only sizes are kept, not the items (a size and a kind per item since the last compaction),
//! so replaying a session of hundreds of megabytes holds a few numbers per item in memory.

use agentctx_context::TokenEstimator;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::ResponseItem;

use super::turn_boundary::HistoryItemKind;
use super::turn_boundary::history_item_kind;
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
    items: Vec<SizedItem>,
}

/// What the history keeps of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SizedItem {
    tokens: u64,
    kind: HistoryItemKind,
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

    /// Adds an item of `tokens` tokens; user turns are remembered for compactions and
    /// rollbacks, turn-settings updates for rollbacks.
    pub(crate) fn record(&mut self, tokens: u64, kind: HistoryItemKind) {
        self.item_tokens = self.item_tokens.saturating_add(tokens);
        self.items.push(SizedItem { tokens, kind });
    }

    /// Applies a compaction: the replacement history when recorded, else codex's rebuild (the
    /// newest user messages within 20,000 tokens, then the summary as a user message).
    pub(crate) fn compact(&mut self, compacted: &CompactedItem, estimator: &dyn TokenEstimator) {
        match &compacted.replacement_history {
            Some(items) => {
                self.item_tokens = 0;
                self.items.clear();
                for item in items {
                    let tokens = estimator.estimate_item(item);
                    let turn_start = is_turn_start(item, RecordFlags::default());
                    self.record(tokens, history_item_kind(item, turn_start));
                }
            }
            None => {
                let mut kept = Vec::new();
                let mut budget = COMPACT_USER_MESSAGE_MAX_TOKENS;
                for item in self.items.iter().rev() {
                    if budget == 0 {
                        break;
                    }
                    if item.kind != HistoryItemKind::UserTurn {
                        continue;
                    }
                    let taken = item.tokens.min(budget);
                    kept.push(taken);
                    budget -= taken;
                }
                kept.reverse();
                let summary =
                    estimator.estimate_item(&ResponseItem::user_text(compacted.message.clone()));
                self.item_tokens = 0;
                self.items.clear();
                for tokens in kept {
                    self.record(tokens, HistoryItemKind::UserTurn);
                }
                self.record(summary, HistoryItemKind::Other);
            }
        }
    }

    /// Applies a rollback of the last `num_turns` user turns as codex's history reconstruction
    /// does (`ContextManager::drop_last_n_user_turns`): cut at the start of the `num_turns`-th
    /// turn from the end, never before the first one, then trim the turn-settings updates just
    /// above the cut.
    pub(crate) fn drop_last_n_user_turns(&mut self, num_turns: u32) {
        if num_turns == 0 {
            return;
        }
        let turns: Vec<usize> = self
            .items
            .iter()
            .enumerate()
            .filter(|(_, item)| item.kind == HistoryItemKind::UserTurn)
            .map(|(index, _)| index)
            .collect();
        let Some(&first) = turns.first() else {
            return;
        };
        let from_end = usize::try_from(num_turns).unwrap_or(usize::MAX);
        let mut cut = turns
            .len()
            .checked_sub(from_end)
            .and_then(|index| turns.get(index))
            .copied()
            .unwrap_or(first);
        while cut > first
            && self
                .items
                .get(cut - 1)
                .is_some_and(|item| item.kind == HistoryItemKind::ContextUpdate)
        {
            cut -= 1;
        }
        self.items.truncate(cut);
        self.item_tokens = self
            .items
            .iter()
            .fold(0, |sum, item| sum.saturating_add(item.tokens));
    }
}

#[cfg(test)]
#[path = "prompt_history_tests.rs"]
mod tests;
