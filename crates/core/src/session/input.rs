//! [`Session::run_input`]: what the user typed, carried out. `slash_commands_ext.rs` decides
//! what a line asks for from the commands alone ([`Command`]); the session runs it with what
//! it owns: a turn, a model switch, plan mode, the context view, a compaction, or a typed skill
//! (forked to a subagent, or active for its turn).

use agentctx_skills::SkillContext;
use agentctx_skills::SkillInvocation;
use tokio_util::sync::CancellationToken;

use super::Session;
use super::TurnOutcome;
use crate::engine_ext::CompactReason;
use crate::slash_commands_ext::Command;
use crate::slash_commands_ext::ContextView;
use crate::slash_commands_ext::SkillActivation;
use crate::slash_commands_ext::SkillOrigin;
use crate::slash_commands_ext::SlashCommandError;
use crate::slash_commands_ext::plan_report;
use crate::slash_commands_ext::switch_report;

/// What one line of input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOutcome {
    /// A turn ran (plain input, or a skill's prompt).
    Turn(TurnOutcome),
    /// A built-in answered; the text is for the user, not the model.
    Command(String),
    /// A `context: fork` skill ran as a subagent; its report is the answer.
    Forked {
        /// The skill.
        skill: String,
        /// The subagent's report.
        answer: String,
    },
}

impl Session {
    /// Runs what the user typed: a slash command through the built-ins and the registry, or a
    /// turn. The one entry point of `agentctx run`'s one-shot prompt and line mode.
    pub async fn run_input(
        &mut self,
        input: &str,
        cancel: &CancellationToken,
    ) -> Result<InputOutcome, SlashCommandError> {
        match self.commands.dispatch(input)? {
            Command::Turn => Ok(InputOutcome::Turn(self.run_turn(input, cancel).await?)),
            Command::Model(slug) => {
                let switch = self.switch_model(&slug).await?;
                Ok(InputOutcome::Command(switch_report(&switch)))
            }
            Command::Plan(task) => self.plan_command(&task, cancel).await,
            Command::Context => Ok(InputOutcome::Command(self.context_view().render())),
            Command::Answer(text) => Ok(InputOutcome::Command(text)),
            Command::Compact(instructions) => self.compact_command(&instructions).await,
            Command::Skill(invocation) => self.run_skill(*invocation, cancel).await,
        }
    }

    /// What the context holds now, by category, against the window and its thresholds.
    pub fn context_view(&self) -> ContextView {
        ContextView::of(
            self.model_slug(),
            &self.options.base_instructions,
            &self.tools.specs(),
            self.engine.history(),
            self.engine.window(),
            self.engine.thresholds(),
            self.engine.usage_figures(),
        )
    }

    /// `/plan [task]`: plan mode on; a task given runs now, in it.
    async fn plan_command(
        &mut self,
        task: &str,
        cancel: &CancellationToken,
    ) -> Result<InputOutcome, SlashCommandError> {
        let entered = {
            let mut state = self.state();
            crate::tools::enter_plan_mode(&mut state, &self.options.plans_dir)
        };
        if !task.is_empty() {
            return Ok(InputOutcome::Turn(self.run_turn(task, cancel).await?));
        }
        let plan_file = self.state().plan.plan_file.clone();
        Ok(InputOutcome::Command(plan_report(
            entered.is_some(),
            plan_file.as_deref(),
        )))
    }

    /// `/compact [instructions]`: the engine's compaction now, through the session's model.
    async fn compact_command(
        &mut self,
        instructions: &str,
    ) -> Result<InputOutcome, SlashCommandError> {
        if !self
            .engine
            .history()
            .iter()
            .any(agentctx_protocol::is_user_turn_start)
        {
            return Ok(InputOutcome::Command("Nothing to compact yet".to_string()));
        }
        let (before, _, _) = self.engine.usage_figures();
        self.engine
            .set_next_compaction_instructions(Some(instructions.to_string()));
        self.hooks.set_compact_instructions(instructions);
        let clock = self.state().requests;
        let compacted = self.compact(CompactReason::Requested, clock).await;
        // A compaction that did not summarise here (at the provider) leaves them for no other.
        self.engine.set_next_compaction_instructions(None);
        compacted?;
        let (after, _, _) = self.engine.usage_figures();
        Ok(InputOutcome::Command(format!(
            "Compacted: about {before} tokens before, {after} after"
        )))
    }

    /// Runs a skill typed as `/name args`: as a subagent (`context: fork`), or as the turn with
    /// the skill active in it (`skill_turn.rs`; the turn's end undoes it).
    async fn run_skill(
        &mut self,
        invocation: SkillInvocation,
        cancel: &CancellationToken,
    ) -> Result<InputOutcome, SlashCommandError> {
        let (invocation, guard) = {
            let mut state = self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            self.commands.start_typed(invocation, &mut state)?
        };
        tracing::info!(skill = %invocation.name, context = ?invocation.context, "running a typed skill");
        let mode = if self.state().plan.active {
            "plan"
        } else {
            "default"
        };
        let source = match &invocation.source {
            agentctx_skills::SkillSource::Plugin { .. } => "plugin".to_string(),
            other => format!("{other:?}").to_lowercase(),
        };
        if let Some(reason) = self
            .hooks
            .expansion_blocked(&invocation.name, &invocation.args, &source, mode)
            .await
        {
            return Ok(InputOutcome::Command(format!(
                "/{} was blocked by a UserPromptExpansion hook: {reason}",
                invocation.name
            )));
        }
        if invocation.context == SkillContext::Fork {
            let turn = self.state().turn;
            let ctx = self.tool_context(turn, cancel);
            let answer = crate::skills_ext::run_forked(&invocation, &ctx)
                .await
                .map_err(|message| SlashCommandError::Fork {
                    skill: invocation.name.clone(),
                    message,
                })?;
            return Ok(InputOutcome::Forked {
                skill: invocation.name,
                answer,
            });
        }
        let prompt = invocation.prompt.clone();
        let activation = SkillActivation::new(invocation, guard, SkillOrigin::Typed);
        if let Err(error) = self.activate_skill(activation).await {
            self.end_active_skills().await;
            return Err(error.into());
        }
        Ok(InputOutcome::Turn(self.run_turn(&prompt, cancel).await?))
    }
}
