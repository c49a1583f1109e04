//! The conversation history, oldest item first, and everything derived from it per turn.

use std::borrow::Cow;
use std::sync::Arc;

use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo;
use agentctx_protocol::TurnContextItem;
use agentctx_protocol::is_model_generated;
use agentctx_protocol::is_user_turn_start;

use crate::contextual_user_message::has_non_contextual_developer_content;
use crate::contextual_user_message::is_contextual_developer_message_content;
use crate::contextual_user_message::is_contextual_user_message_content;
use crate::estimated_items::EstimatedItems;
use crate::function_output_truncation::truncate_tool_output_item;
use crate::input_modality::InputModality;
use crate::item_classification::is_api_message;
use crate::normalize::find_corresponding;
use crate::normalize::prompt_view;
use crate::normalize::replace_images;
use crate::settings_update::TurnSettings;
use crate::settings_update::build_settings_update_items;
use crate::token_estimator::ApproxTokenEstimator;
use crate::token_estimator::ItemSize;
use crate::token_estimator::TokenEstimator;
use crate::token_usage_breakdown::TotalTokenUsageBreakdown;
use crate::truncation_policy::TruncationPolicy;

/// The history of one conversation, oldest item first, with its token accounting and the
/// reference context item that settings diffs are computed against.
///
/// Each item's size is estimated once, when it enters the history (or changes), so the estimate
/// of the whole history costs nothing after an append beyond the new item.
#[derive(Debug, Clone)]
pub struct ContextManager {
    items: EstimatedItems,
    token_info: Option<TokenUsageInfo>,
    reference_context_item: Option<TurnContextItem>,
    history_version: u64,
}

impl Default for ContextManager {
    fn default() -> Self {
        Self::new()
    }
}

impl ContextManager {
    /// An empty history measured with [`ApproxTokenEstimator`].
    pub fn new() -> Self {
        Self::with_estimator(Arc::new(ApproxTokenEstimator))
    }

    /// An empty history measured with `estimator`.
    pub fn with_estimator(estimator: Arc<dyn TokenEstimator>) -> Self {
        Self {
            items: EstimatedItems::new(estimator),
            token_info: None,
            reference_context_item: None,
            history_version: 0,
        }
    }

    /// Records items at the end of the history. Items the API does not accept (system messages,
    /// unknown item types) are skipped; tool outputs are truncated at `policy * 1.2`.
    pub fn record_items<I>(&mut self, items: I, policy: TruncationPolicy)
    where
        I: IntoIterator<Item = ResponseItem>,
    {
        for item in items {
            if !is_api_message(&item) {
                tracing::debug!(item_type = item.type_name(), "not recording a non-API item");
                continue;
            }
            self.items.push(truncate_tool_output_item(item, policy));
        }
    }

    /// The history exactly as recorded, ghost snapshots included.
    pub fn raw_items(&self) -> &[ResponseItem] {
        self.items.items()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.items().len()
    }

    /// True when the history has no items.
    pub fn is_empty(&self) -> bool {
        self.items.items().is_empty()
    }

    /// The history as the model sees it: normalised (every call has one output, no orphan
    /// outputs, images replaced when `input_modalities` lacks images) and without ghost
    /// snapshots.
    ///
    /// This copies every item; [`ContextManager::prompt_view`] is the same prompt without the
    /// copy.
    pub fn for_prompt(&self, input_modalities: &[InputModality]) -> Vec<ResponseItem> {
        self.prompt_view(input_modalities)
            .into_iter()
            .map(Cow::into_owned)
            .collect()
    }

