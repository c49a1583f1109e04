//! Staged compaction at the token budget (`[compact.staged]`): the cheapest loss first. When
//! the budget, not the window, triggers a compaction, the engine masks the old tool outputs
//! (each call keeps its marker and the original is persisted, so `read_file` and `recall` get
//! it back); when that does not bring the context down to [`STAGE_TARGET_PERCENT`] of the
//! trigger it summarises the oldest part of the history and keeps the recent turns verbatim
//! (the session-memory summary first, when one applies); a full compaction runs only when
//! those do not suffice. See docs/design/cost-model.md, "Staged compaction".

use agentctx_compact::CompactionMode;
use agentctx_compact::MicroCompactIndex;
use agentctx_compact::MicroCompactOutcome;
use agentctx_compact::MicroCompactResult;
use agentctx_compact::PartialCompactRequest;
use agentctx_compact::SummaryGuard;
use agentctx_compact::SummaryPath;
use agentctx_compact::partial_compact;
use agentctx_context::ContextManager;
use agentctx_context::TokenEstimator;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use std::sync::atomic::Ordering;

use super::Compactor;
use super::full_tier::StageInputs;
use super::full_tier::StageResult;
use super::full_tier::Stages;
use crate::context_engine::CompactionTier;
use crate::cost_model::SUMMARY_OUTPUT_TOKENS;
use crate::decision::SummaryEstimate;

/// A stage suffices when it leaves the context at or below this share (in percent) of the
/// auto-compact trigger: the session then grows for a while before the next compaction, rather
/// than compacting again a few requests later.
pub const STAGE_TARGET_PERCENT: u64 = 70;

impl Compactor {
    /// What a history of `items` counts before any request measured it: our estimate of the
    /// items with the request's instructions and tools.
    pub(super) fn fresh_tokens(&self, items: &[ResponseItem]) -> u64 {
        self.estimator
            .estimate_items(items)
            .saturating_add(self.prompt_overhead.load(Ordering::Relaxed))
    }

    /// The most a stage may leave: [`STAGE_TARGET_PERCENT`] of the trigger.
    pub(super) fn stage_target(&self) -> u64 {
        self.thresholds
            .auto_compact
            .saturating_mul(STAGE_TARGET_PERCENT)
            / 100
    }

    /// The recent history the partial stage keeps verbatim: the configured figure (scaled to
    /// the window), at most a quarter of the trigger.
    pub(super) fn stage_keep_recent_tokens(&self) -> u64 {
        self.config
            .staged
            .keep_recent_tokens
            .min(self.thresholds.auto_compact / 4)
    }

    /// The mask stage: every old tool output cleared (micro-compaction in its aggressive mode:
    /// all but the most recent results, whatever the saving), the originals written under the
    /// home as micro-compaction writes them (only the markers in a replay). Returns the masked
    /// history, what was cleared, and what the history counts now (the sizes the history
    /// manager kept, with the request overhead: nothing is measured again). `None` when
    /// nothing could be cleared or a result could not be written (logged).
    pub(super) fn mask_stage(
        &self,
        history: &[ResponseItem],
    ) -> Option<(Vec<ResponseItem>, MicroCompactOutcome, u64)> {
        let mut masked = ContextManager::new();
        masked.replace(history.to_vec());
        let mut index = MicroCompactIndex::with_tool_classes(self.tool_classes().clone());
        match agentctx_compact::micro_compact(
            &mut masked,
            &mut index,
            &self.config,
            CompactionMode::Aggressive,
            &self.home,
            self.micro_persistence,
        ) {
            Ok(MicroCompactResult::Applied(outcome)) => {
                let tokens = masked
                    .estimate_token_count()
                    .saturating_add(self.prompt_overhead.load(Ordering::Relaxed));
                Some((masked.raw_items().to_vec(), outcome, tokens))
            }
            Ok(MicroCompactResult::Skipped(skip)) => {
                tracing::debug!(?skip, "mask stage: nothing to mask");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "mask stage: a result could not be persisted; not masking");
                None
            }
        }
    }

    /// The summary request of `summarized_tokens` of history, priced before it is sent: the
    /// guard's figures when it acted. The request sends neither the session's tools nor its
    /// exact prefix, so it is priced as read uncached.
    pub(super) fn summary_estimate(
        &self,
        summarized_tokens: u64,
        guard: Option<SummaryGuard>,
    ) -> SummaryEstimate {
        let prompt = self
            .estimator
            .estimate_text(agentctx_compact::SUMMARIZATION_PROMPT);
        let input_tokens = guard.map_or_else(
            || summarized_tokens.saturating_add(prompt),
            |guard| guard.tokens_after,
        );
        let cost = self.cost_model.input_cost(input_tokens, 0)
            + SUMMARY_OUTPUT_TOKENS as f64 * self.cost_model.prices().output;
        SummaryEstimate {
            input_tokens,
            cached_tokens: 0,
            output_tokens: SUMMARY_OUTPUT_TOKENS,
            cost_micro_usd: super::micro_cost::micro_units(cost),
            guard,
        }
    }
}

