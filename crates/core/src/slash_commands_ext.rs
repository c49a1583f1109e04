//! Glue to `agentctx-skills` for what the user types: `/name args` through the unified command
//! registry, the session's built-in commands, and the skill's execution settings applied while
//! its turn runs.
//!
//! [`crate::Session::run_input`] is the one entry point `agentctx run` uses for a one-shot prompt
//! and for every line of line mode:
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
//! This file decides from the commands alone what a line asks for ([`SlashCommands::dispatch`]:
//! a [`Command`]) and words the built-ins' answers; the session carries the command out
//! (`session/input.rs`) and never hands its whole self here. See docs/design/skills.md, "Slash
//! commands in a session".

mod context_view;
mod skill_turn;
mod tool_limit;

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_skills::CommandDispatch;
use agentctx_skills::CommandRegistry;
use agentctx_skills::LocalCommandKind;
use agentctx_skills::RunningSkillGuard;
use agentctx_skills::RunningSkills;
use agentctx_skills::SkillError;
use agentctx_skills::SkillInvocation;
use agentctx_skills::SkillUsageTracker;
use agentctx_skills::SkillsConfig;

pub use self::context_view::ContextCategory;
pub use self::context_view::ContextView;
pub(crate) use self::skill_turn::ActiveSkills;
pub(crate) use self::skill_turn::InvokedSkillQueue;
pub(crate) use self::skill_turn::RunningTurn;
pub(crate) use self::skill_turn::SkillActivation;
pub(crate) use self::skill_turn::SkillOrigin;
pub use self::tool_limit::ToolLimit;
pub(crate) use self::tool_limit::shell_rule_matches;
use crate::error::CoreError;
use crate::model_switch::ModelSwitch;
use crate::model_switch::ModelSwitchError;

/// The file, under the home, where typed skill invocations are counted.
pub const SKILL_USAGE_FILE: &str = "skills-usage.json";

/// The subagent a `context: fork` skill runs as when it names none.
pub(crate) const DEFAULT_FORK_AGENT: &str = "Explore";

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
pub(crate) struct SlashCommands {
    registry: Arc<CommandRegistry>,
    running: RunningSkills,
    usage_path: PathBuf,
    half_life_days: f64,
    invoked: InvokedSkillQueue,
    /// The session's id, for `${CLAUDE_SESSION_ID}` in a skill's prompt.
    session_id: String,
}

impl SlashCommands {
    /// The commands of the session `session_id`: the skills `config` finds under `home` and
    /// `cwd`, and the built-ins; typed skills are counted in the usage file under `home`.
    pub(crate) fn load(home: &Path, cwd: &Path, config: &SkillsConfig, session_id: &str) -> Self {
        let registry = crate::skills_ext::load_commands(home, cwd, config);
        Self {
            registry: Arc::new(registry),
            running: RunningSkills::new(),
            usage_path: home.join(SKILL_USAGE_FILE),
            half_life_days: config.usage_half_life_days,
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
    pub(crate) fn registry(&self) -> &Arc<CommandRegistry> {
        &self.registry
    }

    /// The skills running now (shared with the `skill` tool).
    pub(crate) fn running(&self) -> &RunningSkills {
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
    pub(crate) fn help(&self) -> String {
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
pub(crate) fn parse_command(input: &str) -> Option<(&str, &str)> {
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
pub(crate) fn close_names(typed: &str, names: &[String]) -> Vec<String> {
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

/// What a line of input asks the session to do, decided from the commands alone
/// ([`SlashCommands::dispatch`]); the session carries it out (`session/input.rs`).
#[derive(Debug)]
pub(crate) enum Command {
    /// Not a command (or a path such as `/usr/bin/env`): the input is the turn, unchanged.
    Turn,
    /// `/model <slug>`.
    Model(String),
    /// `/plan [task]`.
    Plan(String),
    /// `/context`.
    Context,
    /// A built-in answered without the session (`/help`): the text for the user.
    Answer(String),
    /// `/compact [instructions]`.
    Compact(String),
    /// A skill typed as `/name args`, expanded by the registry.
    Skill(Box<SkillInvocation>),
}

impl SlashCommands {
    /// What `input` asks for: the session's built-ins first, then the registry's commands and
    /// skills. An unknown `/name` is the error, naming the closest commands.
    pub(crate) fn dispatch(&self, input: &str) -> Result<Command, SlashCommandError> {
        let Some((name, args)) = parse_command(input) else {
            return Ok(Command::Turn);
        };
        match name {
            "model" => return Ok(Command::Model(args.to_string())),
            "plan" => return Ok(Command::Plan(args.to_string())),
            "context" => return Ok(Command::Context),
            _ => {}
        }
        let dispatch = match self.registry.dispatch_user_input(input) {
            Ok(dispatch) => dispatch,
            Err(SkillError::UnknownCommand { name }) => {
                let suggestions = close_names(&name, &self.names());
                return Err(SlashCommandError::Unknown { name, suggestions });
            }
            Err(error) => return Err(error.into()),
        };
        Ok(match dispatch {
            None => Command::Turn,
            Some(CommandDispatch::Local { kind, args }) => match kind {
                LocalCommandKind::Help => Command::Answer(self.help()),
                LocalCommandKind::Compact => Command::Compact(args),
                LocalCommandKind::Clear => {
                    return Err(SlashCommandError::Unsupported {
                        name: "clear".to_string(),
                        reason: "a session's history is kept; start a new session to begin afresh"
                            .to_string(),
                    });
                }
            },
            Some(CommandDispatch::Prompt(invocation)) => Command::Skill(invocation),
        })
    }

    /// A typed skill about to run: its invocation in this session, marked running (the guard
    /// holds until its turn ends or its subagent reports), its use recorded in `state` and the
    /// usage file.
    pub(crate) fn start_typed(
        &self,
        invocation: SkillInvocation,
        state: &mut crate::session_state::SessionState,
    ) -> Result<(SkillInvocation, RunningSkillGuard), SkillError> {
        let invocation = self.in_session(invocation);
        let guard = self.running.try_acquire(&invocation.name)?;
        self.record_run(state, &invocation);
        Ok((invocation, guard))
    }
}

/// What `/model` answers: the switch, the window, and whether the history was compacted first.
pub(crate) fn switch_report(switch: &ModelSwitch) -> String {
    if switch.previous_model == switch.model {
        return format!("Model: {} (unchanged)", switch.model);
    }
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
}

/// What `/plan` without a task answers: plan mode `entered` now (or already on) with its plan
/// file.
pub(crate) fn plan_report(entered: bool, plan_file: Option<&Path>) -> String {
    let file = plan_file
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    if entered {
        format!("Plan mode on: the next turn researches and writes its plan to {file} only")
    } else {
        format!("Plan mode is already on (plan file {file})")
    }
}

#[cfg(test)]
#[path = "slash_commands_ext_tests.rs"]
mod tests;