    /// [`ContextManager::for_prompt`] without copying the history: each item is borrowed, except
    /// the ones normalisation adds (aborted outputs of calls without one) or changes (images
    /// replaced). It serialises to the same JSON, so a request body can be written from it
    /// directly; a turn on a long history then costs two passes over the items instead of a
    /// deep copy of them (see docs/design/performance.md, "Per-turn pipeline").
    ///
    /// When normalisation would change nothing (every call has its output, nothing to drop or
    /// replace; counted as items enter, see `prompt_pairing.rs`), the view is every item
    /// borrowed, built without looking at the items.
    pub fn prompt_view(&self, input_modalities: &[InputModality]) -> Vec<Cow<'_, ResponseItem>> {
        let strips_images = !input_modalities.contains(&InputModality::Image);
        if self.items.pairing().is_clean(strips_images) {
            return self.items.items().iter().map(Cow::Borrowed).collect();
        }
        prompt_view(self.items.items(), input_modalities)
    }

    /// Replaces the whole history (after compaction, for instance).
    pub fn replace(&mut self, items: Vec<ResponseItem>) {
        self.items.replace_all(items);
        self.history_version += 1;
    }

    /// A counter bumped whenever the history changes other than by an append: replaced, rolled
    /// back, an item removed or edited. While it stays the same, the items a consumer has seen
    /// are unchanged and only new ones may follow (what `agentctx-compact`'s
    /// `MicroCompactIndex` relies on).
    pub fn history_version(&self) -> u64 {
        self.history_version
    }

    /// Removes the oldest item and its call or output partner.
    pub fn remove_first_item(&mut self) -> bool {
        self.remove_item_and_partner(0)
    }

    /// Removes the newest item and its call or output partner. Returns false on an empty history.
    pub fn remove_last_item(&mut self) -> bool {
        match self.len().checked_sub(1) {
            Some(index) => self.remove_item_and_partner(index),
            None => false,
        }
    }

    fn remove_item_and_partner(&mut self, index: usize) -> bool {
        let Some(removed) = self.items.remove(index) else {
            return false;
        };
        self.history_version += 1;
        if let Some(partner) = find_corresponding(self.items.items(), &removed) {
            self.items.remove(partner);
        }
        true
    }

    /// Rolls back the last `num_turns` user turns, as codex does: cuts the history at the start
    /// of the `num_turns`-th user turn from the end, then trims the turn-settings updates
    /// recorded just above the cut (contextual developer sections and contextual user
    /// messages). Nothing before the first user turn is ever removed, however large
    /// `num_turns` is: that is the session prefix (initial context, instructions).
    ///
    /// The reference context item is kept, because the prefix that established it survives,
    /// unless a trimmed developer message also held persistent text (an initial-context
    /// bundle): then the next turn must send the full initial context again. A host that knows
    /// the settings of the newest surviving turn (codex rebuilds them from the rollout) sets
    /// the reference to them afterwards.
    pub fn drop_last_n_user_turns(&mut self, num_turns: u32) {
        if num_turns == 0 {
            return;
        }
        let items = self.items.items();
        let boundaries: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, item)| is_user_turn_start(item))
            .map(|(index, _)| index)
            .collect();
        let Some(&first) = boundaries.first() else {
            return;
        };
        let from_end = usize::try_from(num_turns).unwrap_or(usize::MAX);
        let mut cut = boundaries
            .len()
            .checked_sub(from_end)
            .and_then(|index| boundaries.get(index))
            .copied()
            .unwrap_or(first);
        let mut clear_reference = false;
        while cut > first {
            let Some(ResponseItem::Message { role, content, .. }) = items.get(cut - 1) else {
                break;
            };
            if role == "developer" && is_contextual_developer_message_content(content) {
                clear_reference |= has_non_contextual_developer_content(content);
            } else if !(role == "user" && is_contextual_user_message_content(content)) {
                break;
            }
            cut -= 1;
        }
        self.items.truncate(cut);
        if clear_reference {
            self.reference_context_item = None;
        }
        self.history_version += 1;
    }

    /// Replaces the images of the tool output the provider just rejected (an invalid-image
    /// error) with `placeholder`, so the retry can succeed. Like codex, the candidate is the
    /// newest item that is a tool output or a user turn: when it is the user's own message, no
    /// image is replaced (the user's input is not rewritten, and an earlier turn's valid image
    /// is not the one that failed). Returns true when an image was replaced.
    pub fn replace_last_turn_images(&mut self, placeholder: &str) -> bool {
        let Some(index) = self
            .items
            .items()
            .iter()
            .rposition(|item| item.is_tool_output() || is_user_turn_start(item))
        else {
            return false;
        };
        if !self
            .items
            .items()
            .get(index)
            .is_some_and(ResponseItem::is_tool_output)
        {
            return false;
        }
        let replaced = self
            .items
            .edit(index, |item| replace_images(item, placeholder));
        if replaced {
            self.history_version += 1;
        }
        replaced
    }

    /// Replaces the text of the tool outputs at the given indices (micro-compaction clears old
    /// results this way), in place: each keeps its call id, success flag and extra fields, and
    /// its body becomes the given text. Each replaced item is measured again and the totals
    /// follow; nothing else is copied or measured. An index past the end, or of an item that is
    /// not a tool output, is left alone. The history version is bumped once when anything was
    /// replaced (an edit, not an append). Returns how many items were replaced.
    pub fn replace_tool_output_texts<I>(&mut self, replacements: I) -> usize
    where
        I: IntoIterator<Item = (usize, String)>,
    {
        let mut replaced = 0;
        for (index, text) in replacements {
            if self
                .items
                .edit(index, |item| replace_output_text(item, text))
            {
                replaced += 1;
            }
        }
        if replaced > 0 {
            self.history_version += 1;
        }
        replaced
    }

    /// The estimator the items' sizes are measured with.
    pub fn estimator(&self) -> &dyn TokenEstimator {
        self.items.estimator()
    }

    /// Estimated tokens of the whole history (O(1): sizes are measured on insertion).
    pub fn estimate_token_count(&self) -> u64 {
        self.items.total().tokens
    }

    /// Estimated tokens of the base instructions plus the whole history. Like codex's, this is
    /// a coarse lower bound: tool definitions and framing are not counted.
    pub fn estimate_token_count_with_base_instructions(&self, base_instructions: &str) -> u64 {
        self.items
            .estimator()
            .estimate_text(base_instructions)
            .saturating_add(self.estimate_token_count())
    }

    /// The sizes of the items, in history order.
    pub fn item_sizes(&self) -> &[ItemSize] {
        self.items.sizes()
    }

    /// The token usage the provider reported, if any.
    pub fn token_info(&self) -> Option<&TokenUsageInfo> {
        self.token_info.as_ref()
    }

    /// Sets the token usage (restored from a rollout, for instance).
    pub fn set_token_info(&mut self, info: Option<TokenUsageInfo>) {
        self.token_info = info;
    }

    /// Adds `usage` to the session's total only: tokens billed for work that is not a request's
    /// own answer (a provider's compaction step), so the last request's usage, which says how
    /// full the context is, stays as it was.
    pub fn add_billed_usage(&mut self, usage: &TokenUsage) {
        let info = self.token_info.get_or_insert_with(TokenUsageInfo::default);
        let total = &mut info.total_token_usage;
        total.input_tokens = total.input_tokens.saturating_add(usage.input_tokens);
        total.cached_input_tokens = total
            .cached_input_tokens
            .saturating_add(usage.cached_input_tokens);
        total.output_tokens = total.output_tokens.saturating_add(usage.output_tokens);
        total.reasoning_output_tokens = total
            .reasoning_output_tokens
            .saturating_add(usage.reasoning_output_tokens);
        total.total_tokens = total.total_tokens.saturating_add(usage.total_tokens);
    }

    /// Folds the usage of one API response in: `last_token_usage` becomes `usage`,
    /// `total_token_usage` accumulates it, and the context window is updated when given.
    pub fn update_token_info(&mut self, usage: &TokenUsage, model_context_window: Option<i64>) {
        self.add_billed_usage(usage);
        let info = self.token_info.get_or_insert_with(TokenUsageInfo::default);
        info.last_token_usage = *usage;
        if model_context_window.is_some() {
            info.model_context_window = model_context_window;
        }
    }

    /// Marks the context as full after the provider rejected a request for exceeding the
    /// window: the last usage becomes the whole window, so any threshold check fires.
    pub fn set_token_usage_full(&mut self, context_window: i64) {
        let info = self.token_info.get_or_insert_with(TokenUsageInfo::default);
        let delta = context_window
            .saturating_sub(info.last_token_usage.total_tokens)
            .max(0);
        info.total_token_usage.total_tokens =
            info.total_token_usage.total_tokens.saturating_add(delta);
        info.last_token_usage = TokenUsage {
            total_tokens: context_window,
            ..TokenUsage::default()
        };
        info.model_context_window = Some(context_window);
    }

    /// Tokens the next prompt will occupy: the last API response's `total_tokens` plus the
    /// estimate of the items added after the last model-generated item (the whole history's
    /// estimate while no usage was ever reported). When the provider does
    /// not count reasoning in its usage (`server_reasoning_included == false`), the encrypted
    /// reasoning items before the last user turn are added as well.
    pub fn get_total_token_usage(&self, server_reasoning_included: bool) -> i64 {
        let breakdown = self.get_total_token_usage_breakdown();
        let total = breakdown.last_api_response_total_tokens.saturating_add(
            breakdown.estimated_tokens_of_items_added_since_last_successful_api_response,
        );
        if server_reasoning_included {
            total
        } else {
            total.saturating_add(self.encrypted_reasoning_tokens_before_last_user_turn())
        }
    }

    /// The parts of [`ContextManager::get_total_token_usage`].
    pub fn get_total_token_usage_breakdown(&self) -> TotalTokenUsageBreakdown {
        let last = self
            .token_info
            .as_ref()
            .map_or(0, |info| info.last_token_usage.total_tokens);
        let since = self
            .item_sizes()
            .get(self.start_of_items_since_last_model_output()..)
            .unwrap_or_default()
            .iter()
            .fold(ItemSize::default(), |acc, size| ItemSize {
                bytes: acc.bytes.saturating_add(size.bytes),
                tokens: acc.tokens.saturating_add(size.tokens),
            });
        TotalTokenUsageBreakdown {
            last_api_response_total_tokens: last,
            all_history_items_model_visible_bytes: to_i64(self.items.total().bytes),
            estimated_tokens_of_items_added_since_last_successful_api_response: to_i64(
                since.tokens,
            ),
            estimated_bytes_of_items_added_since_last_successful_api_response: to_i64(since.bytes),
        }
    }

    /// Index of the first item not covered by the last API response's usage: the one after the
    /// last model-generated item. Without any reported usage (a new or imported history), no
    /// item is covered and the whole history counts; with usage but no model output, none does
    /// (as in codex).
    fn start_of_items_since_last_model_output(&self) -> usize {
        if self.token_info.is_none() {
            return 0;
        }
        let items = self.items.items();
        items
            .iter()
            .rposition(is_model_generated)
            .map_or(items.len(), |index| index + 1)
    }

    fn encrypted_reasoning_tokens_before_last_user_turn(&self) -> i64 {
        let items = self.items.items();
        let Some(last_user) = items.iter().rposition(is_user_turn_start) else {
            return 0;
        };
        let tokens = items
            .iter()
            .zip(self.item_sizes())
            .take(last_user)
            .filter(|(item, _)| {
                matches!(
                    item,
                    ResponseItem::Reasoning {
                        encrypted_content: Some(_),
                        ..
                    }
                )
            })
            .fold(0u64, |acc, (_, size)| acc.saturating_add(size.tokens));
        to_i64(tokens)
    }

    /// The settings of the last turn, which the next turn's diff is computed against. `None`
    /// before the first turn and after compaction or rollback.
    pub fn reference_context_item(&self) -> Option<&TurnContextItem> {
        self.reference_context_item.as_ref()
    }

    /// Sets (or clears) the reference context item.
    pub fn set_reference_context_item(&mut self, item: Option<TurnContextItem>) {
        self.reference_context_item = item;
    }

    /// The settings-update items for the turn about to start, diffed against the reference
    /// context item; `None` when there is no reference item and the caller must record the full
    /// initial context instead. See `build_settings_update_items`.
    pub fn settings_update_items(
        &self,
        previous_model: Option<&str>,
        next: &TurnSettings,
    ) -> Option<Vec<ResponseItem>> {
        let reference = self.reference_context_item.as_ref()?;
        Some(build_settings_update_items(
            Some(reference),
            previous_model,
            next,
        ))
    }
}

impl ContextManager {
    /// Records what the model must learn about the turn's settings and makes them the new
    /// reference: the settings diff when a reference item exists, otherwise the full initial
    /// context that `initial_context` builds (first turn, after compaction or rollback). Returns
    /// the recorded items, for the rollout.
    pub fn record_context_updates(
        &mut self,
        previous_model: Option<&str>,
        next: &TurnSettings,
        turn_id: Option<String>,
        initial_context: impl FnOnce() -> Vec<ResponseItem>,
    ) -> Vec<ResponseItem> {
        let items = self
            .settings_update_items(previous_model, next)
            .unwrap_or_else(initial_context);
        self.record_items(items.iter().cloned(), TruncationPolicy::default());
        self.reference_context_item = Some(next.to_turn_context_item(turn_id));
        items
    }
}

/// Makes `text` the body of a tool output, keeping its call id, success flag and extra fields;
/// false (and nothing changed) for any other item.
fn replace_output_text(item: &mut ResponseItem, text: String) -> bool {
    match item {
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => {
            output.body = FunctionCallOutputBody::Text(text);
            true
        }
        _ => false,
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

#[cfg(test)]
#[path = "context_manager_tests.rs"]
mod tests;