impl Compactor {
    /// The stages before a full compaction, cheapest loss first: the mask stage; the
    /// session-memory summary (`from_memory`, when it applies); the partial stage. The first
    /// that leaves at most [`Compactor::stage_target`] (with the restoration after a summary,
    /// and within the window's `limit`) is the result; when none does, the full compaction goes
    /// on from the masked history.
    pub(super) async fn run_stages(
        &self,
        inputs: StageInputs<'_>,
        from_memory: Option<(Vec<ResponseItem>, LoopEvent)>,
    ) -> Stages {
        let target = self.stage_target();
        let summary_target = target.min(inputs.limit.max_tokens);
        let mut stages = Stages {
            result: None,
            masked: None,
            from_memory,
            offline_reason: None,
        };
        if let Some((masked, outcome, tokens)) = self.mask_stage(inputs.history) {
            if tokens <= target {
                stages.result = Some(StageResult {
                    history: masked,
                    event: outcome.loop_event(),
                    tier: CompactionTier::Mask,
                    summary_estimate: None,
                    restore: false,
                });
                return stages;
            }
            tracing::info!(
                tokens,
                target,
                "mask stage does not suffice; summarising the oldest part"
            );
            stages.masked = Some(masked);
        }
        if let Some((items, event)) = stages.from_memory.take() {
            if self
                .fresh_tokens(&items)
                .saturating_add(inputs.restored_tokens)
                <= summary_target
            {
                stages.result = Some(StageResult {
                    history: items,
                    event,
                    tier: CompactionTier::SessionMemory,
                    summary_estimate: None,
                    restore: true,
                });
                return stages;
            }
            stages.from_memory = Some((items, event));
        }
        let history = stages.masked.as_deref().unwrap_or(inputs.history);
        let request = PartialCompactRequest {
            history,
            initial_context: inputs.initial_context.to_vec(),
            injection: inputs.injection,
            base_instructions: inputs.base_instructions,
            keep_recent_tokens: self.stage_keep_recent_tokens(),
            reserved_output_tokens: self.window.reserved_output_tokens,
            session_id: Some(self.session_id.clone()),
            reasoning: self.reasoning,
        };
        match partial_compact(
            inputs.model,
            request,
            &self.config.full,
            &self.estimator,
            inputs.limit,
        )
        .await
        {
            Ok(outcome) => {
                let tokens = self
                    .fresh_tokens(&outcome.history)
                    .saturating_add(inputs.restored_tokens);
                if tokens <= summary_target {
                    stages.result = Some(StageResult {
                        event: outcome.completed_event(),
                        tier: match outcome.path {
                            SummaryPath::Model => CompactionTier::PartialModel,
                            SummaryPath::Offline => CompactionTier::PartialOffline,
                        },
                        summary_estimate: Some(
                            self.summary_estimate(outcome.summarized_tokens, outcome.guard),
                        ),
                        restore: true,
                        history: outcome.history,
                    });
                    stages.offline_reason = outcome.offline_reason;
                } else {
                    tracing::info!(
                        tokens,
                        summary_target,
                        "partial stage does not suffice; compacting in full"
                    );
                }
            }
            Err(reason) => {
                tracing::info!(?reason, "partial stage does not apply; compacting in full");
            }
        }
        stages
    }
}
