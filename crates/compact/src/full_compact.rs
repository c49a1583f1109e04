//! Full compaction: the history is summarised by a model (codex's handoff prompt), or by the
//! offline summariser when no model is given or the model fails, and replaced by a compacted
//! history. It cannot dead-end on a full window: a summary request that does not fit is made
//! to fit by clearing tool outputs, then by dropping the oldest items, and as a last resort the
//! offline summariser runs. See docs/design/compaction.md, "Full compaction".

use std::borrow::Cow;
use std::path::PathBuf;

use agentctx_context::TokenEstimator;
use agentctx_context::TruncationPolicy;
use agentctx_context::truncate_text;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::complete_prompt;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use serde::Serialize;

use crate::compacted_history::CarriedItems;
use crate::compacted_history::InitialContextInjection;
use crate::compacted_history::build_compacted_history_with_limit;
use crate::config::FullCompactConfig;
use crate::config::OFFLINE_SUMMARY_SHARE;
use crate::config::USER_MESSAGE_SHARE;
use crate::message_filter::cleanup_summary_tags;
use crate::message_filter::collect_user_message_texts;
use crate::message_filter::filter_for_summarization;
use crate::message_filter::is_valid_summary;
use crate::offline_summary::summarize_offline;
use crate::restoration::RestoredContext;
use crate::summary_prompt::SUMMARIZATION_PROMPT;
use crate::summary_prompt::summary_text;

/// What a tool output says once it was cleared to make the summary request fit.
pub(crate) const PRUNED_TOOL_OUTPUT: &str = "[Old tool result content cleared]";

/// The most tokens the offline summary may take.
pub(crate) const OFFLINE_SUMMARY_MAX_TOKENS: u64 = 10_000;

/// The token budget of the offline summary on a window of `effective_window` tokens: a tenth
/// of it, at most `OFFLINE_SUMMARY_MAX_TOKENS` (10,000).
pub fn offline_summary_budget(effective_window: u64) -> u64 {
    OFFLINE_SUMMARY_SHARE.cap(OFFLINE_SUMMARY_MAX_TOKENS, effective_window)
}

/// How much a context-window error shrinks the next summary request: to this share (in
/// percent) of the estimate of the request that was refused.
const OVERFLOW_SHRINK_PERCENT: u64 = 90;

/// How large the compacted history may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryLimit {
    /// The effective window of the model the history is for: the budgets of the new history
    /// (recent user messages, offline summary) are scaled to it
    /// ([`CompactConfig::scaled_to`](crate::CompactConfig::scaled_to)).
    pub effective_window: u64,
    /// The most tokens the new history may hold. Over it, fewer user messages are kept
    /// verbatim (their budget halved until none), then the summary is cut, until it fits.
    pub max_tokens: u64,
}

impl HistoryLimit {
    /// No limit: the configured budgets as they are.
    pub const UNLIMITED: Self = Self {
        effective_window: u64::MAX,
        max_tokens: u64::MAX,
    };

    /// The limit [`full_compact`] uses: the model's effective window (its window minus
    /// `reserved_output_tokens`), or none when the window is not known.
    pub fn of_model(model: Option<&dyn ModelClient>, reserved_output_tokens: u64) -> Self {
        let window = model.map_or(0, |model| {
            u64::try_from(model.context_window()).unwrap_or(0)
        });
        if window == 0 {
            return Self::UNLIMITED;
        }
        let effective = window.saturating_sub(reserved_output_tokens);
        Self {
            effective_window: effective,
            max_tokens: effective,
        }
    }
}

/// The fewest tokens a cut summary keeps; below this the summary says nothing useful and the
/// compaction is left over its limit for the host to report.
const MIN_SUMMARY_TOKENS: u64 = 16;

