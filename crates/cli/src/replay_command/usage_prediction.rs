//! The compaction pipeline beside a recorded session: per model request, our [`ContextUsage`]
//! prediction (the previous request's recorded input plus our estimate of what was added since)
//! against what the request recorded, and where each of our tiers would have triggered (see
//! docs/design/compaction.md, "Replay: predicted usage and the timeline").
//!
//! Nothing here changes the replayed history: the session goes on as recorded, and each request
//! is judged on the history it really had. A full compaction is only estimated (the offline
//! summariser, never a model).

use std::path::Path;

use agentctx_compact::CarriedItems;
use agentctx_compact::CompactConfig;
use agentctx_compact::CompactionMode;
use agentctx_compact::CompactionThresholds;
use agentctx_compact::ContextUsage;
use agentctx_compact::ContextWindow;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::LastRequestUsage;
use agentctx_compact::MicroCompactIndex;
use agentctx_compact::SUMMARIZATION_PROMPT;
use agentctx_compact::ThresholdLevel;
use agentctx_compact::build_compacted_history;
use agentctx_compact::collect_user_message_texts;
use agentctx_compact::filter_for_summarization;
use agentctx_compact::summarize_offline;
use agentctx_context::ItemSize;
use agentctx_context::TokenEstimator;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::ResponseItem;
use serde::Serialize;

/// The window assumed when the session records none (Claude Code transcripts do not) and the
/// model table does not know its model.
pub(crate) const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// The token budget of the offline summary in the full-compaction estimate (the budget the
/// compact crate gives its offline fallback).
const OFFLINE_SUMMARY_MAX_TOKENS: usize = 10_000;

/// Where micro-compaction's plan says cleared results would be persisted. Nothing is written;
/// the path only sizes the `<persisted-output …>` marker that replaces a result.
const PLAN_HOME: &str = ".agentctx";

/// What the replay of usage needs to know besides the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageOptions {
    /// The compaction settings the tiers are judged under.
    pub(crate) config: CompactConfig,
    /// The window given for sessions that record none (`--context-window`): it comes before
    /// the model table.
    pub(crate) context_window: Option<u64>,
    /// The window when the session records none, none was given, and the model table does
    /// not know the session's model.
    pub(crate) default_window: u64,
}

impl Default for UsageOptions {
    fn default() -> Self {
        Self {
            config: CompactConfig::default(),
            context_window: None,
            default_window: DEFAULT_CONTEXT_WINDOW,
        }
    }
}

/// What our usage prediction was based on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PredictionBasis {
    /// The previous request's recorded input plus the estimate of the items added since: the
    /// pairs `usage_prediction_error` is measured on.
    PreviousRequest,
    /// No usable previous request (the first request, or the history was rewritten by a
    /// compaction or a rollback since): the estimate of the whole history, as our pipeline does
    /// right after a compaction. Left out of `usage_prediction_error`.
    WholeHistory,
}

/// Our tiers' thresholds for the session's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct UsageThresholds {
    /// The window.
    pub(crate) window: u64,
    /// The window minus the reserved output.
    pub(crate) effective_window: u64,
    /// The warning level.
    pub(crate) warning: u64,
    /// The auto-compact trigger.
    pub(crate) auto_compact: u64,
    /// The blocking limit.
    pub(crate) blocking: u64,
}

/// A tier that would have changed the history: tokens before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct TierTrigger {
    /// Our usage before the tier.
    pub(crate) tokens_before: u64,
    /// Our usage after it (micro: the plan's savings taken off; full: the estimate of the
    /// compacted history with an offline summary).
    pub(crate) tokens_after: u64,
}

