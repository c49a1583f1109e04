//! The `turn_context` line of a turn, written when the turn starts and again whenever a skill
//! changes what the model is sent in the middle of it (its tools, its model, and with the model
//! the reasoning parameters), and once more when the turn's end gives them back. A replay of
//! the rollout (`agentctx replay --requests`) and a resume read the last line before each
//! request, so they rebuild the requests the session sent.

use agentctx_protocol::RolloutItem;
use agentctx_protocol::TurnContextItem;

use super::Session;
use crate::error::CoreError;
use crate::slash_commands_ext::RunningTurn;

impl Session {
    /// Records `turn_context` with the turn's reasoning parameters and, when they changed since
    /// the last line recorded them, the tools offered.
    pub(super) fn record_turn_context(
        &mut self,
        mut turn_context: TurnContextItem,
    ) -> Result<(), CoreError> {
        crate::thinking_ext::record_reasoning(&mut turn_context, self.turn_reasoning.as_ref());
        // The window the engine judges the turn against, and the tools with their classes
        // when they changed: a replay judges and rebuilds the turn alike.
        let tools = self.tools.specs();
        let changed = self.recorded_tools.as_ref() != Some(&tools);
        self.engine
            .annotate_turn_context(&mut turn_context, changed.then_some(tools.as_slice()));
        if changed {
            self.recorded_tools = Some(tools);
        }
        self.recorder
            .record_items(&[RolloutItem::TurnContext(turn_context)])?;
        Ok(())
    }

    /// After a skill changed the tools or the model in the middle of `running` (or the turn's
    /// end gave them back): the thinking decided again for the model now used, and a
    /// `turn_context` line with the same turn id saying what the next requests are sent with.
    pub(super) fn record_settings_changed(&mut self, running: &RunningTurn) {
        let thinking = crate::thinking_ext::turn_thinking(
            &self.options.thinking,
            self.thinking_toggle,
            &running.message,
            self.options.model.as_ref(),
        );
        self.turn_reasoning = thinking.reasoning;
        self.engine.set_reasoning(self.turn_reasoning);
        let mut turn_context = running.context.clone();
        turn_context.model = Some(self.options.model.slug().to_string());
        // The reasoning of the model now used replaces the turn's (none when it has none).
        turn_context.effort = None;
        turn_context.summary = None;
        turn_context
            .extra
            .remove(agentctx_engine::replay::RECORDED_REASONING_FIELD);
        if let Err(error) = self.record_turn_context(turn_context) {
            tracing::warn!(%error, "the changed settings of the turn were not recorded");
        }
    }
}
