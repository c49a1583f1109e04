//! History items with their sizes, measured once when they enter.
//!
//! Every mutation goes through this type, so the size of an item is estimated exactly once, when
//! it is inserted or changed; totals are kept up to date, so the whole history's estimate is
//! O(1) and an append costs one item's estimation. The same goes for what normalisation would
//! change ([`PromptPairing`]): it is counted as items enter and leave.

use std::sync::Arc;

use agentctx_protocol::ResponseItem;

use crate::prompt_pairing::PromptPairing;
use crate::token_estimator::ItemSize;
use crate::token_estimator::TokenEstimator;

#[derive(Clone)]
pub(crate) struct EstimatedItems {
    items: Vec<ResponseItem>,
    sizes: Vec<ItemSize>,
    total: ItemSize,
    pairing: PromptPairing,
    estimator: Arc<dyn TokenEstimator>,
}

impl std::fmt::Debug for EstimatedItems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EstimatedItems")
            .field("items", &self.items)
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

impl EstimatedItems {
    pub(crate) fn new(estimator: Arc<dyn TokenEstimator>) -> Self {
        Self {
            items: Vec::new(),
            sizes: Vec::new(),
            total: ItemSize::default(),
            pairing: PromptPairing::default(),
            estimator,
        }
    }

    pub(crate) fn items(&self) -> &[ResponseItem] {
        &self.items
    }

    pub(crate) fn sizes(&self) -> &[ItemSize] {
        &self.sizes
    }

    pub(crate) fn total(&self) -> ItemSize {
        self.total
    }

    pub(crate) fn pairing(&self) -> &PromptPairing {
        &self.pairing
    }

    pub(crate) fn estimator(&self) -> &dyn TokenEstimator {
        self.estimator.as_ref()
    }

    pub(crate) fn push(&mut self, item: ResponseItem) {
        let size = self.estimator.estimate_item_size(&item);
        add(&mut self.total, size);
        self.pairing.add(&item);
        self.items.push(item);
        self.sizes.push(size);
    }

    pub(crate) fn remove(&mut self, index: usize) -> Option<ResponseItem> {
        if index >= self.items.len() {
            return None;
        }
        let item = self.items.remove(index);
        let size = self.sizes.remove(index);
        subtract(&mut self.total, size);
        self.pairing.remove(&item);
        Some(item)
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        for size in self.sizes.drain(len.min(self.sizes.len())..) {
            subtract(&mut self.total, size);
        }
        for item in self.items.get(len..).unwrap_or_default() {
            self.pairing.remove(item);
        }
        self.items.truncate(len);
    }

    pub(crate) fn replace_all(&mut self, items: Vec<ResponseItem>) {
        self.items.clear();
        self.sizes.clear();
        self.total = ItemSize::default();
        self.pairing.clear();
        self.items.reserve(items.len());
        self.sizes.reserve(items.len());
        for item in items {
            self.push(item);
        }
    }

    /// Changes the item at `index` with `edit`; re-estimates it when `edit` returns true.
    pub(crate) fn edit(
        &mut self,
        index: usize,
        edit: impl FnOnce(&mut ResponseItem) -> bool,
    ) -> bool {
        let Some(item) = self.items.get_mut(index) else {
            return false;
        };
        // The item is counted out and in again whatever `edit` reports, so a change it did
        // not report cannot leave the pairing counts behind.
        self.pairing.remove(item);
        let edited = edit(item);
        self.pairing.add(item);
        if !edited {
            return false;
        }
        let new_size = self.estimator.estimate_item_size(item);
        if let Some(size) = self.sizes.get_mut(index) {
            subtract(&mut self.total, *size);
            add(&mut self.total, new_size);
            *size = new_size;
        }
        true
    }
}

fn add(total: &mut ItemSize, size: ItemSize) {
    total.bytes = total.bytes.saturating_add(size.bytes);
    total.tokens = total.tokens.saturating_add(size.tokens);
}

fn subtract(total: &mut ItemSize, size: ItemSize) {
    total.bytes = total.bytes.saturating_sub(size.bytes);
    total.tokens = total.tokens.saturating_sub(size.tokens);
}