/// One model request of the main thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RequestUsage {
    /// 1-based request number in the session.
    pub(crate) request: usize,
    /// Line of the request's first model-generated item.
    pub(crate) line: usize,
    /// Our usage for the request: what our trigger would have read.
    pub(crate) predicted_tokens: u64,
    /// What `predicted_tokens` is based on.
    pub(crate) basis: PredictionBasis,
    /// The input tokens the request recorded (cached included), when it recorded usage.
    pub(crate) recorded_tokens: Option<u64>,
    /// A recorded compaction rewrote the history since the previous request.
    pub(crate) after_compaction: bool,
    /// Micro-compaction would have cleared results before the request.
    pub(crate) micro_compact: Option<TierTrigger>,
    /// The level our usage (after micro-compaction) reached: `normal`, `warning`, `error`,
    /// `auto_compact` or `blocking`.
    #[serde(serialize_with = "serialize_level")]
    pub(crate) level: ThresholdLevel,
    /// Auto-compaction would have run here: the first request at or over the trigger since the
    /// start or the last recorded compaction.
    pub(crate) auto_compact: Option<TierTrigger>,
}

/// Replaces the text of a tool result, as micro-compaction's application does (without writing
/// the persisted copy: replay writes nothing).
fn replace_output(item: &mut ResponseItem, text: &str) {
    match item {
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => {
            output.body = FunctionCallOutputBody::Text(text.to_string());
        }
        _ => {}
    }
}

/// A [`ThresholdLevel`] by its name in snake case.
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `serialize_with` passes a reference"
)]
fn serialize_level<S: serde::Serializer>(
    level: &ThresholdLevel,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(match level {
        ThresholdLevel::Normal => "normal",
        ThresholdLevel::Warning => "warning",
        ThresholdLevel::Error => "error",
        ThresholdLevel::AutoCompact => "auto_compact",
        ThresholdLevel::Blocking => "blocking",
    })
}

impl RequestUsage {
    /// |predicted − recorded| / recorded, for a pair that counts.
    pub(crate) fn relative_error(&self) -> Option<f64> {
        let recorded = self.recorded_tokens.filter(|&tokens| tokens > 0)?;
        if self.basis != PredictionBasis::PreviousRequest {
            return None;
        }
        let diff = self.predicted_tokens.abs_diff(recorded);
        Some(diff as f64 / recorded as f64)
    }
}

/// `usage_prediction_error`: the nearest-rank median and 95th percentile of the relative errors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct PredictionError {
    /// The median (`null` without pairs).
    pub(crate) median: Option<f64>,
    /// The 95th percentile (`null` without pairs).
    pub(crate) p95: Option<f64>,
    /// Pairs measured.
    pub(crate) n: usize,
}

impl PredictionError {
    /// Over `requests`, the pairs with a previous-request basis and a recorded input.
    pub(crate) fn over<'a>(requests: impl IntoIterator<Item = &'a RequestUsage>) -> Self {
        let mut errors: Vec<f64> = requests
            .into_iter()
            .filter_map(RequestUsage::relative_error)
            .collect();
        errors.sort_by(f64::total_cmp);
        Self {
            median: nearest_rank(&errors, 50),
            p95: nearest_rank(&errors, 95),
            n: errors.len(),
        }
    }
}

