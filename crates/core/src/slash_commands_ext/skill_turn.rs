//! A skill active for the rest of a turn, however it was invoked: typed as `/name args` (active
//! from the turn's start) or called by the model through the `skill` tool (active from the
//! request after the call). One definition of what a skill's frontmatter changes while it runs,
//! and of how the turn's end undoes it:
//!
//! - `allowed-tools`: the tools offered and callable are cut to the allowed ones
//!   ([`ToolLimit`]); a skill the model invoked keeps the `skill` tool too. When several skills
//!   with a limit run in one turn, the last one's limit holds, over the turn's own tools;
//! - `model`: the session switches to it ([`Session::switch_model`]: the compaction with the
//!   larger-window model first when the history would not fit, before the turn for a typed
//!   skill, mid-turn for the model's) and back to the turn's model when the turn ends;
//! - `hooks`: the skill's hooks join the session's (`hooks/skill_hooks.rs`) and leave with it;
//! - the running guard: the skill is marked running until the turn ends, so neither the user
//!   nor the model can start it again meanwhile.
//!
//! See docs/design/skills.md, "A skill's settings while it runs".

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_skills::RunningSkillGuard;
use agentctx_skills::SkillInvocation;

use super::tool_limit::ToolLimit;
use crate::engine_ext::CompactPoint;
use crate::event::SessionEvent;
use crate::model_switch::ModelSwitchError;
use crate::session::Session;
use crate::session::turn_record::RunningTurn;
use crate::tools::ToolRegistry;

/// The name of the tool through which the model invokes skills.
const SKILL_TOOL: &str = "skill";

/// Who invoked a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillOrigin {
    /// The user typed `/name args`: the skill's settings hold from the turn's start.
    Typed,
    /// The model called the `skill` tool: they hold from the next request.
    Model,
}

/// A skill invocation with its running guard, to be made active.
#[derive(Debug)]
pub(crate) struct SkillActivation {
    invocation: SkillInvocation,
    guard: RunningSkillGuard,
    origin: SkillOrigin,
}

impl SkillActivation {
    /// `invocation`, marked running by `guard`, invoked by `origin`.
    pub(crate) fn new(
        invocation: SkillInvocation,
        guard: RunningSkillGuard,
        origin: SkillOrigin,
    ) -> Self {
        Self {
            invocation,
            guard,
            origin,
        }
    }
}

/// The skills the model invoked during the tool calls of a request, waiting for the session
/// to make them active before the next one. Clones share the queue (the `skill` tool holds one).
#[derive(Debug, Clone, Default)]
pub(crate) struct InvokedSkillQueue(Arc<Mutex<Vec<SkillActivation>>>);

impl InvokedSkillQueue {
    /// Queues `activation`.
    pub(crate) fn push(&self, activation: SkillActivation) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(activation);
    }

    /// Everything queued, oldest first.
    fn take(&self) -> Vec<SkillActivation> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// What the skills active in the running turn changed, undone when it ends.
#[derive(Debug, Default)]
pub(crate) struct ActiveSkills {
    /// The running guards of the active skills.
    guards: Vec<RunningSkillGuard>,
    /// The turn's tools before a skill limited them.
    saved_tools: Option<ToolRegistry>,
    /// The turn's model before a skill switched it.
    restore_model: Option<String>,
    /// The running turn, for the `turn_context` lines that record what a skill changed.
    pub(crate) running: Option<RunningTurn>,
}

impl Session {
    /// Makes `activation`'s skill active for the rest of the turn: its tool limit, its model and
    /// its hooks. A model that cannot be switched to is the error (the tool limit and hooks are
    /// applied first, so the turn's end undoes whatever was done).
    pub(crate) async fn activate_skill(
        &mut self,
        activation: SkillActivation,
    ) -> Result<(), ModelSwitchError> {
        let SkillActivation {
            invocation,
            guard,
            origin,
        } = activation;
        self.active_skills.guards.push(guard);
        if let Some(allowed) = &invocation.allowed_tools {
            let mut limit = ToolLimit::new(&invocation.name, allowed);
            if origin == SkillOrigin::Model {
                limit = limit.keeping(SKILL_TOOL);
            }
            let turn_tools = self
                .active_skills
                .saved_tools
                .get_or_insert_with(|| self.tools.clone());
            self.tools = limit.apply(turn_tools);
        }
        if let Some(hooks) = &invocation.hooks {
            self.hooks.activate_skill_hooks(&invocation.name, hooks);
        }
        if let Some(model) = invocation.model.as_deref()
            && model != self.model_slug()
        {
            let point = match origin {
                SkillOrigin::Typed => CompactPoint::PreTurn,
                SkillOrigin::Model => CompactPoint::MidTurn,
            };
            let switch = self.switch_model_at(model, point).await?;
            self.active_skills
                .restore_model
                .get_or_insert(switch.previous_model);
        }
        tracing::info!(skill = %invocation.name, ?origin, "skill active for the rest of the turn");
        Ok(())
    }

    /// After a request's tool calls: makes active the skills the model invoked in them. A model
    /// switch that fails is a warning; the skill goes on with the session's model.
    ///
    /// When they changed the tools or the model, a `turn_context` line with the turn's id
    /// records what the next requests are sent with (`session/turn_record.rs`), so a replay
    /// or a resume of the rollout sends them too.
    pub(crate) async fn activate_invoked_skills(&mut self) {
        let invoked = self.commands.invoked().take();
        if invoked.is_empty() {
            return;
        }
        let before = (self.model_slug().to_string(), self.tools.specs());
        for activation in invoked {
            let name = activation.invocation.name.clone();
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
    pub(crate) async fn end_active_skills(&mut self) {
        // Skills invoked in tool calls the turn never got past (a cancel, an error) end too.
        drop(self.commands.invoked().take());
        let active = std::mem::take(&mut self.active_skills);
        let gave_back = active.saved_tools.is_some() || active.restore_model.is_some();
        if let Some(tools) = active.saved_tools {
            self.tools = tools;
        }
        self.hooks.deactivate_skill_hooks();
        if let Some(previous) = active.restore_model
            && let Err(error) = self.switch_model(&previous).await
        {
            self.emit(SessionEvent::Warning {
                message: format!("the model was not switched back after the skill: {error}"),
            });
        }
        drop(active.guards);
        // What the next requests are sent with again, for a replay or a resume of the rollout.
        if gave_back && let Some(running) = &active.running {
            self.record_settings_changed(running);
        }
    }
}