/// What to compact and how.
#[derive(Debug, Clone)]
pub struct FullCompactRequest<'a> {
    /// The history to replace.
    pub history: &'a [ResponseItem],
    /// The fresh initial context (permissions, instructions, environment), built by the host
    /// from the current settings; used with [`InitialContextInjection::BeforeLastUserMessage`].
    pub initial_context: Vec<ResponseItem>,
    /// Mid-turn or pre-turn.
    pub injection: InitialContextInjection,
    /// The base instructions of the summary request (the session's system prompt).
    pub base_instructions: &'a str,
    /// A prompt that replaces [`SUMMARIZATION_PROMPT`] (a user's configured or `/compact`
    /// instructions).
    pub prompt_override: Option<&'a str>,
    /// Tokens of the window kept free for the summary itself.
    pub reserved_output_tokens: u64,
    /// The session id, for the provider's prompt cache.
    pub session_id: Option<String>,
    /// The reasoning parameters of the turn being compacted: the summary request thinks as the
    /// turn's requests do (codex sends the turn's reasoning with its compaction request).
    pub reasoning: Option<agentctx_model::ReasoningOptions>,
}

/// Which summariser wrote the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SummaryPath {
    /// The model answered the handoff prompt.
    Model,
    /// The offline summariser built it from the history.
    Offline,
}

/// Why the offline summariser was used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum OfflineReason {
    /// No model was given.
    NoModel,
    /// Every attempt failed; the last error (or an invalid summary) is kept.
    ModelFailed {
        /// What the last attempt returned.
        last_error: String,
    },
    /// Even the newest item alone does not fit the model's window.
    PromptTooLarge,
}

/// What the cost guard did to a summary request over
/// [`FullCompactConfig::max_summary_request_tokens`] before the model was asked: the oldest tool
/// outputs cleared (the persisted originals stay retrievable), then the oldest items condensed
/// by the offline summariser into one message. See docs/design/cost-model.md, "The cost guard".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SummaryGuard {
    /// The limit, in tokens of the request (instructions and prompt included).
    pub limit_tokens: u64,
    /// Our estimate of the request before the guard.
    pub tokens_before: u64,
    /// Our estimate of the request sent.
    pub tokens_after: u64,
    /// Tool outputs cleared.
    pub outputs_cleared: usize,
    /// Oldest items condensed offline.
    pub items_condensed: usize,
}

/// What a summary request is made of, besides the items it summarises.
#[derive(Debug, Clone)]
pub(crate) struct SummaryRequest<'a> {
    /// The request's instructions (the session's system prompt).
    pub(crate) base_instructions: &'a str,
    /// The prompt that asks for the summary, sent after the items.
    pub(crate) prompt_text: &'a str,
    /// Tokens of the window kept free for the summary.
    pub(crate) reserved_output_tokens: u64,
    /// The session id, for the provider's prompt cache.
    pub(crate) session_id: Option<String>,
    /// The reasoning parameters of the turn being compacted.
    pub(crate) reasoning: Option<agentctx_model::ReasoningOptions>,
}

/// What the condensed message costs besides its text: the item's own overhead, with room for
/// the estimate's rounding.
const CONDENSED_ITEM_OVERHEAD_TOKENS: u64 = 32;

/// The opening of the message that stands for the items the cost guard condensed offline.
pub(crate) const CONDENSED_OPENING: &str =
    "The earliest part of this conversation, condensed without a model to keep this request small:";

/// What a full compaction did: the new history and the figures the host reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FullCompactOutcome {
    /// The history to continue with.
    pub history: Vec<ResponseItem>,
    /// The summary, without the prefix.
    pub summary: String,
    /// Who wrote it.
    pub path: SummaryPath,
    /// Why the offline summariser was used, when it was.
    pub offline_reason: Option<OfflineReason>,
    /// Summary requests sent to the model.
    pub attempts: u32,
    /// Oldest items left out of the summary request so it fits.
    pub items_dropped: usize,
    /// Tool outputs cleared in the summary request so it fits.
    pub tool_outputs_pruned: usize,
    /// What the cost guard did to the summary request, when it was over
    /// [`FullCompactConfig::max_summary_request_tokens`].
    pub guard: Option<SummaryGuard>,
    /// Estimated tokens of the history before.
    pub tokens_before: u64,
    /// Estimated tokens of the new history (restoration included once appended).
    pub tokens_after: u64,
    /// Estimated tokens of the summary message.
    pub summary_tokens: u64,
    /// Items of the old history that the new one does not hold.
    pub removed_items: usize,
    /// Files whose contents were restored; the host marks them as read in the reminder
    /// engine.
    pub restored_files: Vec<PathBuf>,
}

