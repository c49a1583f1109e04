//! The session's compactions: the engine's compaction recorded in the rollout with its events,
//! and the engine's decisions reported as events.
//!
//! After a compaction the session also runs the `SessionStart` hooks with source `compact`
//! (Claude Code's hooks reference, "SessionStart": matchers `startup`, `resume`, `clear`,
//! `compact`; <https://code.claude.com/docs/en/hooks>) and emits codex's accuracy warning.

use std::sync::Arc;

use agentctx_model::ModelClient;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::RolloutItem;

use super::Session;
use crate::engine_ext;
use crate::engine_ext::CompactReason;
use crate::error::CoreError;
use crate::event::SessionEvent;

/// The warning codex emits after every compaction, word for word (openai/codex
/// `codex-rs/core/src/compact.rs`, the `EventMsg::Warning` at the end of the compaction task).
pub const COMPACTION_ACCURACY_WARNING: &str = "Heads up: Long threads and multiple compactions can cause the model to be less accurate. Start a new thread when possible to keep threads small and targeted.";

impl Session {
    /// Compacts the history through the engine and records the result: the reminder stage
    /// starts over with the restored files counted as read at request `clock`.
    pub(super) async fn compact(
        &mut self,
        reason: CompactReason,
        clock: i32,
    ) -> Result<(), CoreError> {
        let model = Arc::clone(&self.options.model);
        self.compact_with(reason, clock, model).await
    }

    /// [`Session::compact`] with the summary written by `model` (the previous, larger-window
    /// model before a switch).
    pub(super) async fn compact_with(
        &mut self,
        reason: CompactReason,
        clock: i32,
        model: Arc<dyn ModelClient>,
    ) -> Result<(), CoreError> {
        if let Some(blocked) = self.hooks.pre_compact_blocked(reason).await {
            return self.compaction_blocked(reason, blocked);
        }
        self.emit(SessionEvent::Loop(LoopEvent::CompactionStarted));
        let host = engine_ext::host_state(&self.state());
        let initial = self.initial_context();
        let compaction = self
            .engine
            .compact(
                Some(model.as_ref()),
                reason,
                initial,
                &self.options.base_instructions,
                &host,
                clock,
            )
            .await;
        self.recorder
            .record_items(&[RolloutItem::Compacted(compaction.compacted_item())])?;
        for event in compaction.events {
            self.emit(SessionEvent::Loop(event));
        }
        if let Some(message) = compaction.warning {
            self.emit(SessionEvent::Warning { message });
        }
        if let Some(reason) = compaction.remote_fallback {
            self.emit(SessionEvent::Warning {
                message: format!("compacted locally: {reason}"),
            });
        }
        self.hooks.post_compact(reason, &compaction.summary).await;
        self.after_compaction().await;
        self.emit_decisions();
        Ok(())
    }

    /// A `PreCompact` hook blocked the compaction for `reason`: the user is told; a compaction
    /// the history needed to be sent at all (the blocking limit, a provider's overflow) fails
    /// the request, as Claude Code surfaces the underlying error; the others are skipped.
    fn compaction_blocked(&mut self, reason: CompactReason, why: String) -> Result<(), CoreError> {
        self.emit(SessionEvent::Warning {
            message: format!("a PreCompact hook blocked the compaction: {why}"),
        });
        if matches!(reason, CompactReason::Blocking | CompactReason::Overflow) {
            let (used, window, _) = self.engine.usage_figures();
            return Err(CoreError::ContextWindowFull {
                prompt_tokens: used,
                limit: window,
                window_tokens: window,
                reserved_output_tokens: 0,
            });
        }
        Ok(())
    }

    /// After a compaction: the `SessionStart` hooks with source `compact` (Claude Code runs the
    /// `compact` matcher then), and codex's warning that long threads and repeated compactions
    /// cost accuracy.
    async fn after_compaction(&mut self) {
        let model = self.options.model.slug().to_string();
        self.hooks.session_start_after_compaction(&model).await;
        self.emit(SessionEvent::Warning {
            message: COMPACTION_ACCURACY_WARNING.to_string(),
        });
    }

    /// Reports the engine's decisions since the last report, each as a
    /// [`SessionEvent::Decision`].
    pub(super) fn emit_decisions(&mut self) {
        for decision in self.engine.take_decisions() {
            self.emit(SessionEvent::Decision(decision));
        }
    }
}
