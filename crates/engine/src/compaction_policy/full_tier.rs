//! The compaction itself, in two halves: [`Compactor::plan_compaction`] (the restoration held
//! to the window, the session-memory tier tried) and [`Compactor::finish_compaction`] (the
//! session-memory result, else the full tier: at the provider when `[compact] mode` and the
//! client allow it, else, or when that fails, locally through the model or offline; then the
//! restoration, the thrash guard and the extraction trigger).

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use agentctx_compact::CompactionMode;
use agentctx_compact::FullCompactRequest;
use agentctx_compact::HistoryLimit;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::RestorationInput;
use agentctx_compact::RestoredContext;
use agentctx_compact::SessionMemoryCompaction;
use agentctx_compact::SessionMemoryStore;
use agentctx_compact::SummaryPath;
use agentctx_compact::full_compact_within;
use agentctx_compact::restore_context;
use agentctx_compact::try_session_memory_compact;
use agentctx_context::TokenEstimator;
use agentctx_model::ModelClient;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;

use super::CompactPoint;
use super::CompactionOutcome;
use super::Compactor;
use super::RestorationSnapshot;
use crate::context_engine::CompactionTier;
use crate::offline_compaction::CompactionTiers;
use crate::remote_compaction::FullCompactionPath;

/// The first half of a compaction ([`Compactor::plan_compaction`]), before the host decides to
/// go on with it.
#[derive(Debug)]
pub(crate) struct CompactionPlan {
    point: CompactPoint,
    injection: InitialContextInjection,
    restored: RestoredContext,
    restored_files: Vec<(PathBuf, String)>,
    limit: HistoryLimit,
    /// The session-memory tier's result, or why it does not apply; `None` when not tried.
    pub(crate) from_memory: Option<Result<(Vec<ResponseItem>, LoopEvent), String>>,
    /// Compact in stages (the token budget triggered it): mask, then summarise the oldest
    /// part, before a full compaction (`staged_tier.rs`).
    staged: bool,
}

/// What the stages of a staged compaction work on.
pub(super) struct StageInputs<'a> {
    pub(super) history: &'a [ResponseItem],
    pub(super) model: Option<&'a dyn ModelClient>,
    pub(super) initial_context: &'a [ResponseItem],
    pub(super) injection: InitialContextInjection,
    pub(super) base_instructions: &'a str,
    pub(super) limit: HistoryLimit,
    /// What the restoration appended after a summary stage takes.
    pub(super) restored_tokens: u64,
}

/// What the stages of a staged compaction did.
pub(super) struct Stages {
    /// The stage that sufficed.
    pub(super) result: Option<StageResult>,
    /// The masked history, when the mask stage applied without sufficing: what the later
    /// stages, and the full compaction, work on.
    pub(super) masked: Option<Vec<ResponseItem>>,
    /// The session-memory result, given back when no stage used it.
    pub(super) from_memory: Option<(Vec<ResponseItem>, LoopEvent)>,
    /// Why the offline summariser wrote the partial stage's summary, when it did.
    pub(super) offline_reason: Option<agentctx_compact::OfflineReason>,
}

/// What a stage of a staged compaction left, when it sufficed.
pub(super) struct StageResult {
    pub(super) history: Vec<ResponseItem>,
    pub(super) event: LoopEvent,
    pub(super) tier: CompactionTier,
    pub(super) summary_estimate: Option<crate::decision::SummaryEstimate>,
    /// The restoration is appended (not after the mask stage: the history keeps everything
    /// but the old outputs).
    pub(super) restore: bool,
}