impl FullCompactOutcome {
    /// The event the host emits before compacting.
    pub fn started_event() -> LoopEvent {
        LoopEvent::CompactionStarted
    }

    /// The event the host emits once the new history is in place.
    pub fn completed_event(&self) -> LoopEvent {
        LoopEvent::CompactionCompleted {
            removed_messages: i32::try_from(self.removed_items).unwrap_or(i32::MAX),
            summary_tokens: i32::try_from(self.summary_tokens).unwrap_or(i32::MAX),
        }
    }

    /// Appends the restored context after the summary and counts it in `tokens_after`.
    pub fn append_restoration(
        &mut self,
        restored: RestoredContext,
        estimator: &dyn TokenEstimator,
    ) {
        self.tokens_after = self
            .tokens_after
            .saturating_add(estimator.estimate_items(&restored.items));
        self.history.extend(restored.items);
        self.restored_files.extend(restored.restored_files);
    }
}

/// Runs a full compaction. Never fails: without a usable model the offline summariser writes
/// the summary, and the outcome says so. The new history is made to fit the model's effective
/// window when it is known ([`HistoryLimit::of_model`]); [`full_compact_within`] takes a
/// tighter limit.
pub async fn full_compact(
    model: Option<&dyn ModelClient>,
    request: FullCompactRequest<'_>,
    config: &FullCompactConfig,
    estimator: &dyn TokenEstimator,
) -> FullCompactOutcome {
    let limit = HistoryLimit::of_model(model, request.reserved_output_tokens);
    full_compact_within(model, request, config, estimator, limit).await
}

/// [`full_compact`] with the new history held to `limit`: the user-message budget and the
/// offline summary are scaled to the limit's effective window, and a history still over
/// `limit.max_tokens` keeps fewer user messages, then a cut summary (see
/// docs/design/compaction.md, "Small windows"). When even the summary cut to a few tokens does
/// not fit, the outcome's `tokens_after` is over the limit and the host reports it.
pub async fn full_compact_within(
    model: Option<&dyn ModelClient>,
    request: FullCompactRequest<'_>,
    config: &FullCompactConfig,
    estimator: &dyn TokenEstimator,
    limit: HistoryLimit,
) -> FullCompactOutcome {
    let tokens_before = estimator.estimate_items(request.history);
    let mut history = request.history.to_vec();
    let carried = CarriedItems::take_from(&mut history);
    let mut summary_input = SummaryInput::new(filter_for_summarization(&history), estimator);

    let mut attempts = 0u32;
    let (summary, offline_reason) = match model {
        None => (None, Some(OfflineReason::NoModel)),
        Some(model) => {
            let summary_request = SummaryRequest {
                base_instructions: request.base_instructions,
                prompt_text: request.prompt_override.unwrap_or(SUMMARIZATION_PROMPT),
                reserved_output_tokens: request.reserved_output_tokens,
                session_id: request.session_id.clone(),
                reasoning: request.reasoning,
            };
            let result = summarize_with_model(
                model,
                &summary_request,
                config,
                estimator,
                &mut summary_input,
                &mut attempts,
            )
            .await;
            match result {
                Ok(summary) => (Some(summary), None),
                Err(reason) => (None, Some(reason)),
            }
        }
    };
    let (summary, path) = match summary {
        Some(summary) => (summary, SummaryPath::Model),
        None => (
            summarize_offline(
                &history,
                usize::try_from(offline_summary_budget(limit.effective_window))
                    .unwrap_or(usize::MAX),
            ),
            SummaryPath::Offline,
        ),
    };
    match &offline_reason {
        // The host chose to run without a model: nothing went wrong.
        Some(OfflineReason::NoModel) => {
            tracing::info!("full compaction used the offline summariser (no model)");
        }
        Some(reason) => tracing::warn!(?reason, "full compaction used the offline summariser"),
        None => {}
    }

    let user_messages = collect_user_message_texts(request.history);
    let budget = USER_MESSAGE_SHARE.cap(config.user_message_budget_tokens, limit.effective_window);
    let CompactedToFit {
        history: new_history,
        summary,
        summary_message,
    } = compact_to_fit(
        CompactedParts {
            initial_context: request.initial_context,
            user_messages: &user_messages,
            injection: request.injection,
            carried,
        },
        summary,
        budget,
        limit.max_tokens,
        estimator,
    );
    let removed_items = count_removed(request.history, &new_history);
    FullCompactOutcome {
        tokens_after: estimator.estimate_items(&new_history),
        summary_tokens: estimator.estimate_text(&summary_message),
        history: new_history,
        summary,
        path,
        offline_reason,
        attempts,
        items_dropped: summary_input.items_dropped,
        tool_outputs_pruned: summary_input.tool_outputs_pruned,
        guard: summary_input.guard,
        tokens_before,
        removed_items,
        restored_files: Vec::new(),
    }
}

