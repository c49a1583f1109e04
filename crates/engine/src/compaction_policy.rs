//! The compaction policy: micro-compaction before each model request, auto-compaction before
//! a turn and in the middle of one, the session-memory tier, full compaction, context
//! restoration, the thrash guard, usage accounting and the background session-memory
//! extraction after a turn.
//!
//! [`crate::ContextEngine`] drives it: [`Compactor::micro`] before each request,
//! [`Compactor::should_compact`] before a turn and after each request that asked for tools,
//! [`Compactor::compact`] when it says so, [`Compactor::record_request_usage`] after each
//! response and [`Compactor::after_turn`] at the end of a turn.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::time::Instant;

use agentctx_compact::CompactConfig;
use agentctx_compact::CompactionThresholds;
use agentctx_compact::ContextUsage;
use agentctx_compact::ContextWindow;
use agentctx_compact::ExtractionTrigger;
use agentctx_compact::FileCache;
use agentctx_compact::LastRequestUsage;
use agentctx_compact::MicroCompactError;
use agentctx_compact::MicroCompactIndex;
use agentctx_compact::MicroCompactOutcome;
use agentctx_compact::MicroCompactResult;
use agentctx_compact::MicroPersistence;
use agentctx_compact::OfflineReason;
use agentctx_compact::PlanFile;
use agentctx_compact::ReadLedger;
use agentctx_compact::SUMMARIZATION_PROMPT;
use agentctx_compact::SessionMemoryStore;
use agentctx_compact::ThrashGuard;
use agentctx_compact::ToolClasses;
use agentctx_compact::TriggerObservation;
use agentctx_compact::micro_compact;
use agentctx_compact::run_extraction;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_context::ItemSize;
use agentctx_context::TokenEstimator;
use agentctx_context::approx_token_count;
use agentctx_model::ModelClient;
use agentctx_protocol::BackgroundTask;
use agentctx_protocol::InvokedSkill;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;

use crate::context_engine::Compaction;
use crate::context_engine::CompactionTier;
use crate::cost_model::CostModel;
use crate::file_observer::FileObserver;
use crate::host_state::HostState;
use crate::usage_prediction::ImageCosts;
use crate::usage_prediction::UsagePrediction;

mod full_tier;
mod micro_cost;
mod staged_tier;

pub(crate) use full_tier::CompactionPlan;
pub use staged_tier::STAGE_TARGET_PERCENT;

/// Where the compaction happens in a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactPoint {
    /// Before the turn's user message: the next turn records the initial context in full.
    PreTurn,
    /// Between two requests of a turn: the initial context is put back before the last user
    /// message and the same turn goes on.
    MidTurn,
}

/// What [`Compactor::compact`] produced, before the engine installs it.
#[derive(Debug, Clone)]
pub(crate) struct CompactionOutcome {
    /// The new history.
    pub(crate) history: Vec<ResponseItem>,
    /// Events to report, in order.
    pub(crate) events: Vec<LoopEvent>,
    /// Files restored in full, with their content (they count as read again).
    pub(crate) restored_files: Vec<(PathBuf, String)>,
    /// Files referenced without being restored.
    pub(crate) referenced_files: Vec<PathBuf>,
    /// The thrash guard's warning, if it raised one.
    pub(crate) warning: Option<String>,
    /// The tier that compacted.
    pub(crate) tier: CompactionTier,
    /// Our estimate of the history before.
    pub(crate) tokens_before: u64,
    /// Why the session-memory tier did not apply, when it was tried and did not.
    pub(crate) session_memory_skipped: Option<String>,
    /// Why the offline summariser wrote the summary, when it did.
    pub(crate) offline_reason: Option<OfflineReason>,
    /// Why the full tier ran here although the mode asked for the provider's compaction.
    pub(crate) remote_fallback: Option<String>,
    /// The summary request, priced before it was sent, when a summary was written here.
    pub(crate) summary_estimate: Option<crate::decision::SummaryEstimate>,
}