/// The `percent`-th percentile of sorted `values` by nearest rank: the value at rank
/// ⌈percent/100 × n⌉ (1-based).
fn nearest_rank(sorted: &[f64], percent: usize) -> Option<f64> {
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// Follows the main thread's history and judges each request.
pub(crate) struct UsageReplay {
    options: UsageOptions,
    items: Vec<ResponseItem>,
    /// The size of each item of `items`, each measured once.
    sizes: Vec<ItemSize>,
    /// Bumped whenever `items` changes other than by an append (a compaction, a rollback,
    /// micro-compaction's clears), for `micro_index`.
    version: u64,
    /// What the micro-compaction decision knows of `items`, so each request looks only at the
    /// items added since the previous one (see docs/design/performance.md, "`agentctx replay`").
    micro_index: MicroCompactIndex,
    /// Indices in `items` of the items that start a user turn (for rollbacks).
    turn_starts: Vec<usize>,
    instructions_tokens: u64,
    recorded_window: Option<u64>,
    /// The last request that recorded usage, while the history still extends its input.
    last_measured: Option<LastRequestUsage>,
    /// The session records a request's measure before its items (Codex 0.4x–0.5x; see
    /// [`UsageReplay::recorded`]).
    measures_lead: bool,
    /// A recorded input that measures the request about to start, in such a session.
    pending_measure: Option<u64>,
    /// The window the model table gives for the model the session recorded.
    model_window: Option<u64>,
    /// The history was rewritten since the last measured request.
    rewritten: bool,
    compacted_since_request: bool,
    /// Our usage has crossed the auto-compact trigger since the start or the last compaction.
    over_trigger: bool,
    /// The requests, the open one last.
    requests: Vec<RequestUsage>,
    /// History length at the start of the open request.
    open_request_len: Option<usize>,
}

impl UsageReplay {
    pub(crate) fn new(options: UsageOptions) -> Self {
        Self {
            options,
            items: Vec::new(),
            sizes: Vec::new(),
            version: 0,
            micro_index: MicroCompactIndex::new(),
            turn_starts: Vec::new(),
            instructions_tokens: 0,
            recorded_window: None,
            last_measured: None,
            measures_lead: false,
            pending_measure: None,
            model_window: None,
            rewritten: false,
            compacted_since_request: false,
            over_trigger: false,
            requests: Vec::new(),
            open_request_len: None,
        }
    }

    /// The base instructions sent with every request (counted only when nothing was measured:
    /// a recorded input already holds them).
    pub(crate) fn set_instructions_tokens(&mut self, tokens: u64) {
        self.instructions_tokens = tokens;
    }

    /// An item added to the main thread's history, with its size (measured once by the caller,
    /// which counts it too).
    pub(crate) fn push_item(&mut self, item: &ResponseItem, size: ItemSize, starts_turn: bool) {
        if starts_turn {
            self.turn_starts.push(self.items.len());
        }
        self.items.push(item.clone());
        self.sizes.push(size);
    }

    /// A model request starts with the history as it is now; returns how we judge it.
    pub(crate) fn request_started(
        &mut self,
        line: usize,
        estimator: &dyn TokenEstimator,
    ) -> RequestUsage {
        let window = self.window();
        let thresholds = self.thresholds(estimator);
        let last = self.last_measured.filter(|_| !self.rewritten);
        let usage = ContextUsage::measure_sizes(&self.sizes, last, window);
        let (predicted_tokens, basis) = match usage.measured_tokens {
            Some(_) => (usage.used_tokens(), PredictionBasis::PreviousRequest),
            None => (
                usage.used_tokens().saturating_add(self.instructions_tokens),
                PredictionBasis::WholeHistory,
            ),
        };
        let micro_compact = self.micro_compact(predicted_tokens, estimator);
        let config = &self.options.config;
        let used = micro_compact.map_or(predicted_tokens, |micro| micro.tokens_after);
        let level = thresholds.level(used);
        let triggers = thresholds.should_auto_compact(used, self.items.len(), config);
        let auto_compact = (triggers && !self.over_trigger).then(|| TierTrigger {
            tokens_before: used,
            tokens_after: self.full_compact_estimate(used, estimator),
        });
        self.over_trigger = triggers;
        let mut request = RequestUsage {
            request: self.requests.len() + 1,
            line,
            predicted_tokens,
            basis,
            recorded_tokens: None,
            after_compaction: self.compacted_since_request,
            micro_compact,
            level,
            auto_compact,
        };
        self.compacted_since_request = false;
        self.open_request_len = Some(self.items.len());
        // Judged first, measured after: a measure recorded before the request's items is this
        // request's own input, never part of its prediction.
        if let Some(tokens) = self.pending_measure.take() {
            request.recorded_tokens = Some(tokens);
            self.last_measured = Some(LastRequestUsage {
                input_tokens: tokens,
                history_len: self.items.len(),
            });
            self.rewritten = false;
        }
        self.requests.push(request.clone());
        request
    }

    /// Micro-compaction before a request whose usage is `predicted_tokens`: decided on the
    /// sizes measured once per item and the index (only the items added since the previous
    /// request are looked at), planned only when it triggers. Our copy of the history takes
    /// the clears, so a result is cleared once and the next trigger needs new material (and
    /// later decisions read the short markers).
    fn micro_compact(
        &mut self,
        predicted_tokens: u64,
        estimator: &dyn TokenEstimator,
    ) -> Option<TierTrigger> {
        let config = &self.options.config;
        if !config.micro_compact_enabled() {
            return None;
        }
        let (_, plan) = self.micro_index.plan_when_worthwhile(
            &self.items,
            &self.sizes,
            self.version,
            &config.micro,
            CompactionMode::Normal,
            Path::new(PLAN_HOME),
            estimator,
        );
        let plan = plan?;
        for clear in &plan.clears {
            if let Some(item) = self.items.get_mut(clear.index) {
                replace_output(item, &clear.replacement);
                if let Some(size) = self.sizes.get_mut(clear.index) {
                    *size = estimator.estimate_item_size(item);
                }
            }
        }
        self.version += 1;
        Some(TierTrigger {
            tokens_before: predicted_tokens,
            tokens_after: predicted_tokens.saturating_sub(plan.tokens_saved),
        })
    }

    /// A request recorded its usage (`input_tokens`, cached included) and the window. Returns
    /// the request it measures and the tokens, when that request has started already.
    ///
    /// Current writers record a request's measure after its items (Codex writes the
    /// `token_count` when the response completes, its items as they arrive; the Claude Code
    /// import after the response): the measure is the open request's, and a second report
    /// for it replaces the first. Codex 0.4x–0.5x recorded a request's items only once its
    /// stream had completed, after the `token_count` of that completion (codex-rs
    /// `core/src/codex.rs`: `try_run_turn` sends the count on `Completed` and returns the
    /// processed items, which `run_task` then records): there the measure comes before the
    /// request's items and is kept until the request starts. Such a session is recognised by
    /// its first measure, which comes before any request (a current writer's first one follows
    /// the first request's items). A measure of zero input tokens measures no request (codex's
    /// count after a context-window error, its estimates). The copies those builds wrote of
    /// each measure are the caller's to drop (see `session_replay`, and
    /// docs/design/rollout-formats.md, "What replay does").
    pub(crate) fn recorded(
        &mut self,
        input_tokens: i64,
        window: Option<i64>,
    ) -> Option<(usize, u64)> {
        if let Some(window) = window.and_then(|window| u64::try_from(window).ok()) {
            self.recorded_window = Some(window);
        }
        let tokens = u64::try_from(input_tokens)
            .ok()
            .filter(|&tokens| tokens > 0)?;
        if self.requests.is_empty() {
            self.measures_lead = true;
        }
        if self.measures_lead {
            self.pending_measure = Some(tokens);
            return None;
        }
        let history_len = self.open_request_len?;
        let request = self.requests.last_mut()?;
        request.recorded_tokens = Some(tokens);
        self.last_measured = Some(LastRequestUsage {
            input_tokens: tokens,
            history_len,
        });
        self.rewritten = false;
        Some((request.request, tokens))
    }

    /// The model the session recorded (a Codex `turn_context.model` or `thread_settings_applied`,
    /// the model of an imported Claude Code response): its window in the model table is used
    /// when the session records none (a `[1m]` suffix is the one-million-token window).
    pub(crate) fn model(&mut self, slug: &str) {
        self.model_window = agentctx_model::known_context_window(slug)
            .and_then(|window| u64::try_from(window).ok());
    }

    /// A recorded compaction replaced the history: with the recorded replacement, or codex's
    /// rebuild (recent user messages and the summary) when the rollout has none.
    pub(crate) fn compacted(&mut self, compacted: &CompactedItem, estimator: &dyn TokenEstimator) {
        self.items = match &compacted.replacement_history {
            Some(items) => items.clone(),
            None => build_compacted_history(
                Vec::new(),
                &collect_user_message_texts(&self.items),
                &compacted.message,
                InitialContextInjection::DoNotInject,
                CarriedItems::default(),
            ),
        };
        self.turn_starts.clear();
        self.sizes = self
            .items
            .iter()
            .map(|item| estimator.estimate_item_size(item))
            .collect();
        self.history_rewritten();
        self.compacted_since_request = true;
        self.over_trigger = false;
    }

    /// The last `num_turns` user turns were rolled back: the history is cut at the start of the
    /// `num_turns`-th turn from the end (at the first turn when there are fewer), as codex
    /// rebuilds it.
    pub(crate) fn rolled_back(&mut self, num_turns: u32) {
        let from_end = usize::try_from(num_turns).unwrap_or(usize::MAX);
        if from_end == 0 {
            return;
        }
        let keep = self.turn_starts.len().saturating_sub(from_end);
        if let Some(&cut) = self.turn_starts.get(keep) {
            self.items.truncate(cut);
            self.sizes.truncate(cut);
            self.turn_starts.truncate(keep);
        }
        self.history_rewritten();
    }

    fn history_rewritten(&mut self) {
        self.version += 1;
        self.rewritten = true;
        self.open_request_len = None;
        // A measure waiting for its request measured one before the rewrite (codex's
        // summarisation request, whose output is the compaction itself).
        self.pending_measure = None;
    }

    /// The window in use: the session's, else the one given, else the model table's for the
    /// session's model, else the default.
    fn window(&self) -> ContextWindow {
        let tokens = self
            .recorded_window
            .or(self.options.context_window)
            .or(self.model_window)
            .unwrap_or(self.options.default_window);
        ContextWindow::new(tokens, None, &self.options.config)
    }

    fn thresholds(&self, estimator: &dyn TokenEstimator) -> CompactionThresholds {
        CompactionThresholds::new(
            self.window(),
            &self.options.config,
            estimator.estimate_text(SUMMARIZATION_PROMPT),
        )
    }

    /// The thresholds for the window the session ended with.
    pub(crate) fn final_thresholds(&self, estimator: &dyn TokenEstimator) -> UsageThresholds {
        let thresholds = self.thresholds(estimator);
        UsageThresholds {
            window: self.window().window_tokens,
            effective_window: thresholds.effective_window,
            warning: thresholds.warning,
            auto_compact: thresholds.auto_compact,
            blocking: thresholds.blocking,
        }
    }

    /// Our full compaction of the history now, estimated: `used` with the history's estimate
    /// replaced by the estimate of the history rebuilt from the recent user messages and an
    /// offline summary. What `used` holds beyond the history (the instructions, and in a measured
    /// input the tool definitions and system prompt a transcript does not record) stays.
    fn full_compact_estimate(&self, used: u64, estimator: &dyn TokenEstimator) -> u64 {
        let summary = summarize_offline(
            &filter_for_summarization(&self.items),
            OFFLINE_SUMMARY_MAX_TOKENS,
        );
        let history = build_compacted_history(
            Vec::new(),
            &collect_user_message_texts(&self.items),
            &agentctx_compact::summary_text(&summary),
            InitialContextInjection::DoNotInject,
            CarriedItems::default(),
        );
        used.saturating_sub(estimator.estimate_items(&self.items))
            .saturating_add(estimator.estimate_items(&history))
    }

    /// Every request judged, in order.
    pub(crate) fn requests(&self) -> &[RequestUsage] {
        &self.requests
    }
}

#[cfg(test)]
#[path = "usage_prediction_tests.rs"]
mod tests;