/// The items of `history` that `new_history` does not hold (an equal item), counted in one pass
/// over each: the items of `new_history` are looked up by fields equal items share, then
/// compared whole. A walk of `new_history` for every item was quadratic: a long session's
/// compacted history keeps a thousand user messages, compared with each item compacted.
fn count_removed(history: &[ResponseItem], new_history: &[ResponseItem]) -> usize {
    let mut kept: foldhash::HashMap<EqualityKey<'_>, Vec<&ResponseItem>> =
        foldhash::HashMap::default();
    for item in new_history {
        kept.entry(equality_key(item)).or_default().push(item);
    }
    history
        .iter()
        .filter(|item| {
            kept.get(&equality_key(item))
                .is_none_or(|same_key| !same_key.contains(item))
        })
        .count()
}

/// Fields two equal items share: their type, role, call id and message text.
type EqualityKey<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<String>);

fn equality_key(item: &ResponseItem) -> EqualityKey<'_> {
    (
        item.type_name(),
        item.role(),
        item.call_id(),
        item.message_text(),
    )
}

/// What the compacted history is built from, besides the summary.
struct CompactedParts<'a> {
    initial_context: Vec<ResponseItem>,
    user_messages: &'a [String],
    injection: InitialContextInjection,
    carried: CarriedItems,
}

impl CompactedParts<'_> {
    fn build(&self, summary_message: &str, user_budget: u64) -> Vec<ResponseItem> {
        build_compacted_history_with_limit(
            self.initial_context.clone(),
            self.user_messages,
            summary_message,
            self.injection,
            self.carried.clone(),
            usize::try_from(user_budget).unwrap_or(usize::MAX),
        )
    }
}

/// The compacted history that fits, with the summary as it was kept.
struct CompactedToFit {
    history: Vec<ResponseItem>,
    summary: String,
    summary_message: String,
}