impl CompactionOutcome {
    /// The typed result the engine hands its host.
    pub(crate) fn into_compaction(self, point: CompactPoint) -> Compaction {
        let summary = self
            .history
            .iter()
            .rev()
            .find_map(|item| {
                // A provider's compaction item stands for its summary through its readable copy.
                item.readable_copy_message()
                    .unwrap_or_else(|| item.clone())
                    .message_text()
                    .filter(|text| is_compaction_summary(text))
            })
            .unwrap_or_default();
        let tokens_after = ApproxTokenEstimator.estimate_items(&self.history);
        Compaction {
            summary,
            restored_files: self.restored_files,
            referenced_files: self.referenced_files,
            tier: self.tier,
            point,
            tokens_before: self.tokens_before,
            tokens_after,
            events: self.events,
            warning: self.warning,
            remote_fallback: self.remote_fallback,
            summary_estimate: self.summary_estimate,
            history: self.history,
        }
    }
}

/// Whether `text` is a compaction summary (it opens with a summary prefix).
pub(crate) fn is_compaction_summary(text: &str) -> bool {
    agentctx_protocol::COMPACTION_SUMMARY_PREFIXES
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

/// What restoration needs of the session state, taken before the compaction awaits.
#[derive(Debug, Clone, Default)]
pub struct RestorationSnapshot {
    todos: Vec<agentctx_protocol::TodoItem>,
    plan: Option<PlanFile>,
    skills: Vec<InvokedSkill>,
    tasks: Vec<BackgroundTask>,
}

impl RestorationSnapshot {
    /// Copies the todo list, plan file (read from disk now), invoked skills and background
    /// tasks of `host`.
    pub fn of(host: &HostState) -> Self {
        let plan = host.plan.plan_file.as_ref().and_then(|path| {
            std::fs::read_to_string(path).ok().map(|content| PlanFile {
                path: path.clone(),
                content,
            })
        });
        Self {
            todos: host.todos.clone(),
            plan,
            skills: host.invoked_skills.clone(),
            tasks: host.background_tasks.clone(),
        }
    }
}

/// A `PreCompact` hook: told before every compaction, with the history about to be replaced.
pub trait PreCompactHook: Send + Sync {
    /// Runs before the compaction of `history` at `point`.
    fn pre_compact(&self, point: CompactPoint, history: &[ResponseItem]);
}

/// The session's compaction state.
pub struct Compactor {
    /// The configuration as given; `config` is it scaled to the window.
    base_config: CompactConfig,
    config: CompactConfig,
    /// What micro-compaction does with the results it clears: written under the home, or only
    /// the markers (a replay writes nothing).
    micro_persistence: MicroPersistence,
    home: PathBuf,
    session_id: String,
    window: ContextWindow,
    thresholds: CompactionThresholds,
    thrash_guard: ThrashGuard,
    last_request: Option<LastRequestUsage>,
    file_cache: Arc<Mutex<FileCache>>,
    read_ledger: Arc<Mutex<ReadLedger>>,
    extraction: Arc<Mutex<ExtractionTrigger>>,
    tool_calls_this_turn: u32,
    pre_compact_hooks: Vec<Arc<dyn PreCompactHook>>,
    estimator: ApproxTokenEstimator,
    /// What the micro-compaction decision knows of the history, kept across requests.
    micro_index: MicroCompactIndex,
    /// Tokens of the instructions and tool schemas of the latest request.
    /// (Atomic so that a host can check a prompt that borrows the history.)
    prompt_overhead: AtomicU64,
    /// The reasoning parameters of the turn: the full tier's model requests carry them.
    reasoning: Option<agentctx_model::ReasoningOptions>,
    /// Instructions for the next compaction's summary (`/compact <instructions>`), taken by it.
    next_instructions: Option<String>,
    /// The provider clears old tool results itself (Anthropic context editing): micro-compaction
    /// stands aside rather than clear the same results and break the provider's prompt cache.
    provider_edits_context: bool,
    /// The recorded session's time, in a replay: what the thrash guard reads instead of the
    /// wall clock.
    recorded_time: Option<RecordedTime>,
    /// What the usage prediction corrects beyond the measure plus the estimate of the added
    /// items (`usage_prediction.rs`).
    prediction: UsagePrediction,
    /// The session's model priced (`cost_model.rs`): the micro-compaction gate and the default
    /// token budget read it.
    cost_model: CostModel,
    /// What the micro-compaction gate keeps across requests (`micro_cost.rs`).
    micro_cost: micro_cost::MicroCostState,
}

/// A recorded session's time as the thrash guard reads it: an instant as far from the first
/// one as the recording says. A replay runs hours of a session in seconds; on the wall clock
/// its compactions would look like a burst, and the guard would make every later one
/// aggressive (micro-compaction then clears a result on every request, whatever it saves).
#[derive(Debug, Clone, Copy)]
struct RecordedTime {
    /// The wall-clock instant standing for `first`.
    origin: Instant,
    /// The first time recorded.
    first: chrono::DateTime<chrono::Utc>,
    /// The latest time recorded, on the instant scale.
    now: Instant,
}

/// Our estimate of what every request carries besides its input items: the `instructions` and
/// the JSON of the `tools` offered. The one estimate of tool schemas: the live session, the
/// subagents and the replay count a request's overhead here.
pub fn prompt_overhead_tokens(instructions: &str, tools: &[agentctx_model::ToolSpec]) -> u64 {
    let estimator = ApproxTokenEstimator;
    let tools = if tools.is_empty() {
        0
    } else {
        serde_json::to_string(tools)
            .map(|json| estimator.estimate_text(&json))
            .unwrap_or(0)
    };
    estimator.estimate_text(instructions).saturating_add(tools)
}

impl std::fmt::Debug for Compactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compactor")
            .field("window", &self.window)
            .field("thresholds", &self.thresholds)
            .finish_non_exhaustive()
    }
}

