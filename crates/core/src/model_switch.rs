//! Changing the model of a running session, as codex does it: `/model <slug>`, a skill's
//! `model`, and a resume with another model than the recorded one.
//!
//! The steps, each from codex-rs (`openai/codex`):
//!
//! 1. **Compact first with the larger model.** When the new model's window is smaller than the
//!    old one and the history is over the new window's auto-compact threshold, the history is
//!    compacted with the *previous* model, at its window, before the switch
//!    (`maybe_run_previous_model_inline_compact` in `codex-rs/core/src/codex.rs`: `total_usage >
//!    new_auto_compact_limit && old_context_window > new_context_window`, compacted with the
//!    previous model's turn context). The threshold is the engine's, for the new window, and so
//!    are the budgets of what the compaction keeps verbatim (codex keeps a fixed 20,000 tokens
//!    of user messages; ours scale with the window, and at the old window's scale a long user
//!    message kept whole would leave the new model over its threshold).
//! 2. **Switch.** The session takes the new client, the engine the new window
//!    ([`agentctx_engine::ContextEngine::set_context_window`]) and client
//!    ([`agentctx_engine::ContextEngine::set_client`]: provider identity, provider-side context
//!    editing); subagents run on the new model too.
//! 3. **Announce.** The next turn carries the `<model_switch>` developer message codex sends
//!    (`DeveloperInstructions::model_switch_message` in `codex-rs/protocol/src/models.rs`): in
//!    the settings diff (`build_model_instructions_update_item` in
//!    `codex-rs/core/src/context_manager/updates.rs`, rendered here by `agentctx-context`), or
//!    at the head of the full initial context when a compaction cleared the reference
//!    (`build_initial_context` in `codex.rs` puts it first too).
//! 4. **Record.** The turn's `turn_context` line names the new model and the developer message
//!    is a `response_item`, which is what codex writes; a compaction is its `compacted` line. A
//!    resume with another model also warns with codex's text (`resume_warning`).
//!
//! See docs/design/core.md, "Model switch".

use std::sync::Arc;

use agentctx_context::ContextManager;
use agentctx_context::TurnSettings;
use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;
use async_trait::async_trait;

use crate::engine_ext::CompactPoint;
use crate::engine_ext::CompactReason;
use crate::error::CoreError;
use crate::session::Session;
use crate::subagent::executor::Subagents;

/// A model the session may switch to, resolved as the session's own model was.
#[derive(Clone)]
pub struct SwitchTarget {
    /// The client of the new model (its `model_info` carries the window).
    pub client: Arc<dyn ModelClient>,
    /// The provider's id, for the rollout.
    pub provider_name: String,
}

impl std::fmt::Debug for SwitchTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwitchTarget")
            .field("model", &self.client.slug())
            .field("provider_name", &self.provider_name)
            .finish()
    }
}

/// Resolves a model slug to a client. `agentctx run` uses
/// [`crate::session_config::ConfiguredModels`], so a switch goes through the same provider and
/// window resolution as the start of the session.
#[async_trait]
pub trait ModelResolver: Send + Sync {
    /// The client of `slug`.
    async fn resolve(&self, slug: &str) -> Result<SwitchTarget, ModelSwitchError>;
}

/// Why a model switch could not happen. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum ModelSwitchError {
    /// The session was built without a [`ModelResolver`].
    #[error("this session cannot change its model (no model resolver)")]
    NoResolver,
    /// No slug was given.
    #[error("usage: /model <slug>")]
    NoSlug,
    /// The slug could not be resolved to a client.
    #[error("cannot switch to model `{slug}`: {message}")]
    Resolve {
        /// The slug asked for.
        slug: String,
        /// Why it failed.
        message: String,
    },
    /// The compaction before the switch failed.
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// A switch the next turn announces: the model of the last turn, and its client when the
/// session still has to compact with it (a resume with another model; `/model` compacts at
/// once).
#[derive(Clone)]
pub struct PendingSwitch {
    previous_model: String,
    /// The previous model must still be asked to compact before the next turn, if needed.
    compact_check_due: bool,
}

impl std::fmt::Debug for PendingSwitch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSwitch")
            .field("previous_model", &self.previous_model)
            .field("compact_check_due", &self.compact_check_due)
            .finish()
    }
}

impl PendingSwitch {
    /// A resume with `current` of a session recorded with `previous`: the compaction check
    /// runs before the next turn, with `previous` resolved then.
    pub fn on_resume(previous: &str, current: &str) -> Self {
        tracing::info!(previous, current, "resumed with another model");
        Self {
            previous_model: previous.to_string(),
            compact_check_due: true,
        }
    }

    /// The model the last turn ran with.
    pub fn previous_model(&self) -> &str {
        &self.previous_model
    }
}

/// What a switch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSwitch {
    /// The model before.
    pub previous_model: String,
    /// The model now.
    pub model: String,
    /// The new model's window in tokens.
    pub context_window: i64,
    /// The history was compacted with the previous model first.
    pub compacted: bool,
}

/// The warning codex gives when a session is resumed with another model than the recorded one
/// (`codex-rs/core/src/codex.rs`, `Session::new` on a resumed rollout).
pub fn resume_warning(previous: &str, current: &str) -> String {
    format!(
        "This session was recorded with model `{previous}` but is resuming with `{current}`. Consider switching back to `{previous}` as it may affect performance."
    )
}

