//! A skill active for the rest of a turn, however it was invoked: typed as `/name args` (active
//! from the turn's start) or called by the model through the `skill` tool (active from the
//! request after the call). One definition of what a skill's frontmatter changes while it runs,
//! and of how the turn's end undoes it:
//!
//! - `allowed-tools`: the tools offered and callable are cut to the allowed ones
//!   ([`ToolLimit`]); a skill the model invoked keeps the `skill` tool too. When several skills
//!   with a limit run in one turn, the last one's limit holds, over the turn's own tools;
//! - `model`: the session switches to it ([`crate::Session::switch_model`]: the compaction with
//!   the larger-window model first when the history would not fit, before the turn for a typed
//!   skill, mid-turn for the model's) and back to the turn's model when the turn ends;
//! - `hooks`: the skill's hooks join the session's (`hooks/skill_hooks.rs`) and leave with it;
//! - the running guard: the skill is marked running until the turn ends, so neither the user
//!   nor the model can start it again meanwhile.
//!
//! [`ActiveSkills`] changes the tools and hooks it is handed and says which model to switch to;
//! the session does the switch and records the settings (`session/skills.rs`). See
//! docs/design/skills.md, "A skill's settings while it runs".

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_protocol::TurnContextItem;
use agentctx_skills::RunningSkillGuard;
use agentctx_skills::SkillInvocation;

use super::tool_limit::ToolLimit;
use crate::engine_ext::CompactPoint;
use crate::hooks_ext::HooksExt;
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

    /// The skill's name.
    pub(crate) fn name(&self) -> &str {
        &self.invocation.name
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
    pub(crate) fn take(&self) -> Vec<SkillActivation> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The running turn, as its mid-turn `turn_context` lines need it.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunningTurn {
    /// The turn's `turn_context` as the engine opened it (its id, settings and truncation
    /// policy), before the reasoning and the tools were added.
    pub(crate) context: TurnContextItem,
    /// The user's message, from which the turn's thinking was decided (`ultrathink` and the
    /// other keywords): decided again for a model a skill switches to.
    pub(crate) message: String,
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

impl ActiveSkills {
    /// Makes `activation`'s skill active for the rest of the turn in `tools` and `hooks`: its
    /// tool limit (over the turn's own tools) and its hooks. Returns the model the skill runs
    /// on when it is not `current_model`, with the point of the switch (before the turn for a
    /// typed skill, mid-turn for the model's): the session switches and says so
    /// ([`ActiveSkills::switched_from`]).
    pub(crate) fn activate(
        &mut self,
        activation: SkillActivation,
        tools: &mut ToolRegistry,
        hooks: &HooksExt,
        current_model: &str,
    ) -> Option<(String, CompactPoint)> {
        let SkillActivation {
            invocation,
            guard,
            origin,
        } = activation;
        self.guards.push(guard);
        if let Some(allowed) = &invocation.allowed_tools {
            let mut limit = ToolLimit::new(&invocation.name, allowed);
            if origin == SkillOrigin::Model {
                limit = limit.keeping(SKILL_TOOL);
            }
            let turn_tools = self.saved_tools.get_or_insert_with(|| tools.clone());
            *tools = limit.apply(turn_tools);
        }
        if let Some(config) = &invocation.hooks {
            hooks.activate_skill_hooks(&invocation.name, config);
        }
        tracing::info!(skill = %invocation.name, ?origin, "skill active for the rest of the turn");
        let model = invocation.model.filter(|model| model != current_model)?;
        let point = match origin {
            SkillOrigin::Typed => CompactPoint::PreTurn,
            SkillOrigin::Model => CompactPoint::MidTurn,
        };
        Some((model, point))
    }

    /// A skill switched the session away from `previous`: the turn's end switches back to the
    /// first such model.
    pub(crate) fn switched_from(&mut self, previous: String) {
        self.restore_model.get_or_insert(previous);
    }

    /// Ends every active skill: the turn's tools come back into `tools` and the skills' hooks
    /// leave `hooks`. What is left for the session is in the [`EndedSkills`].
    pub(crate) fn end(&mut self, tools: &mut ToolRegistry, hooks: &HooksExt) -> EndedSkills {
        let active = std::mem::take(self);
        let gave_back = active.saved_tools.is_some() || active.restore_model.is_some();
        if let Some(saved) = active.saved_tools {
            *tools = saved;
        }
        hooks.deactivate_skill_hooks();
        EndedSkills {
            restore_model: active.restore_model,
            settings_changed: active.running.filter(|_| gave_back),
            guards: active.guards,
        }
    }
}

/// What ending a turn's skills leaves for the session to do.
#[derive(Debug)]
pub(crate) struct EndedSkills {
    /// The model to switch back to.
    pub(crate) restore_model: Option<String>,
    /// The running turn, when the tools or the model came back: a `turn_context` line records
    /// what the next requests are sent with again, for a replay or a resume of the rollout.
    pub(crate) settings_changed: Option<RunningTurn>,
    /// The running guards, dropped once the model is back (the skills may run again).
    pub(crate) guards: Vec<RunningSkillGuard>,
}
