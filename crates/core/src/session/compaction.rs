//! The session's compactions: the engine's compaction recorded in the rollout with its events,
//! and the test that takes a failed request for a context overflow (compact and send again).

use std::sync::Arc;

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::RolloutItem;

use super::OVERFLOW_SUSPECT_PERCENT;
use super::Session;
use crate::engine_ext;
use crate::engine_ext::CompactPoint;
use crate::error::CoreError;
use crate::event::SessionEvent;
use crate::turn_stream::StreamFailure;

impl Session {
    /// Whether `failure` of a request estimated at `prompt_tokens` is a context overflow: the
    /// provider said so, or the stream died before its first output event
    /// ([`StreamFailure::may_be_context_overflow`]) on a prompt at or above
    /// [`OVERFLOW_SUSPECT_PERCENT`] of the effective window.
    pub(super) fn is_overflow(&self, failure: &StreamFailure, prompt_tokens: u64) -> bool {
        if !self.engine.compaction_enabled() {
            return false;
        }
        if matches!(failure.error, ModelError::ContextWindowExceeded { .. }) {
            return true;
        }
        let effective = self.engine.window().effective_tokens();
        failure.may_be_context_overflow()
            && u128::from(prompt_tokens) * 100
                >= u128::from(effective) * u128::from(OVERFLOW_SUSPECT_PERCENT)
    }

    /// Compacts the history through the engine and records the result: the reminder stage
    /// starts over with the restored files counted as read at request `clock`.
    pub(crate) async fn compact(
        &mut self,
        point: CompactPoint,
        clock: i32,
    ) -> Result<(), CoreError> {
        let model = Arc::clone(&self.options.model);
        self.compact_with(point, clock, model).await
    }

    /// [`Session::compact`] with the summary written by `model` (the previous, larger-window
    /// model before a switch).
    pub(crate) async fn compact_with(
        &mut self,
        point: CompactPoint,
        clock: i32,
        model: Arc<dyn ModelClient>,
    ) -> Result<(), CoreError> {
        self.emit(SessionEvent::Loop(LoopEvent::CompactionStarted));
        let host = engine_ext::host_state(&self.state());
        let initial = self.initial_context();
        let compaction = self
            .engine
            .compact(
                Some(model.as_ref()),
                point,
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
        self.after_compaction().await;
        Ok(())
    }
}
