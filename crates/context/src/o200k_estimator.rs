//! Exact token counts with the o200k tokenizer (GPT-4o, o-series, GPT-5), behind the `tiktoken`
//! feature.
//!
//! Text is tokenized for real; an item counts the tokens of what the model reads plus framing
//! (see `item_text_tokens.rs`).

use agentctx_protocol::ResponseItem;
use tiktoken_rs::CoreBPE;

#[cfg(test)]
use crate::item_text_tokens::ITEM_OVERHEAD_TOKENS;
use crate::item_text_tokens::item_tokens;
use crate::token_estimator::TokenEstimator;

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
}

impl TokenEstimator for O200kTokenEstimator {
    fn estimate_text(&self, text: &str) -> u64 {
        self.count(text)
    }

    fn estimate_item(&self, item: &ResponseItem) -> u64 {
        item_tokens(item, &|text| self.count(text))
    }
}

#[cfg(test)]
#[path = "o200k_estimator_tests.rs"]
mod tests;
