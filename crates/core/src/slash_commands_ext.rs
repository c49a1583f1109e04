//! Glue to `agentctx-skills` for what the user types: `/name args` through the unified command
//! registry, the session's built-in commands, and the skill's execution settings applied while
//! its turn runs.
//!
//! [`Session::run_input`] is the one entry point `agentctx run` uses for a one-shot prompt and
//! for every line of line mode:
//!
//! - input that is not a slash command (no leading `/`, or a path such as `/usr/bin/env`) is a
//!   turn, unchanged;
//! - the session's built-ins answer without the model, except `/compact`: `/model <slug>` (the
//!   switch of `model_switch.rs`), `/plan [task]` (plan mode; the task, when given, runs in it),
//!   `/context` (what the context holds, `context_view.rs`), `/help`, `/compact` (the engine's
//!   compaction now);
//! - a skill runs its expanded prompt (argument injection by the registry) as the turn, active
//!   for that turn (`skill_turn.rs`, shared with the `skill` tool the model calls): its
//!   `allowed_tools` limit the tools offered and callable (`tool_limit.rs`), its `model` runs
//!   the turn, its `hooks` run beside the session's; with `context: fork` it runs as a subagent
//!   whose report is the answer. The running guard refuses a second run of the same skill while
//!   one runs, by either path; usage is recorded in `<home>/skills-usage.json` and the
//!   invocation in `invoked_skills`, as the `skill` tool records them;
//! - an unknown `/name` is a one-line error naming the closest commands; no model is called.
//!
//! See docs/design/skills.md, "Slash commands in a session".

mod context_view;
mod skill_turn;
mod tool_limit;

use std::path::PathBuf;
use std::sync::Arc;

use agentctx_skills::CommandDispatch;
use agentctx_skills::CommandRegistry;
use agentctx_skills::LocalCommandKind;
use agentctx_skills::RunningSkills;
use agentctx_skills::SkillContext;
use agentctx_skills::SkillError;
use agentctx_skills::SkillInvocation;
use agentctx_skills::SkillUsageTracker;
use tokio_util::sync::CancellationToken;

pub use self::context_view::ContextCategory;
pub use self::context_view::ContextView;
pub(crate) use self::skill_turn::ActiveSkills;
pub(crate) use self::skill_turn::InvokedSkillQueue;
pub(crate) use self::skill_turn::SkillActivation;
pub(crate) use self::skill_turn::SkillOrigin;
pub use self::tool_limit::ToolLimit;
use crate::engine_ext::CompactReason;
use crate::error::CoreError;
use crate::model_switch::ModelSwitchError;
use crate::session::Session;
use crate::session::SessionOptions;
use crate::session::TurnOutcome;

/// The file, under the home, where typed skill invocations are counted.
pub const SKILL_USAGE_FILE: &str = "skills-usage.json";

/// The subagent a `context: fork` skill runs as when it names none.
pub const DEFAULT_FORK_AGENT: &str = "Explore";

/// At most this many close names follow an unknown command.
const MAX_SUGGESTIONS: usize = 3;

/// The session's own commands, answered before the registry's. Their names shadow a skill of
/// the same name.
const SESSION_COMMANDS: [(&str, &str, &str); 3] = [
    (
        "model",
        "<slug>",
        "Switch the model (compacts first when the new window is smaller)",
    ),
    (
        "plan",
        "[task]",
        "Enter plan mode; the next turn (or the task) runs in it",
    ),
    (
        "context",
        "",
        "Show what the context holds, by category, against the window and its thresholds",
    ),
];

/// The commands a session's user may type: the registry, the running guard and the usage file;
/// the `skill` tool shares them (a clone), with the queue of the skills the model invoked.
#[derive(Debug, Clone)]
pub struct SlashCommands {
    registry: Arc<CommandRegistry>,
    running: RunningSkills,
    usage_path: PathBuf,
    half_life_days: f64,
    invoked: InvokedSkillQueue,
    /// The session's id, for `${CLAUDE_SESSION_ID}` in a skill's prompt.
    session_id: String,
}

impl SlashCommands {
    /// The commands of the session `session_id` built from `options`: its skills and the
    /// built-ins.
    pub(crate) fn load(options: &SessionOptions, session_id: &str) -> Self {
        let registry =
            crate::skills_ext::load_commands(&options.home, &options.cwd, &options.skills);
        Self {
            registry: Arc::new(registry),
            running: RunningSkills::new(),
            usage_path: options.home.join(SKILL_USAGE_FILE),
            half_life_days: options.skills.usage_half_life_days,
            invoked: InvokedSkillQueue::default(),
            session_id: session_id.to_string(),
        }
    }