impl Compactor {
    /// The compaction state of a session on a model with `context_window` tokens and at most
    /// `max_output_tokens` of output.
    pub fn new(
        config: CompactConfig,
        home: &Path,
        session_id: &str,
        context_window: i64,
        max_output_tokens: Option<i64>,
    ) -> Self {
        let window = ContextWindow::new(
            u64::try_from(context_window).unwrap_or(0),
            max_output_tokens.and_then(|max| u64::try_from(max).ok()),
            &config,
        );
        // Every budget below (restoration, micro-compaction, session memory, full compaction)
        // is the configured one scaled to this window.
        let base_config = config;
        let config = base_config.scaled_to(window.effective_tokens());
        let cost_model = CostModel::default();
        let thresholds = thresholds_of(window, &config, &cost_model);
        let restoration = &config.restoration;
        let file_cache = FileCache::new(
            usize::try_from(restoration.total_budget_tokens).unwrap_or(usize::MAX),
            usize::try_from(restoration.per_file_limit_tokens).unwrap_or(usize::MAX),
        );
        Self {
            thrash_guard: ThrashGuard::new(config.thrash_guard.clone()),
            extraction: Arc::new(Mutex::new(ExtractionTrigger::new(&config.session_memory))),
            base_config,
            config,
            micro_persistence: MicroPersistence::Write,
            home: home.to_path_buf(),
            session_id: session_id.to_string(),
            window,
            thresholds,
            last_request: None,
            file_cache: Arc::new(Mutex::new(file_cache)),
            read_ledger: Arc::new(Mutex::new(ReadLedger::new())),
            tool_calls_this_turn: 0,
            pre_compact_hooks: Vec::new(),
            estimator: ApproxTokenEstimator,
            micro_index: MicroCompactIndex::new(),
            prompt_overhead: AtomicU64::new(0),
            reasoning: None,
            provider_edits_context: false,
            next_instructions: None,
            recorded_time: None,
            prediction: UsagePrediction::default(),
            cost_model,
            micro_cost: micro_cost::MicroCostState::default(),
        }
    }