impl Compactor {
    /// The first half of a compaction: the restoration built and held to the window, and the
    /// session-memory tier tried when `tiers` allows it (its result, or why it does not apply).
    /// In aggressive mode (the thrash guard saw compactions that freed too little) fewer user
    /// messages are kept verbatim.
    ///
    /// The result is made to fit the window: the new history, its restoration and the
    /// request overhead are aimed below the thrash guard's "ineffective" share of the
    /// effective window (60%): the restoration is halved until it takes at most a third of
    /// that, a session-memory result over what is left is set aside for a full compaction, and
    /// full compaction keeps fewer user messages, then cuts the summary
    /// ([`agentctx_compact::full_compact_within`]). Whether the result is under the blocking
    /// limit is the engine's check before the next request (`ContextEngine::decide_request`).
    /// Nothing of the session's state changes but the session-memory store's rebase, when that
    /// tier applies.
    #[expect(
        clippy::too_many_arguments,
        reason = "the history, where and how to compact, and what to restore"
    )]
    pub(crate) fn plan_compaction(
        &self,
        history: &[ResponseItem],
        initial_context: &[ResponseItem],
        point: CompactPoint,
        snapshot: RestorationSnapshot,
        critical_instruction: Option<&str>,
        tiers: CompactionTiers,
        staged: bool,
    ) -> CompactionPlan {
        let injection = match point {
            CompactPoint::PreTurn => InitialContextInjection::DoNotInject,
            CompactPoint::MidTurn => InitialContextInjection::BeforeLastUserMessage,
        };
        let effective = self.window.effective_tokens();
        let target = (effective.saturating_mul(u64::from(
            self.config.thrash_guard.ineffective_usage_percent,
        )) / 100)
            .saturating_sub(self.prompt_overhead.load(Ordering::Relaxed));
        let user_messages = agentctx_compact::collect_user_message_texts(history);
        let (restored, restored_files) =
            self.restoration(snapshot, critical_instruction, &user_messages, target);
        let restored_tokens = self.estimator.estimate_items(&restored.items);
        let limit = HistoryLimit {
            effective_window: effective,
            max_tokens: target.saturating_sub(restored_tokens),
        };
        // The cheaper tier first: the summary the background extraction keeps, with no model
        // call, when it saves enough and fits; else a full compaction.
        // Instructions for the summary (`/compact <instructions>`) are for a model: the
        // session-memory summary, written before them, cannot follow them.
        let from_memory = if tiers == CompactionTiers::FullOnly || self.next_instructions.is_some()
        {
            None
        } else {
            Some(
                self.session_memory_compact(history, initial_context, injection)
                    .and_then(|(items, event)| {
                        let tokens = self.estimator.estimate_items(&items);
                        if tokens <= limit.max_tokens {
                            Ok((items, event))
                        } else {
                            tracing::info!(
                                tokens,
                                limit = limit.max_tokens,
                                "session-memory compaction does not fit the window; compacting in full"
                            );
                            Err(format!(
                                "the compacted history would take {tokens} tokens, over the {} the window leaves it",
                                limit.max_tokens
                            ))
                        }
                    }),
            )
        };
        CompactionPlan {
            point,
            injection,
            restored,
            restored_files,
            limit,
            from_memory,
            staged: staged && self.config.staged.enabled,
        }
    }

    /// The second half of a compaction planned by [`Compactor::plan_compaction`]: the
    /// `PreCompact` hooks are told, the session-memory result is taken when it applies, else
    /// `history` is compacted in full through `model`; the restoration is appended.
    pub(crate) async fn finish_compaction(
        &mut self,
        plan: CompactionPlan,
        model: Option<&dyn ModelClient>,
        history: &[ResponseItem],
        initial_context: Vec<ResponseItem>,
        base_instructions: &str,
    ) -> CompactionOutcome {
        let CompactionPlan {
            point,
            injection,
            restored,
            restored_files,
            limit,
            from_memory,
            staged,
        } = plan;
        for hook in &self.pre_compact_hooks {
            hook.pre_compact(point, history);
        }
        let now = self.now();
        let mode = self.thrash_guard.next_mode(now);
        let mut full_config = self.config.full.clone();
        if mode == CompactionMode::Aggressive {
            full_config.user_message_budget_tokens /= 2;
        }
        if let Ok(mut trigger) = self.extraction.lock() {
            trigger.begin_compaction();
        }
        let tokens_before = self.estimator.estimate_items(history);
        let (from_memory, session_memory_skipped) = match from_memory {
            Some(Ok(compacted)) => (Some(compacted), None),
            Some(Err(reason)) => (None, Some(reason)),
            None => (None, None),
        };
        let mut offline_reason = None;
        let mut remote_fallback = None;
        let mut remote = None;
        let mut from_memory = from_memory;
        let mut masked = None;
        let mut stage = None;
        if staged {
            let stages = self
                .run_stages(
                    StageInputs {
                        history,
                        model,
                        initial_context: &initial_context,
                        injection,
                        base_instructions,
                        limit,
                        restored_tokens: self.estimator.estimate_items(&restored.items),
                    },
                    from_memory.take(),
                )
                .await;
            stage = stages.result;
            masked = stages.masked;
            from_memory = stages.from_memory;
            offline_reason = stages.offline_reason;
        }
        let history = masked.as_deref().unwrap_or(history);
        if from_memory.is_none() && stage.is_none() {
            // The full tier: at the provider when the mode and the client say so, else (or
            // when that fails) here, with the reason logged and returned.
            let path = match (
                crate::remote_compaction::decide(self.config.mode, model),
                model,
            ) {
                (FullCompactionPath::Remote, Some(model)) => {
                    match crate::remote_compaction::compact_remotely(
                        model,
                        history,
                        initial_context.clone(),
                        injection,
                        base_instructions,
                        self.window,
                        &self.estimator,
                    )
                    .await
                    {
                        Ok(compacted) => {
                            remote = Some(compacted);
                            FullCompactionPath::Remote
                        }
                        Err(reason) => FullCompactionPath::LocalInstead(reason),
                    }
                }
                (path, _) => path,
            };
            if let FullCompactionPath::LocalInstead(reason) = path {
                tracing::warn!(%reason, "compacting locally instead of at the provider");
                remote_fallback = Some(reason);
            }
        }
        let mut summary_estimate = None;
        let mut restore = true;
        let (mut new_history, event, tier) = match (stage, from_memory, remote) {
            (Some(stage), _, _) => {
                summary_estimate = stage.summary_estimate;
                restore = stage.restore;
                (stage.history, stage.event, stage.tier)
            }
            (None, Some((items, event)), _) => (items, event, CompactionTier::SessionMemory),
            (None, None, Some(compacted)) => {
                (compacted.history, compacted.event, CompactionTier::Remote)
            }
            (None, None, None) => {
                // The user's instructions follow the summary prompt, as Claude Code's `/compact
                // <instructions>` adds them.
                let prompt = self.next_instructions.take().map(|instructions| {
                    format!(
                        "{}\n\nAdditional Instructions:\n{}",
                        agentctx_compact::SUMMARIZATION_PROMPT.trim_end(),
                        instructions.trim()
                    )
                });
                let request = FullCompactRequest {
                    history,
                    initial_context,
                    injection,
                    base_instructions,
                    prompt_override: prompt.as_deref(),
                    reserved_output_tokens: self.window.reserved_output_tokens,
                    session_id: Some(self.session_id.clone()),
                    reasoning: self.reasoning,
                };
                let outcome =
                    full_compact_within(model, request, &full_config, &self.estimator, limit).await;
                let event = outcome.completed_event();
                let tier = match outcome.path {
                    SummaryPath::Model => CompactionTier::FullModel,
                    SummaryPath::Offline => CompactionTier::FullOffline,
                };
                offline_reason = outcome.offline_reason;
                summary_estimate =
                    Some(self.summary_estimate(outcome.tokens_before, outcome.guard));
                (outcome.history, event, tier)
            }
        };
        let (referenced_files, restored_files) = if restore {
            let referenced = restored.referenced_files.clone();
            new_history.extend(restored.items);
            (referenced, restored_files)
        } else {
            (Vec::new(), Vec::new())
        };
        self.forget_measure();
        let usage_after = self.usage(&new_history);
        let thrash = self.thrash_guard.record_compaction(now, &usage_after);
        if let Ok(mut trigger) = self.extraction.lock() {
            trigger.end_compaction(usage_after.used_tokens());
        }
        CompactionOutcome {
            events: vec![event],
            history: new_history,
            restored_files,
            referenced_files,
            warning: thrash.warning.map(|warning| warning.to_string()),
            tier,
            tokens_before,
            session_memory_skipped,
            offline_reason,
            remote_fallback,
            summary_estimate,
        }
    }

    /// The restoration of `snapshot` and the file cache, held to a third of `target` tokens:
    /// the file budgets are halved until it fits, and at zero the files are only named.
    fn restoration(
        &self,
        snapshot: RestorationSnapshot,
        critical_instruction: Option<&str>,
        user_messages: &[String],
        target: u64,
    ) -> (RestoredContext, Vec<(PathBuf, String)>) {
        let RestorationSnapshot {
            todos,
            plan,
            skills,
            tasks,
        } = snapshot;
        let cache = self.file_cache.lock().ok();
        let ledger = self.read_ledger.lock().ok();
        let input = RestorationInput {
            file_cache: cache.as_deref(),
            read_ledger: ledger.as_deref(),
            todos: &todos,
            plan: plan.as_ref(),
            invoked_skills: &skills,
            background_tasks: &tasks,
            critical_instruction,
            user_messages,
        };
        let mut config = self.config.restoration.clone();
        let mut restored = restore_context(&input, &config);
        while self.estimator.estimate_items(&restored.items) > target / 3
            && config.total_budget_tokens > 0
        {
            config.total_budget_tokens /= 2;
            config.per_file_limit_tokens /= 2;
            restored = restore_context(&input, &config);
        }
        let files: Vec<(PathBuf, String)> = restored
            .restored_files
            .iter()
            .filter_map(|path| {
                cache
                    .as_deref()
                    .and_then(|cache| cache.get(path))
                    .map(|file| (path.clone(), file.content.clone()))
            })
            .collect();
        (restored, files)
    }

    /// The session-memory tier: the history rebuilt from the cached summary, with its event,
    /// when it applies (the store's `last_summarized_id` then points into the new history);
    /// else why not, in words.
    fn session_memory_compact(
        &self,
        history: &[ResponseItem],
        initial_context: &[ResponseItem],
        injection: InitialContextInjection,
    ) -> Result<(Vec<ResponseItem>, LoopEvent), String> {
        if self.session_id.is_empty() {
            return Err("the session records no id".to_string());
        }
        let store = SessionMemoryStore::new(&self.home, &self.session_id).map_err(|error| {
            tracing::warn!(%error, "session memory unavailable");
            error.to_string()
        })?;
        match try_session_memory_compact(
            &store,
            &self.config,
            history,
            initial_context,
            injection,
            &self.estimator,
        ) {
            SessionMemoryCompaction::Applied(compacted) => {
                if let Err(error) = compacted.rebase_store(&store) {
                    tracing::warn!(%error, "session memory not rebased; the next extraction re-reads the history");
                }
                let event = compacted.outcome.loop_event();
                Ok((compacted.history, event))
            }
            SessionMemoryCompaction::NotApplicable(reason) => Err(
                crate::offline_compaction::session_memory_reason(&reason, &store),
            ),
        }
    }
}