/// The `<model_switch>` developer message telling the model of `settings` that `previous_model`
/// ran the conversation so far; `None` when the model did not change or has no instructions.
/// The text is `agentctx-context`'s settings-diff section (codex's template), taken from a diff
/// against a reference identical but for the model, so it is defined once.
pub fn switch_message(previous_model: &str, settings: &TurnSettings) -> Option<ResponseItem> {
    let mut scratch = ContextManager::new();
    scratch.set_reference_context_item(Some(settings.to_turn_context_item(None)));
    scratch
        .settings_update_items(Some(previous_model), settings)?
        .into_iter()
        .find(|item| item.role() == Some("developer"))
}

/// The switch message that leads a full initial context, when a switch is pending.
pub(crate) fn initial_context_item(
    pending: Option<&PendingSwitch>,
    settings: &TurnSettings,
) -> Option<ResponseItem> {
    let pending = pending?;
    switch_message(&pending.previous_model, settings)
}

impl Session {
    /// The slug of the session's model.
    pub fn model_slug(&self) -> &str {
        self.options.model.slug()
    }

    /// Switches the session to `slug` (`/model`): compacts first with the current model when
    /// the history would not hold in the new model's smaller window, then takes the new
    /// client; the next turn announces the switch. Resolved through the options'
    /// [`ModelResolver`].
    pub async fn switch_model(&mut self, slug: &str) -> Result<ModelSwitch, ModelSwitchError> {
        self.switch_model_at(slug, CompactPoint::PreTurn).await
    }

    /// [`Session::switch_model`] at `point`: between two requests of a turn (a skill the model
    /// invoked), the compaction before the switch is a mid-turn one and the turn goes on.
    pub(crate) async fn switch_model_at(
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
        let resolver = self
            .options
            .model_resolver
            .clone()
            .ok_or(ModelSwitchError::NoResolver)?;
        let target = resolver.resolve(slug).await?;
        let current = Arc::clone(&self.options.model);
        let compacted = self
            .compact_before_switch(current, target.client.as_ref(), point)
            .await?;
        let context_window = target.client.model_info().context_window;
        let model = target.client.slug().to_string();
        self.install_model(target);
        // The last turn's model stays the one to announce against (A → B → C before a turn
        // tells C that A ran the conversation). Before any turn there is nothing to announce:
        // no model has spoken yet (codex has no previous turn settings then).
        let announced = match &self.pending_switch {
            Some(pending) => Some(pending.previous_model.clone()),
            None => (self.state().turn > 0).then(|| previous_model.clone()),
        };
        self.pending_switch = announced.map(|previous_model| PendingSwitch {
            previous_model,
            compact_check_due: false,
        });
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
    pub(crate) async fn compact_for_model_switch(&mut self) -> Result<(), CoreError> {
        let Some(pending) = self.pending_switch.as_mut() else {
            return Ok(());
        };
        if !pending.compact_check_due {
            return Ok(());
        }
        pending.compact_check_due = false;
        let previous = pending.previous_model.clone();
        let Some(resolver) = self.options.model_resolver.clone() else {
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
        let old_info = old.model_info().clone();
        let new_info = new.model_info().clone();
        self.engine
            .set_context_window(new_info.context_window, new_info.max_output_tokens);
        let over_new_threshold = self.engine.needs_compaction();
        let compact = over_new_threshold && old_info.context_window > new_info.context_window;
        tracing::debug!(
            old = old.slug(),
            new = new.slug(),
            old_window = old_info.context_window,
            new_window = new_info.context_window,
            over_new_threshold,
            compact,
            "compaction check before a model switch"
        );
        if compact {
            // The old model writes the summary (through its provider), under the new window's
            // budgets: what full compaction keeps verbatim (recent user messages, restored
            // files) is sized for the model that reads it next. At the old window's budgets a
            // long user message kept whole would leave the history over the new threshold, and
            // the new model would compact it again.
            self.engine.set_client(old.as_ref());
            let clock = self.state().requests;
            let reason = match point {
                CompactPoint::PreTurn => CompactReason::ModelSwitch,
                CompactPoint::MidTurn => CompactReason::ModelSwitchMidTurn,
            };
            let result = self.compact_with(reason, clock, Arc::clone(&old)).await;
            let current = Arc::clone(&self.options.model);
            self.engine.set_client(current.as_ref());
            result?;
        }
        Ok(compact)
    }

    /// Makes `target` the session's model: requests, the engine's window and provider, and the
    /// subagents follow it.
    fn install_model(&mut self, target: SwitchTarget) {
        let info = target.client.model_info().clone();
        self.engine
            .set_context_window(info.context_window, info.max_output_tokens);
        self.engine.set_client(target.client.as_ref());
        self.subagents = Arc::new(Subagents::for_session(
            Arc::clone(&target.client),
            &self.options,
            &self.hooks,
        ));
        self.options.model = target.client;
        self.options.provider_name = target.provider_name;
    }
}

#[cfg(test)]
#[path = "model_switch_tests.rs"]
mod tests;