    /// The levels of `window` under this session's configuration and cost model.
    fn thresholds_for(&self, window: ContextWindow) -> CompactionThresholds {
        thresholds_of(window, &self.config, &self.cost_model)
    }

    /// Moves the session to a model with `context_window` tokens and at most
    /// `max_output_tokens` of output: the window, the thresholds and every scaled budget follow;
    /// the caches, the measure and the thrash guard stay.
    /// Instructions for the next compaction's summary (see `next_instructions`).
    pub(crate) fn set_next_instructions(&mut self, instructions: Option<String>) {
        self.next_instructions = instructions.filter(|text| !text.trim().is_empty());
    }

    /// Whether the provider clears old tool results itself (see `provider_edits_context`).
    pub(crate) fn set_provider_edits_context(&mut self, edits: bool) {
        self.provider_edits_context = edits;
    }

    /// The reasoning parameters of the turn, for the full tier's model requests.
    pub(crate) fn set_reasoning(&mut self, reasoning: Option<agentctx_model::ReasoningOptions>) {
        self.reasoning = reasoning;
    }

    pub(crate) fn set_window(&mut self, context_window: i64, max_output_tokens: Option<i64>) {
        let window = ContextWindow::new(
            u64::try_from(context_window).unwrap_or(0),
            max_output_tokens.and_then(|max| u64::try_from(max).ok()),
            &self.base_config,
        );
        if window == self.window {
            return;
        }
        self.config = self.base_config.scaled_to(window.effective_tokens());
        self.thresholds = self.thresholds_for(window);
        self.window = window;
    }

    /// What micro-compaction does with the results it clears.
    pub(crate) fn set_micro_persistence(&mut self, persistence: MicroPersistence) {
        self.micro_persistence = persistence;
    }

    /// The time of the recorded session a replay is at: from now on the thrash guard reads it
    /// instead of the wall clock. A time before the first one counts as the first.
    pub(crate) fn set_recorded_time(&mut self, at: chrono::DateTime<chrono::Utc>) {
        let recorded = self.recorded_time.get_or_insert_with(|| {
            let origin = Instant::now();
            RecordedTime {
                origin,
                first: at,
                now: origin,
            }
        });
        let elapsed = (at - recorded.first).to_std().unwrap_or_default();
        recorded.now = recorded.origin.checked_add(elapsed).unwrap_or(recorded.now);
    }

    /// The time the thrash guard reads: the recorded session's in a replay, else the wall
    /// clock.
    pub(crate) fn now(&self) -> Instant {
        self.recorded_time
            .map_or_else(Instant::now, |recorded| recorded.now)
    }

    /// The classes of the host's tools, by which micro-compaction knows which results it may
    /// clear (names the host does not offer are known by what Codex and Claude Code record).
    pub(crate) fn set_tool_classes(&mut self, tools: ToolClasses) {
        self.micro_index.set_tool_classes(tools);
    }

    /// The classes set by [`Compactor::set_tool_classes`].
    pub(crate) fn tool_classes(&self) -> &ToolClasses {
        self.micro_index.tool_classes()
    }

    /// Forgets the last measure: the history was rewritten (a rollback, a recorded
    /// compaction).
    pub(crate) fn forget_measure(&mut self) {
        self.last_request = None;
        self.prediction.forget_measure();
        self.micro_cost_history_rewritten();
    }

    /// How the provider counts images, for the usage prediction.
    pub(crate) fn set_image_costs(&mut self, images: ImageCosts) {
        self.prediction.set_image_costs(images);
    }

