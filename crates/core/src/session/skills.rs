//! The session's side of a skill active for the rest of a turn (typed, or invoked by the model
//! through the `skill` tool): `slash_commands_ext/skill_turn.rs` applies the skill's tool limit
//! and hooks to the tools and hooks it is handed and names the model to switch to; the session
//! switches the model and records in a `turn_context` line what the next requests are sent
//! with (`session/turn_record.rs`), so a replay or a resume sends them too.

use super::Session;
use crate::event::SessionEvent;
use crate::model_switch::ModelSwitchError;
use crate::slash_commands_ext::SkillActivation;

impl Session {
    /// Makes `activation`'s skill active for the rest of the turn: its tool limit, its model and
    /// its hooks. A model that cannot be switched to is the error (the tool limit and hooks are
    /// applied first, so the turn's end undoes whatever was done).
    pub(super) async fn activate_skill(
        &mut self,
        activation: SkillActivation,
    ) -> Result<(), ModelSwitchError> {
        let current = self.options.model.slug().to_string();
        let switch =
            self.active_skills
                .activate(activation, &mut self.tools, &self.hooks, &current);
        if let Some((model, point)) = switch {
            let switch = self.switch_model_at(&model, point).await?;
            self.active_skills.switched_from(switch.previous_model);
        }
        Ok(())
    }

    /// After a request's tool calls: makes active the skills the model invoked in them. A model
    /// switch that fails is a warning; the skill goes on with the session's model. When they
    /// changed the tools or the model, a `turn_context` line with the turn's id records it.
    pub(super) async fn activate_invoked_skills(&mut self) {
        let invoked = self.commands.invoked().take();
        if invoked.is_empty() {
            return;
        }
        let before = (self.model_slug().to_string(), self.tools.specs());
        for activation in invoked {
            let name = activation.name().to_string();
            if let Err(error) = self.activate_skill(activation).await {
                self.emit(SessionEvent::Warning {
                    message: format!("the skill `{name}` runs on the session's model: {error}"),
                });
            }
        }
        let changed = before.0 != self.model_slug() || before.1 != self.tools.specs();
        if changed && let Some(running) = self.active_skills.running.clone() {
            self.record_settings_changed(&running);
        }
    }

    /// At the end of a turn: every active skill ends. The turn's tools and model come back,
    /// the skills' hooks are removed, and the skills may run again.
    pub(super) async fn end_active_skills(&mut self) {
        // Skills invoked in tool calls the turn never got past (a cancel, an error) end too.
        drop(self.commands.invoked().take());
        let ended = self.active_skills.end(&mut self.tools, &self.hooks);
        if let Some(previous) = ended.restore_model
            && let Err(error) = self.switch_model(&previous).await
        {
            self.emit(SessionEvent::Warning {
                message: format!("the model was not switched back after the skill: {error}"),
            });
        }
        drop(ended.guards);
        // What the next requests are sent with again, for a replay or a resume of the rollout.
        if let Some(running) = &ended.settings_changed {
            self.record_settings_changed(running);
        }
    }
}