/// Builds the compacted history within `max_tokens`: with the full user-message budget first;
/// while over, the budget is halved (down to no user message), then the summary is cut in
/// half (keeping its start and end) down to [`MIN_SUMMARY_TOKENS`]. Each step is a rebuild of
/// a short history, and at most a few dozen are needed.
fn compact_to_fit(
    parts: CompactedParts<'_>,
    mut summary: String,
    mut user_budget: u64,
    max_tokens: u64,
    estimator: &dyn TokenEstimator,
) -> CompactedToFit {
    let mut summary_message = summary_text(&summary);
    let mut history = parts.build(&summary_message, user_budget);
    let mut tokens = estimator.estimate_items(&history);
    let mut summary_tokens = estimator.estimate_text(&summary);
    while tokens > max_tokens {
        if user_budget > 0 {
            user_budget /= 2;
        } else if summary_tokens > MIN_SUMMARY_TOKENS {
            summary_tokens /= 2;
            summary = truncate_text(
                &summary,
                TruncationPolicy::Tokens(usize::try_from(summary_tokens).unwrap_or(usize::MAX)),
            );
            summary_message = summary_text(&summary);
        } else {
            tracing::warn!(
                tokens,
                max_tokens,
                "the compacted history does not fit its limit even with the summary cut"
            );
            break;
        }
        history = parts.build(&summary_message, user_budget);
        tokens = estimator.estimate_items(&history);
    }
    CompactedToFit {
        history,
        summary,
        summary_message,
    }
}

/// Asks the model for the summary: at most `1 + max_summary_retries` failed attempts (an
/// error or an invalid summary); a context-window error is not a failure but shrinks the
/// request and sends it again. A request over the cost guard
/// ([`FullCompactConfig::max_summary_request_tokens`]) is first brought under it
/// ([`SummaryInput::guard`]).
pub(crate) async fn summarize_with_model(
    model: &dyn ModelClient,
    request: &SummaryRequest<'_>,
    config: &FullCompactConfig,
    estimator: &dyn TokenEstimator,
    input: &mut SummaryInput,
    attempts: &mut u32,
) -> Result<String, OfflineReason> {
    let prompt_text = request.prompt_text;
    let fixed_tokens = estimator
        .estimate_text(request.base_instructions)
        .saturating_add(estimator.estimate_text(prompt_text));
    if config.max_summary_request_tokens > 0 {
        input.guard(config.max_summary_request_tokens, fixed_tokens, estimator);
    }
    let window = u64::try_from(model.context_window()).unwrap_or(0);
    if window > 0 {
        let limit = window
            .saturating_sub(request.reserved_output_tokens)
            .saturating_sub(fixed_tokens);
        if !input.fit(limit, estimator) {
            return Err(OfflineReason::PromptTooLarge);
        }
    }
    let mut failures = 0u32;
    loop {
        // The kept items are borrowed, not copied: a summary request carries most of a long
        // history.
        let mut prompt_input: Vec<Cow<'_, ResponseItem>> =
            input.items.iter().map(Cow::Borrowed).collect();
        prompt_input.push(Cow::Owned(ResponseItem::user_text(prompt_text)));
        let prompt = Prompt {
            instructions: request.base_instructions.to_string(),
            input: prompt_input,
            session_id: request.session_id.clone(),
            reasoning: request.reasoning,
            ..Prompt::default()
        };
        *attempts = attempts.saturating_add(1);
        let last_error = match complete_prompt(model, &prompt).await {
            Ok(text) if is_valid_summary(&text) => return Ok(cleanup_summary_tags(&text)),
            Ok(text) => format!("invalid summary: {:?}", truncate_for_log(&text)),
            Err(ModelError::ContextWindowExceeded { message }) => {
                tracing::info!(%message, "summary request exceeded the context window; shrinking it");
                let limit = input.tokens.saturating_mul(OVERFLOW_SHRINK_PERCENT) / 100;
                if !input.fit(limit, estimator) {
                    return Err(OfflineReason::PromptTooLarge);
                }
                continue;
            }
            Err(error) => error.to_string(),
        };
        failures = failures.saturating_add(1);
        tracing::warn!(%last_error, failures, "summary request failed");
        if failures > config.max_summary_retries {
            return Err(OfflineReason::ModelFailed { last_error });
        }
    }
}