    /// `invocation` as it runs in this session: `${CLAUDE_SESSION_ID}` in its prompt is the
    /// session's id. Both paths, typed and the model's `skill` call, take their invocation
    /// through here before it is recorded or run.
    pub(crate) fn in_session(&self, invocation: SkillInvocation) -> SkillInvocation {
        invocation.in_session(&self.session_id)
    }

    /// The skills the model invoked, waiting to be made active.
    pub(crate) fn invoked(&self) -> &InvokedSkillQueue {
        &self.invoked
    }

    /// What every run of a skill records, typed or invoked by the model: one use in the usage
    /// file and the invocation in `state` (the invoked-skills reminder, restoration after a
    /// compaction).
    pub(crate) fn record_run(
        &self,
        state: &mut crate::session_state::SessionState,
        invocation: &SkillInvocation,
    ) {
        self.record_usage(&invocation.name);
        crate::skills_ext::record_invocation(state, invocation);
    }

    /// The unified registry.
    pub fn registry(&self) -> &Arc<CommandRegistry> {
        &self.registry
    }

    /// The skills running now (shared with the `skill` tool).
    pub fn running(&self) -> &RunningSkills {
        &self.running
    }

    /// Counts one use of `name` in the usage file; a file that cannot be read or written is
    /// logged and the command goes on.
    fn record_usage(&self, name: &str) {
        let mut tracker = match SkillUsageTracker::load(&self.usage_path, self.half_life_days) {
            Ok(tracker) => tracker,
            Err(error) => {
                tracing::warn!(%error, "skill usage not recorded");
                return;
            }
        };
        tracker.track_usage(name, chrono::Utc::now());
        if let Err(error) = tracker.save(&self.usage_path) {
            tracing::warn!(%error, "skill usage not recorded");
        }
    }

    /// Every name the user may type, for suggestions.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = SESSION_COMMANDS
            .iter()
            .map(|(name, _, _)| (*name).to_string())
            .collect();
        names.extend(
            self.registry
                .get_all_commands()
                .iter()
                .filter(|command| command.is_user_invocable())
                .map(|command| command.name().to_string()),
        );
        names
    }

    /// The text of `/help`: the session's commands, then the registry's commands and skills.
    pub fn help(&self) -> String {
        let mut text = String::from("Session commands:\n");
        for (name, hint, description) in SESSION_COMMANDS {
            let usage = if hint.is_empty() {
                format!("/{name}")
            } else {
                format!("/{name} {hint}")
            };
            text.push_str(&format!("  {usage} - {description}\n"));
        }
        text.push('\n');
        text.push_str(&agentctx_skills::render_help(&self.registry));
        text
    }
}

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

/// Why typed input could not run. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum SlashCommandError {
    /// No command has the name.
    #[error("unknown command `/{name}`{}; /help lists the commands", suggestion(.suggestions))]
    Unknown {
        /// The name typed.
        name: String,
        /// The closest names, best first.
        suggestions: Vec<String>,
    },
    /// The registry refused (not user-invocable, already running).
    #[error(transparent)]
    Skill(#[from] SkillError),
    /// The model switch failed.
    #[error(transparent)]
    ModelSwitch(#[from] ModelSwitchError),
    /// A `context: fork` skill's subagent failed.
    #[error("skill `{skill}` (forked) failed: {message}")]
    Fork {
        /// The skill.
        skill: String,
        /// Why.
        message: String,
    },
    /// The command exists but this session does not do it.
    #[error("`/{name}` is not available here: {reason}")]
    Unsupported {
        /// The command.
        name: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// The turn failed.
    #[error(transparent)]
    Core(#[from] CoreError),
}

fn suggestion(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        return String::new();
    }
    let names: Vec<String> = suggestions.iter().map(|name| format!("/{name}")).collect();
    format!(" (did you mean {}?)", names.join(", "))
}

/// `/name args` split, by the registry's rule: a leading `/`, a name up to the first blank,
/// and no `/` in the name (so a path is not a command). `None` when `input` is not a command.
pub fn parse_command(input: &str) -> Option<(&str, &str)> {
    let rest = input.trim_start().strip_prefix('/')?;
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(end) => (rest.get(..end)?, rest.get(end..)?),
        None => (rest, ""),
    };
    if name.is_empty() || name.contains('/') {
        return None;
    }
    Some((name, args.trim()))
}

/// The names among `names` closest to `typed`: a shared prefix, or an edit distance of at
/// most a third of the longer name (at least 1), best first, at most `MAX_SUGGESTIONS` (3).
pub fn close_names(typed: &str, names: &[String]) -> Vec<String> {
    let typed = typed.to_lowercase();
    let mut scored: Vec<(usize, &String)> = names
        .iter()
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let distance = edit_distance(&typed, &lower);
            let budget = (typed.chars().count().max(lower.chars().count()) / 3).max(1);
            let prefix =
                typed.len() >= 2 && (lower.starts_with(&typed) || typed.starts_with(&lower));
            (distance <= budget || prefix).then_some((distance, name))
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, name)| name.clone())
        .collect()
}

