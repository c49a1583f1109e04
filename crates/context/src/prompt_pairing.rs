//! What normalisation would change in a history, kept up to date item by item.
//!
//! Normalising a history for a prompt (see `normalize.rs`) adds an aborted output after a call
//! that has none, drops an output whose call is missing, drops ghost snapshots and, for a model
//! without image input, replaces images. On a healthy history none of that applies: every call
//! has its output and there is nothing to drop or replace. [`PromptPairing`] counts, as items
//! enter and leave, the call ids on either side of a pair and the items normalisation would
//! drop or change, so the prompt of a healthy history is known to be the history itself without
//! looking at it again (see docs/design/performance.md, "Per-turn pipeline").

use agentctx_protocol::ContentItem;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::ResponseItem;

/// Which pairing a call id belongs to: function (and local shell) calls pair with function
/// outputs, custom tool calls with custom outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum PairKind {
    Function,
    Custom,
}

/// How many calls and outputs of one id the history holds.
#[derive(Debug, Clone, Copy, Default)]
struct PairCounts {
    calls: u32,
    outputs: u32,
}

impl PairCounts {
    fn call_without_output(self) -> bool {
        self.calls > 0 && self.outputs == 0
    }

    fn output_without_call(self) -> bool {
        self.outputs > 0 && self.calls == 0
    }
}

/// The counts behind [`PromptPairing::is_clean`].
#[derive(Debug, Clone, Default)]
pub(crate) struct PromptPairing {
    /// (foldhash: hashed on every tool call and output the history records.)
    pairs: foldhash::HashMap<(PairKind, String), PairCounts>,
    /// Ids with a call and no output: normalisation adds an aborted output after each call.
    calls_without_output: usize,
    /// Ids with an output and no call: normalisation drops the outputs.
    outputs_without_call: usize,
    /// Ghost snapshots: never sent.
    ghost_snapshots: usize,
    /// Items holding an image: replaced for a model without image input.
    items_with_images: usize,
}

/// Whether an item enters or leaves the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Enter,
    Leave,
}

impl PromptPairing {
    /// Counts an item entering the history.
    pub(crate) fn add(&mut self, item: &ResponseItem) {
        self.change(item, Change::Enter);
    }

    /// Counts an item leaving the history (or the old version of an item being changed).
    pub(crate) fn remove(&mut self, item: &ResponseItem) {
        self.change(item, Change::Leave);
    }

    /// Forgets every item.
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }

    /// True when normalising the history for a prompt would change nothing: the prompt is the
    /// history, item for item. `strips_images` is whether the model lacks image input.
    pub(crate) fn is_clean(&self, strips_images: bool) -> bool {
        self.calls_without_output == 0
            && self.outputs_without_call == 0
            && self.ghost_snapshots == 0
            && (!strips_images || self.items_with_images == 0)
    }

    fn change(&mut self, item: &ResponseItem, change: Change) {
        match item {
            ResponseItem::FunctionCall { call_id, .. }
            | ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } => self.count_pair(PairKind::Function, call_id, true, change),
            ResponseItem::CustomToolCall { call_id, .. } => {
                self.count_pair(PairKind::Custom, call_id, true, change);
            }
            ResponseItem::FunctionCallOutput { call_id, .. } => {
                self.count_pair(PairKind::Function, call_id, false, change);
            }
            ResponseItem::CustomToolCallOutput { call_id, .. } => {
                self.count_pair(PairKind::Custom, call_id, false, change);
            }
            ResponseItem::GhostSnapshot { .. } => {
                step(&mut self.ghost_snapshots, change);
            }
            _ => {}
        }
        if has_images(item) {
            step(&mut self.items_with_images, change);
        }
    }

    fn count_pair(&mut self, kind: PairKind, call_id: &str, is_call: bool, change: Change) {
        let key = (kind, call_id.to_string());
        let before = self.pairs.get(&key).copied().unwrap_or_default();
        let mut after = before;
        let count = if is_call {
            &mut after.calls
        } else {
            &mut after.outputs
        };
        *count = match change {
            Change::Enter => count.saturating_add(1),
            Change::Leave => count.saturating_sub(1),
        };
        adjust(
            &mut self.calls_without_output,
            before.call_without_output(),
            after.call_without_output(),
        );
        adjust(
            &mut self.outputs_without_call,
            before.output_without_call(),
            after.output_without_call(),
        );
        if after.calls == 0 && after.outputs == 0 {
            self.pairs.remove(&key);
        } else {
            self.pairs.insert(key, after);
        }
    }
}

fn step(counter: &mut usize, change: Change) {
    *counter = match change {
        Change::Enter => counter.saturating_add(1),
        Change::Leave => counter.saturating_sub(1),
    };
}

/// Moves `counter` by one when a condition it counts became true or false.
fn adjust(counter: &mut usize, before: bool, after: bool) {
    match (before, after) {
        (false, true) => *counter = counter.saturating_add(1),
        (true, false) => *counter = counter.saturating_sub(1),
        _ => {}
    }
}

/// Whether an item holds an image that a model without image input cannot see.
pub(crate) fn has_images(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { content, .. } => content
            .iter()
            .any(|part| matches!(part, ContentItem::InputImage { .. })),
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => match &output.body {
            FunctionCallOutputBody::ContentItems(parts) => parts
                .iter()
                .any(|part| matches!(part, FunctionCallOutputContentItem::InputImage { .. })),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
#[path = "prompt_pairing_tests.rs"]
mod tests;