    /// The usage of `items`, whose sizes are `sizes` (each measured once, as the history
    /// manager keeps them): the last measure plus the sizes of the items added since, with what
    /// the provider counts otherwise corrected (`usage_prediction.rs`).
    pub(crate) fn usage_of_history(
        &self,
        items: &[ResponseItem],
        sizes: &[ItemSize],
    ) -> ContextUsage {
        let overhead = self.prompt_overhead.load(Ordering::Relaxed);
        let usage = ContextUsage::measure_sizes(sizes, self.last_request, self.window)
            .with_unmeasured_overhead(overhead);
        let tokens = |index: usize| sizes.get(index).map_or(0, |size| size.tokens);
        self.prediction.adjust(usage, items, &tokens, overhead)
    }

    /// Remembers what every request carries besides the history (from the latest request's
    /// [`prompt_overhead_tokens`]), so usage that no request measured (a new session, just
    /// after a compaction) counts it, and compaction leaves room for it.
    pub(crate) fn set_prompt_overhead(&self, overhead_tokens: u64) {
        self.prompt_overhead
            .store(overhead_tokens, Ordering::Relaxed);
    }

    /// The token levels of this session's window.
    pub fn thresholds(&self) -> CompactionThresholds {
        self.thresholds
    }

    /// The window and its output reserve.
    pub fn window(&self) -> ContextWindow {
        self.window
    }

    /// Whether any compaction may run (the master switch). Compaction that the blocking limit
    /// or an overflow asks for runs even with automatic compaction off: the alternative is a
    /// request the model cannot take.
    pub fn enabled(&self) -> bool {
        self.config.enabled
    }

    /// Adds a `PreCompact` hook.
    pub(crate) fn add_pre_compact_hook(&mut self, hook: Arc<dyn PreCompactHook>) {
        self.pre_compact_hooks.push(hook);
    }

    /// The observer the file tools report reads to (restoration cache and read ledger).
    pub(crate) fn file_observer(&self) -> Arc<dyn FileObserver> {
        Arc::new(CacheObserver {
            cache: Arc::clone(&self.file_cache),
            ledger: Arc::clone(&self.read_ledger),
        })
    }

    /// Drops `path` from the restoration cache: the model changed it and what it holds now is
    /// not known (the read ledger keeps it as read).
    pub(crate) fn forget_file(&self, path: &Path) {
        if let Ok(mut cache) = self.file_cache.lock() {
            cache.forget(path);
        }
    }

    /// The usage of `history` now: the last request's measure plus the estimate of what was
    /// added since.
    pub fn usage(&self, history: &[ResponseItem]) -> ContextUsage {
        let overhead = self.prompt_overhead.load(Ordering::Relaxed);
        let usage = ContextUsage::measure(history, self.last_request, self.window, &self.estimator)
            .with_unmeasured_overhead(overhead);
        let tokens = |index: usize| {
            history
                .get(index)
                .map_or(0, |item| self.estimator.estimate_item(item))
        };
        self.prediction.adjust(usage, history, &tokens, overhead)
    }

    /// `(used, effective window)` of `history`, for the token-usage reminder and events.
    pub fn usage_figures(&self, history: &[ResponseItem]) -> (u64, u64, u8) {
        let usage = self.usage(history);
        (
            usage.used_tokens(),
            usage.effective_window(),
            usage.percent_left(),
        )
    }

    /// Records what the provider reported for the request that carried `history_len` items and
    /// that we estimated at `estimated_input_tokens`. An implausible report (zero, or under a
    /// quarter of the estimate) is replaced by the estimate
    /// ([`LastRequestUsage::from_reported`]).
    ///
    /// `items` (with `sizes`) is the history now, the request's prompt its first `history_len`
    /// items: the usage prediction reads what the request carried from them.
    pub(crate) fn record_request_usage(
        &mut self,
        usage: &TokenUsage,
        history_len: usize,
        estimated_input_tokens: u64,
        items: &[ResponseItem],
        sizes: &[ItemSize],
    ) {
        let last = LastRequestUsage::from_reported(usage, history_len, estimated_input_tokens);
        let plausible =
            i64::try_from(last.input_tokens).is_ok_and(|tokens| tokens == usage.input_tokens);
        let tokens = |index: usize| sizes.get(index).map_or(0, |size| size.tokens);
        self.prediction.record(
            usage,
            last.input_tokens,
            plausible,
            items
                .get(..history_len.min(items.len()))
                .unwrap_or_default(),
            &tokens,
            self.prompt_overhead.load(Ordering::Relaxed),
        );
        self.last_request = Some(last);
    }