fn truncate_for_log(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The history as the summary request sends it, with its running token estimate.
#[derive(Debug)]
pub(crate) struct SummaryInput {
    items: Vec<ResponseItem>,
    tokens: u64,
    pub(crate) items_dropped: usize,
    pub(crate) tool_outputs_pruned: usize,
    /// What the cost guard did, when it acted.
    pub(crate) guard: Option<SummaryGuard>,
}

impl SummaryInput {
    pub(crate) fn new(items: Vec<ResponseItem>, estimator: &dyn TokenEstimator) -> Self {
        let tokens = estimator.estimate_items(&items);
        Self {
            items,
            tokens,
            items_dropped: 0,
            tool_outputs_pruned: 0,
            guard: None,
        }
    }

    /// The cost guard: a request of these items and `fixed_tokens` of instructions and prompt
    /// that is over `limit_tokens` is brought under it in stages, the cheapest loss first: tool
    /// outputs are cleared, oldest first (their originals stay on disk and in the rollout);
    /// then the oldest items, with the outputs of their calls, are condensed by the offline
    /// summariser into one message (at most a tenth of the limit, 10,000 tokens) that takes
    /// their place. The newest item always stays. Nothing happens under the limit.
    pub(crate) fn guard(
        &mut self,
        limit_tokens: u64,
        fixed_tokens: u64,
        estimator: &dyn TokenEstimator,
    ) {
        let limit = limit_tokens.saturating_sub(fixed_tokens);
        if self.tokens <= limit {
            return;
        }
        let tokens_before = self.tokens.saturating_add(fixed_tokens);
        let pruned_before = self.tool_outputs_pruned;
        self.prune_outputs_until(limit, estimator);
        let outputs_cleared = self.tool_outputs_pruned - pruned_before;
        let items_condensed = if self.tokens > limit {
            self.condense_oldest(limit, estimator)
        } else {
            0
        };
        let guard = SummaryGuard {
            limit_tokens,
            tokens_before,
            tokens_after: self.tokens.saturating_add(fixed_tokens),
            outputs_cleared,
            items_condensed,
        };
        tracing::info!(
            ?guard,
            "summary request over the cost guard; staged before the model is asked"
        );
        self.guard = Some(guard);
    }

    /// Clears tool outputs, oldest first, until the items hold at most `limit` tokens.
    fn prune_outputs_until(&mut self, limit: u64, estimator: &dyn TokenEstimator) {
        let mut index = 0;
        while self.tokens > limit && index < self.items.len() {
            if let Some(item) = self.items.get_mut(index)
                && let Some(saved) = prune_tool_output(item, estimator)
            {
                self.tokens = self.tokens.saturating_sub(saved);
                self.tool_outputs_pruned += 1;
            }
            index += 1;
        }
    }

    /// Replaces the oldest items (with the outputs of their calls, so no output is left without
    /// its call) by one message of their offline summary, so that the items hold at most
    /// `limit` tokens; the newest item always stays. Returns how many items it replaced.
    fn condense_oldest(&mut self, limit: u64, estimator: &dyn TokenEstimator) -> usize {
        let budget = (limit / 10).min(OFFLINE_SUMMARY_MAX_TOKENS);
        // The message holds the opening and the summary; an item costs a few tokens besides.
        let message_tokens = budget
            .saturating_add(estimator.estimate_text(CONDENSED_OPENING))
            .saturating_add(CONDENSED_ITEM_OVERHEAD_TOKENS);
        let target = limit.saturating_sub(message_tokens);
        let sizes: Vec<u64> = self
            .items
            .iter()
            .map(|item| estimator.estimate_item(item))
            .collect();
        // The shortest prefix whose removal leaves at most `target` tokens (never the newest).
        let mut left = self.tokens;
        let mut cut = 0;
        while left > target && cut + 1 < self.items.len() {
            left = left.saturating_sub(sizes.get(cut).copied().unwrap_or(0));
            cut += 1;
        }
        if cut == 0 {
            return 0;
        }
        let calls: foldhash::HashSet<&str> = self.items[..cut]
            .iter()
            .filter(|item| item.is_tool_call())
            .filter_map(ResponseItem::call_id)
            .collect();
        let orphaned: Vec<bool> = self.items[cut..]
            .iter()
            .map(|item| {
                item.is_tool_output() && item.call_id().is_some_and(|id| calls.contains(id))
            })
            .collect();
        let mut condensed = Vec::new();
        let mut kept = Vec::new();
        for (index, item) in std::mem::take(&mut self.items).into_iter().enumerate() {
            let orphan = index >= cut && orphaned.get(index - cut).copied().unwrap_or(false);
            if index < cut || orphan {
                condensed.push(item);
            } else {
                kept.push(item);
            }
        }
        let summary = summarize_offline(&condensed, usize::try_from(budget).unwrap_or(usize::MAX));
        let message = ResponseItem::user_text(format!("{CONDENSED_OPENING}\n\n{summary}"));
        let mut items = Vec::with_capacity(kept.len() + 1);
        items.push(message);
        items.extend(kept);
        self.items = items;
        self.tokens = estimator.estimate_items(&self.items);
        condensed.len()
    }

    /// Shrinks the input to `limit` tokens: tool outputs are cleared, oldest first; then the
    /// oldest items are dropped (a call with its output), never the newest alone. False when
    /// even the newest item alone is over the limit, or nothing is left.
    fn fit(&mut self, limit: u64, estimator: &dyn TokenEstimator) -> bool {
        self.prune_outputs_until(limit, estimator);
        // Never the newest item: the summary must see what happened last.
        while self.tokens > limit && self.items.len() > 1 {
            self.drop_oldest(estimator);
        }
        self.tokens <= limit && !self.items.is_empty()
    }

    /// Drops the oldest item and, for a tool call or output, its counterpart, so the request
    /// never holds an output without its call (or the reverse).
    fn drop_oldest(&mut self, estimator: &dyn TokenEstimator) {
        if self.items.is_empty() {
            return;
        }
        let removed = self.items.remove(0);
        self.tokens = self
            .tokens
            .saturating_sub(estimator.estimate_item(&removed));
        self.items_dropped += 1;
        let Some(call_id) = removed.call_id().map(str::to_string) else {
            return;
        };
        let wants_output = removed.is_tool_call();
        let counterpart = self.items.iter().position(|item| {
            item.call_id() == Some(call_id.as_str())
                && if wants_output {
                    item.is_tool_output()
                } else {
                    item.is_tool_call()
                }
        });
        if let Some(position) = counterpart {
            let counterpart = self.items.remove(position);
            self.tokens = self
                .tokens
                .saturating_sub(estimator.estimate_item(&counterpart));
            self.items_dropped += 1;
        }
    }
}

/// Clears a tool output that is larger than the marker; returns the tokens saved.
fn prune_tool_output(item: &mut ResponseItem, estimator: &dyn TokenEstimator) -> Option<u64> {
    let (ResponseItem::FunctionCallOutput { output, .. }
    | ResponseItem::CustomToolCallOutput { output, .. }) = item
    else {
        return None;
    };
    if output.text_content() == PRUNED_TOOL_OUTPUT {
        return None;
    }
    let before = estimator.estimate_item(item);
    let mut pruned = item.clone();
    if let ResponseItem::FunctionCallOutput { output, .. }
    | ResponseItem::CustomToolCallOutput { output, .. } = &mut pruned
    {
        *output = FunctionCallOutputPayload {
            success: output.success,
            ..FunctionCallOutputPayload::text(PRUNED_TOOL_OUTPUT)
        };
    }
    let after = estimator.estimate_item(&pruned);
    if after >= before {
        return None;
    }
    *item = pruned;
    Some(before - after)
}

#[cfg(test)]
#[path = "full_compact_tests.rs"]
mod tests;
