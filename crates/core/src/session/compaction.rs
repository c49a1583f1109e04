//! The session's compactions: the engine's compaction recorded in the rollout with its events,
//! and the engine's decisions reported as events.

use std::sync::Arc;

use agentctx_model::ModelClient;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::RolloutItem;

use super::Session;
use crate::engine_ext;
use crate::engine_ext::CompactReason;
use crate::error::CoreError;
use crate::event::SessionEvent;

impl Session {
    /// Compacts the history through the engine and records the result: the reminder stage
    /// starts over with the restored files counted as read at request `clock`.
    pub(crate) async fn compact(
        &mut self,
        reason: CompactReason,
        clock: i32,
    ) -> Result<(), CoreError> {
        let model = Arc::clone(&self.options.model);
        self.compact_with(reason, clock, model).await
    }

    /// [`Session::compact`] with the summary written by `model` (the previous, larger-window
    /// model before a switch).
    pub(crate) async fn compact_with(
        &mut self,
        reason: CompactReason,
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
        self.after_compaction().await;
        self.emit_decisions();
        Ok(())
    }

    /// Reports the engine's decisions since the last report, each as a
    /// [`SessionEvent::Decision`].
    pub(crate) fn emit_decisions(&mut self) {
        for decision in self.engine.take_decisions() {
            self.emit(SessionEvent::Decision(decision));
        }
    }
}