    /// Counts tool calls, for the session-memory extraction trigger.
    pub(crate) fn record_tool_calls(&mut self, count: usize) {
        self.tool_calls_this_turn = self
            .tool_calls_this_turn
            .saturating_add(u32::try_from(count).unwrap_or(u32::MAX));
    }

    /// Whether `used` tokens of a history of `items` items are over the auto-compact
    /// threshold.
    pub fn over_auto_compact(&self, used: u64, items: usize) -> bool {
        self.thresholds
            .should_auto_compact(used, items, &self.config)
    }

    /// Whether `history` is over the auto-compact threshold.
    pub fn should_compact(&self, history: &[ResponseItem]) -> bool {
        let used = self.usage(history).used_tokens();
        self.thresholds
            .should_auto_compact(used, history.len(), &self.config)
    }

    /// Micro-compaction before a request, on `history` in place: the decision on the index
    /// kept across requests (only the items appended since the last request are looked at),
    /// and only when clearing is worthwhile the plan and the clears, each cleared item measured
    /// again (see docs/design/performance.md, "Per-turn pipeline"). With `micro.cost_aware` a
    /// worthwhile clear is applied only when it pays ([`Compactor::take_micro_cost`] says why,
    /// docs/design/cost-model.md). The outcome when results were cleared; a result that could
    /// not be written leaves the history as it was. The request is taken as sent now.
    pub(crate) fn micro(&mut self, history: &mut ContextManager) -> Option<MicroCompactOutcome> {
        self.micro_cost.decision = None;
        if self.provider_edits_context {
            return None;
        }
        let now = self.now();
        let mode = self.thrash_guard.next_mode(now);
        self.micro_cost_bank_request();
        let priced = self.price_micro(history, mode, now);
        self.micro_cost.decision = priced;
        let outcome = if priced.is_some_and(|decision| !decision.clear) {
            tracing::trace!(?priced, "micro-compaction does not pay under a warm cache");
            None
        } else {
            self.micro_gated(history)
        };
        if priced.is_none()
            && let Some(outcome) = &outcome
        {
            // Without the gate a clear is still reported on the cost model's terms.
            self.micro_cost.decision = self.price_applied(history, outcome, now);
        }
        if let (Some(outcome), Some(decision)) = (&outcome, self.micro_cost.decision) {
            self.micro_cost_bank_clear(&decision, outcome.tokens_saved);
        }
        self.micro_cost_request_sent(history.len(), now);
        outcome
    }