/// Edit distance over characters, a swap of two neighbours counting as one edit (the optimal
/// string alignment distance: `modle` is one edit from `model`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut table = vec![0usize; (a.len() + 1) * width];
    let at = |i: usize, j: usize| i * width + j;
    for i in 0..=a.len() {
        table[at(i, 0)] = i;
    }
    for j in 0..=b.len() {
        table[at(0, j)] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[at(i - 1, j)] + 1)
                .min(table[at(i, j - 1)] + 1)
                .min(table[at(i - 1, j - 1)] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[at(i - 2, j - 2)] + 1);
            }
            table[at(i, j)] = best;
        }
    }
    table[at(a.len(), b.len())]
}

impl Session {
    /// Runs what the user typed: a slash command through the built-ins and the registry, or a
    /// turn. The one entry point of `agentctx run`'s one-shot prompt and line mode.
    pub async fn run_input(
        &mut self,
        input: &str,
        cancel: &CancellationToken,
    ) -> Result<InputOutcome, SlashCommandError> {
        let Some((name, args)) = parse_command(input) else {
            return Ok(InputOutcome::Turn(self.run_turn(input, cancel).await?));
        };
        match name {
            "model" => {
                let switch = self.switch_model(args).await?;
                return Ok(InputOutcome::Command(
                    if switch.previous_model == switch.model {
                        format!("Model: {} (unchanged)", switch.model)
                    } else {
                        format!(
                            "Model: {} (was {}; window {} tokens{})",
                            switch.model,
                            switch.previous_model,
                            switch.context_window,
                            if switch.compacted {
                                "; the history was compacted first with the previous model"
                            } else {
                                ""
                            }
                        )
                    },
                ));
            }
            "plan" => return self.plan_command(args, cancel).await,
            "context" => return Ok(InputOutcome::Command(self.context_view().render())),
            _ => {}
        }
        let dispatch = match self.commands.registry().dispatch_user_input(input) {
            Ok(dispatch) => dispatch,
            Err(SkillError::UnknownCommand { name }) => {
                let suggestions = close_names(&name, &self.commands.names());
                return Err(SlashCommandError::Unknown { name, suggestions });
            }
            Err(error) => return Err(error.into()),
        };
        match dispatch {
            None => Ok(InputOutcome::Turn(self.run_turn(input, cancel).await?)),
            Some(CommandDispatch::Local { kind, args }) => match kind {
                LocalCommandKind::Help => Ok(InputOutcome::Command(self.commands.help())),
                LocalCommandKind::Compact => self.compact_command(&args).await,
                LocalCommandKind::Clear => Err(SlashCommandError::Unsupported {
                    name: "clear".to_string(),
                    reason: "a session's history is kept; start a new session to begin afresh"
                        .to_string(),
                }),
            },
            Some(CommandDispatch::Prompt(invocation)) => self.run_skill(*invocation, cancel).await,
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
        let file = plan_file
            .map(|path| path.display().to_string())
            .unwrap_or_default();
        Ok(InputOutcome::Command(match entered {
            Some(_) => {
                format!("Plan mode on: the next turn researches and writes its plan to {file} only")
            }
            None => format!("Plan mode is already on (plan file {file})"),
        }))
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
        let invocation = self.commands.in_session(invocation);
        let guard = self.commands.running().try_acquire(&invocation.name)?;
        self.commands.record_run(&mut self.state(), &invocation);
        tracing::info!(skill = %invocation.name, context = ?invocation.context, "running a typed skill");
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

#[cfg(test)]
#[path = "slash_commands_ext_tests.rs"]
mod tests;
