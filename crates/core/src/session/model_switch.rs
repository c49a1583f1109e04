//! The session's steps of a model switch (`/model`, a skill's `model`, a resume with another
//! model): what `model_switch.rs` decides from the fields it is handed (the resolver, the
//! engine, the two clients, the pending switch), carried out on the session, whose compaction,
//! subagents and options follow the new model. See docs/design/core.md, "Model switch".

use std::sync::Arc;

use agentctx_model::ModelClient;

use super::Session;
use crate::engine_ext::CompactPoint;
use crate::error::CoreError;
use crate::model_switch;
use crate::model_switch::ModelSwitch;
use crate::model_switch::ModelSwitchError;
use crate::model_switch::SwitchTarget;

impl Session {
    /// The slug of the session's model.
    pub fn model_slug(&self) -> &str {
        self.options.model.slug()
    }

    /// Switches the session to `slug` (`/model`): compacts first with the current model when
    /// the history would not hold in the new model's smaller window, then takes the new
    /// client; the next turn announces the switch. Resolved through the options'
    /// [`crate::ModelResolver`].
    pub async fn switch_model(&mut self, slug: &str) -> Result<ModelSwitch, ModelSwitchError> {
        self.switch_model_at(slug, CompactPoint::PreTurn).await
    }

    /// [`Session::switch_model`] at `point`: between two requests of a turn (a skill the model
    /// invoked), the compaction before the switch is a mid-turn one and the turn goes on.
    pub(super) async fn switch_model_at(
        &mut self,
        slug: &str,
        point: CompactPoint,
    ) -> Result<ModelSwitch, ModelSwitchError> {
        let slug = slug.trim();
        if slug.is_empty() {
            return Err(ModelSwitchError::NoSlug);
        }
        let previous_model = self.model_slug().to_string();
        if slug == previous_model {
            return Ok(ModelSwitch {
                previous_model,
                model: slug.to_string(),
                context_window: self.options.model.model_info().context_window,
                compacted: false,
            });
        }
        let target = model_switch::resolve(self.options.model_resolver.as_ref(), slug).await?;
        let current = Arc::clone(&self.options.model);
        let compacted = self
            .compact_before_switch(current, target.client.as_ref(), point)
            .await?;
        let context_window = target.client.model_info().context_window;
        let model = target.client.slug().to_string();
        self.install_model(target);
        let turn = self.state().turn;
        self.pending_switch =
            model_switch::announced(self.pending_switch.as_ref(), turn, &previous_model);
        Ok(ModelSwitch {
            previous_model,
            model,
            context_window,
            compacted,
        })
    }

    /// Before a turn after a resume with another model: the compaction with the recorded
    /// model, when the history would not hold in the new window. The recorded model is
    /// resolved through the options' resolver; without one, or when it cannot be resolved,
    /// the session's own model compacts if the history needs it (the ordinary pre-turn check).
    pub(super) async fn compact_for_model_switch(&mut self) -> Result<(), CoreError> {
        let Some(previous) = self
            .pending_switch
            .as_mut()
            .and_then(model_switch::PendingSwitch::take_compact_check)
        else {
            return Ok(());
        };
        let Some(resolver) = self.options.model_resolver.as_ref() else {
            return Ok(());
        };
        let previous = match resolver.resolve(&previous).await {
            Ok(target) => target,
            Err(error) => {
                tracing::warn!(%error, "the recorded model cannot be resolved; no compaction with it");
                return Ok(());
            }
        };
        let current = Arc::clone(&self.options.model);
        self.compact_before_switch(previous.client, current.as_ref(), CompactPoint::PreTurn)
            .await
            .map(|_| ())
    }

    /// Compacts with `old` when `new`'s window is smaller and the history is over the engine's
    /// auto-compact threshold for it. Leaves the engine at `new`'s window.
    async fn compact_before_switch(
        &mut self,
        old: Arc<dyn ModelClient>,
        new: &dyn ModelClient,
        point: CompactPoint,
    ) -> Result<bool, CoreError> {
        if !model_switch::compact_first(&mut self.engine, old.as_ref(), new) {
            return Ok(false);
        }
        // The old model writes the summary (through its provider), under the new window's
        // budgets: what full compaction keeps verbatim (recent user messages, restored files) is
        // sized for the model that reads it next. At the old window's budgets a long user
        // message kept whole would leave the history over the new threshold, and the new model
        // would compact it again.
        self.engine.set_client(old.as_ref());
        let clock = self.state().requests;
        let reason = model_switch::compact_reason(point);
        let result = self.compact_with(reason, clock, Arc::clone(&old)).await;
        let current = Arc::clone(&self.options.model);
        self.engine.set_client(current.as_ref());
        result.map(|()| true)
    }

    /// Makes `target` the session's model: requests, the engine's window and provider, and the
    /// subagents follow it.
    fn install_model(&mut self, target: SwitchTarget) {
        model_switch::install(&mut self.engine, target.client.as_ref());
        self.subagents = self
            .options
            .subagents(Arc::clone(&target.client), &self.hooks);
        self.options.model = target.client;
        self.options.provider_name = target.provider_name;
    }
}