    /// [`Compactor::micro_now`] with its failure logged.
    fn micro_gated(&mut self, history: &mut ContextManager) -> Option<MicroCompactOutcome> {
        match self.micro_now(history) {
            Ok(MicroCompactResult::Applied(outcome)) => Some(outcome),
            Ok(MicroCompactResult::Skipped(skip)) => {
                tracing::trace!(?skip, "micro-compaction skipped");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "micro-compaction could not persist a result; history left as is");
                None
            }
        }
    }

    /// Micro-compaction now, whatever the request (`agentctx compact --tier micro`; and before
    /// every request, [`Compactor::micro`]): under this session's configuration and thrash
    /// mode, `history` is cleared in place when that is worthwhile, the cleared results written
    /// under the home unless this compactor writes nothing (a replay). The result says what
    /// was cleared or why nothing was.
    pub(crate) fn micro_now(
        &mut self,
        history: &mut ContextManager,
    ) -> Result<MicroCompactResult, MicroCompactError> {
        let mode = self.thrash_guard.next_mode(self.now());
        micro_compact(
            history,
            &mut self.micro_index,
            &self.config,
            mode,
            &self.home,
            self.micro_persistence,
        )
    }

    /// Waits up to the configured time for `extraction` (an extraction in flight), so a
    /// compaction can use the summary it is writing.
    pub(crate) async fn wait_for_extraction(&self, extraction: Vec<tokio::task::JoinHandle<()>>) {
        if extraction.is_empty() {
            return;
        }
        let wait = std::time::Duration::from_millis(self.config.session_memory.wait_timeout_ms);
        if tokio::time::timeout(wait, futures::future::join_all(extraction))
            .await
            .is_err()
        {
            tracing::info!(
                "session-memory extraction still running; compacting without waiting longer"
            );
        }
    }

    /// At the end of a turn: starts the background session-memory extraction when its trigger
    /// fires. The extraction runs on its own task and never blocks the next turn.
    pub(crate) fn after_turn(
        &mut self,
        model: Arc<dyn ModelClient>,
        history: &[ResponseItem],
        last_response_had_tool_calls: bool,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let context_tokens = self.usage(history).used_tokens();
        let tool_calls = std::mem::take(&mut self.tool_calls_this_turn);
        let now = Instant::now();
        let ticket = {
            let mut trigger = self.extraction.lock().ok()?;
            trigger.record_tool_calls(tool_calls);
            let observation = TriggerObservation {
                context_tokens,
                last_response_had_tool_calls,
            };
            if !trigger.should_extract(observation, now) {
                return None;
            }
            trigger.extraction_started(context_tokens, now)
        };
        let store = match SessionMemoryStore::new(&self.home, &self.session_id) {
            Ok(store) => store,
            Err(error) => {
                tracing::warn!(%error, "session memory unavailable");
                if let Ok(mut trigger) = self.extraction.lock() {
                    trigger.extraction_finished(ticket, false);
                }
                return None;
            }
        };
        let history = history.to_vec();
        let trigger = Arc::clone(&self.extraction);
        Some(tokio::spawn(async move {
            let result = run_extraction(model.as_ref(), &store, &history, chrono::Utc::now()).await;
            if let Err(error) = &result {
                tracing::warn!(%error, "session-memory extraction failed");
            }
            if let Ok(mut trigger) = trigger.lock() {
                trigger.extraction_finished(ticket, result.is_ok());
            }
        }))
    }
}

/// The levels of `window` under `config` (scaled to it), with the default token budget of
/// `cost_model` when `auto_compact_tokens` is `"auto"`.
fn thresholds_of(
    window: ContextWindow,
    config: &CompactConfig,
    cost_model: &CostModel,
) -> CompactionThresholds {
    let thresholds =
        CompactionThresholds::new(window, config, approx_token_count(SUMMARIZATION_PROMPT));
    match config
        .auto_compact_tokens
        .is_auto()
        .then(|| cost_model.default_budget(window.window_tokens))
        .flatten()
    {
        Some(budget) => thresholds.with_budget(budget),
        None => thresholds,
    }
}

struct CacheObserver {
    cache: Arc<Mutex<FileCache>>,
    ledger: Arc<Mutex<ReadLedger>>,
}

impl FileObserver for CacheObserver {
    fn file_read(
        &self,
        path: &Path,
        content: &str,
        _turn: i32,
        _offset: Option<usize>,
        _limit: Option<usize>,
    ) {
        if let Ok(mut cache) = self.cache.lock() {
            cache.record_read(path.to_path_buf(), content);
        }
        if let Ok(mut ledger) = self.ledger.lock() {
            ledger.record_read(path.to_path_buf(), content);
        }
    }

    fn file_written(&self, path: &Path, content: &str, _turn: i32) {
        // The model's own write is what it knows of the file now.
        if let Ok(mut cache) = self.cache.lock() {
            cache.record_read(path.to_path_buf(), content);
        }
    }
}
