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
//! This file decides from the fields it is handed (the resolver, the engine, the two clients,
//! the pending switch) and never sees the session; the session's steps that carry a switch out
//! (its compaction, its subagents, its options) are in `session/model_switch.rs`. See
//! docs/design/core.md, "Model switch".

use std::sync::Arc;

use agentctx_context::ContextManager;
use agentctx_context::TurnSettings;
use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;
use async_trait::async_trait;

use crate::engine_ext::CompactPoint;
use crate::engine_ext::CompactReason;
use crate::engine_ext::ContextEngine;
use crate::error::CoreError;

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

/// Resolves a model slug to a client. [`crate::session_setup`] installs one that resolves
/// through [`crate::resolve_model`] with the session's provider, so a switch goes through the
/// same provider and window resolution as the start of the session.
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
pub(crate) struct PendingSwitch {
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
    pub(crate) fn on_resume(previous: &str, current: &str) -> Self {
        tracing::info!(previous, current, "resumed with another model");
        Self {
            previous_model: previous.to_string(),
            compact_check_due: true,
        }
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
pub(crate) fn resume_warning(previous: &str, current: &str) -> String {
    format!(
        "This session was recorded with model `{previous}` but is resuming with `{current}`. Consider switching back to `{previous}` as it may affect performance."
    )
}

/// The `<model_switch>` developer message telling the model of `settings` that `previous_model`
/// ran the conversation so far; `None` when the model did not change or has no instructions.
/// The text is `agentctx-context`'s settings-diff section (codex's template), taken from a diff
/// against a reference identical but for the model, so it is defined once.
pub(crate) fn switch_message(
    previous_model: &str,
    settings: &TurnSettings,
) -> Option<ResponseItem> {
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

/// The client of `slug`, through the session's `resolver` (`None`: the session cannot switch).
pub(crate) async fn resolve(
    resolver: Option<&Arc<dyn ModelResolver>>,
    slug: &str,
) -> Result<SwitchTarget, ModelSwitchError> {
    let resolver = resolver.ok_or(ModelSwitchError::NoResolver)?;
    resolver.resolve(slug).await
}

/// Puts `engine` on `new`'s window and says whether the history must first be compacted with
/// `old` (codex's rule): `new`'s window is smaller and the history is over the engine's
/// auto-compact threshold for it.
pub(crate) fn compact_first(
    engine: &mut ContextEngine,
    old: &dyn ModelClient,
    new: &dyn ModelClient,
) -> bool {
    let old_info = old.model_info();
    let new_info = new.model_info();
    engine.set_context_window(new_info.context_window, new_info.max_output_tokens);
    let over_new_threshold = engine.needs_compaction();
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
    compact
}

/// The reason of the compaction before a switch at `point` (before a turn, or between two
/// requests of one when a skill the model invoked switches).
pub(crate) fn compact_reason(point: CompactPoint) -> CompactReason {
    match point {
        CompactPoint::PreTurn => CompactReason::ModelSwitch,
        CompactPoint::MidTurn => CompactReason::ModelSwitchMidTurn,
    }
}

/// Puts `engine` on `model`: its window and output limit, its provider (identity,
/// provider-side context editing).
pub(crate) fn install(engine: &mut ContextEngine, model: &dyn ModelClient) {
    let info = model.model_info();
    engine.set_context_window(info.context_window, info.max_output_tokens);
    engine.set_client(model);
}

/// The switch the next turn announces after a switch away from `previous_model` in turn
/// `turn`: the last turn's model stays the one to announce against (A → B → C before a turn
/// tells C that A ran the conversation), and before any turn there is nothing to announce (no
/// model has spoken yet; codex has no previous turn settings then).
pub(crate) fn announced(
    pending: Option<&PendingSwitch>,
    turn: i32,
    previous_model: &str,
) -> Option<PendingSwitch> {
    let previous_model = match pending {
        Some(pending) => pending.previous_model.clone(),
        None if turn > 0 => previous_model.to_string(),
        None => return None,
    };
    Some(PendingSwitch {
        previous_model,
        compact_check_due: false,
    })
}

impl PendingSwitch {
    /// The recorded model to compact with before the next turn, once: `Some` only the first
    /// time after a resume with another model.
    pub(crate) fn take_compact_check(&mut self) -> Option<String> {
        std::mem::take(&mut self.compact_check_due).then(|| self.previous_model.clone())
    }
}

#[cfg(test)]
#[path = "model_switch_tests.rs"]
mod tests;
