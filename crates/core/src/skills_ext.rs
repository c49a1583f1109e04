//! Glue to `agentctx-skills`: the `skill` tool and the `invoked_skills` record.
//!
//! The session loads the skills of the home and the working directory into one command registry
//! (shared with the slash commands the user types, `slash_commands_ext.rs`), registers
//! [`SkillTool`] when any skill may be invoked by the model, and every invocation, by the tool
//! or typed, is recorded in the session state (for the invoked-skills reminder and for
//! restoration after compaction) and counted in the usage file. A skill the model invokes runs
//! as a typed one does: with `context: fork` as a subagent whose report is the tool's output,
//! else active for the rest of the turn (its tool limit, model and hooks;
//! `slash_commands_ext/skill_turn.rs`), under the same running guard. Delete this file and its
//! call site and the session runs without skills. See docs/design/core.md, "The extension
//! files", and docs/design/skills.md.

use std::path::Path;
use std::sync::Arc;

use agentctx_model::ToolSpec;
use agentctx_protocol::InvokedSkill;
use agentctx_skills::CommandRegistry;
use agentctx_skills::SkillContext;
use agentctx_skills::SkillInvocation;
pub(crate) use agentctx_skills::SkillsConfig;
use agentctx_skills::load_skills;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use crate::session_state::SessionState;
use crate::slash_commands_ext::DEFAULT_FORK_AGENT;
use crate::slash_commands_ext::SkillActivation;
use crate::slash_commands_ext::SkillOrigin;
use crate::slash_commands_ext::SlashCommands;
use crate::subagent::SubagentOverrides;
use crate::tools::ToolContext;
use crate::tools::ToolHandler;
use crate::tools::ToolOutput;
use crate::tools::ToolRegistry;

/// The unified registry of the skills under `home` and `cwd` and the built-in commands; a skill
/// that fails to load is logged and left out.
pub(crate) fn load_commands(home: &Path, cwd: &Path, config: &SkillsConfig) -> CommandRegistry {
    let outcome = load_skills(&config.roots(home, cwd));
    for error in &outcome.errors {
        tracing::warn!(?error, "skill not loaded");
    }
    CommandRegistry::new(&outcome, config)
}

/// Registers the `skill` tool in `registry` when the model may invoke any of the skills of
/// `commands`; a skill running now (typed by the user, or invoked earlier in the turn) is refused
/// to the model.
pub(crate) fn register_skill_tool(registry: &mut ToolRegistry, commands: &SlashCommands) {
    if commands.registry().get_llm_invocable_skills().is_empty() {
        return;
    }
    registry.register(Arc::new(SkillTool {
        commands: commands.clone(),
    }));
}

/// Runs a `context: fork` skill as a subagent (its `agent`, else
/// [`DEFAULT_FORK_AGENT`]) on its prompt: the subagent's final report, or why it failed. The one
/// definition the `skill` tool and a typed `/name` share.
///
/// The skill's settings hold in the subagent ([`SubagentOverrides::for_skill`]), as in Claude
/// Code, where a forked skill's frontmatter applies to the subagent that runs it
/// (<https://code.claude.com/docs/en/skills>, "Run skills in a subagent"): the agent's tools
/// cut to its `allowed-tools`, its `model` for the subagent's requests (a model that cannot be
/// resolved fails the run), and its `hooks` around the subagent's tool calls, scoped to that run
/// (<https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>).
pub(crate) async fn run_forked(
    invocation: &SkillInvocation,
    ctx: &ToolContext,
) -> Result<String, String> {
    let agent = invocation.agent.as_deref().unwrap_or(DEFAULT_FORK_AGENT);
    let Some(subagents) = &ctx.subagents else {
        return Err("no subagents can run here".to_string());
    };
    let overrides = SubagentOverrides::for_skill(invocation);
    subagents
        .run_with(agent, &invocation.prompt, ctx, &overrides)
        .await
}

/// Records that `invocation` ran, for the invoked-skills reminder and the restoration after a
/// compaction: the one definition the `skill` tool and a typed `/name` share.
pub(crate) fn record_invocation(state: &mut SessionState, invocation: &SkillInvocation) {
    state.invoked_skills.push(InvokedSkill {
        name: invocation.name.clone(),
        path: invocation.path.clone().unwrap_or_default(),
        content: invocation.prompt.clone(),
    });
}

#[derive(Deserialize)]
struct Args {
    skill: String,
    #[serde(default)]
    args: String,
}

/// Invokes a skill: returns its prompt to the model (or a forked skill's report), records the
/// invocation and queues the skill to be made active for the rest of the turn.
pub(crate) struct SkillTool {
    commands: SlashCommands,
}

impl std::fmt::Debug for SkillTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillTool").finish_non_exhaustive()
    }
}

#[async_trait]
impl ToolHandler for SkillTool {
    fn spec(&self) -> ToolSpec {
        let listing: Vec<String> = self
            .commands
            .registry()
            .get_llm_invocable_skills()
            .iter()
            .map(|skill| format!("- {}: {}", skill.name, skill.description))
            .collect();
        ToolSpec {
            name: "skill".to_string(),
            description: format!(
                "Runs a skill: returns its instructions, which you then follow. Available skills:\n{}",
                listing.join("\n")
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "skill": {"type": "string", "description": "The skill's name"},
                    "args": {"type": "string", "description": "Arguments for the skill"}
                },
                "required": ["skill"],
                "additionalProperties": false
            }),
        }
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match crate::tools::parse_args("skill", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let invocation = match self
            .commands
            .registry()
            .invoke_by_model(&args.skill, &args.args)
        {
            Ok(invocation) => self.commands.in_session(invocation),
            Err(err) => return ToolOutput::error(format!("Error: {err}")),
        };
        // Held until the turn ends (or, forked, until the subagent reported).
        let guard = match self.commands.running().try_acquire(&invocation.name) {
            Ok(guard) => guard,
            Err(error) => return ToolOutput::error(format!("Error: {error}")),
        };
        self.commands.record_run(&mut ctx.state(), &invocation);
        if invocation.context == SkillContext::Fork {
            let answer = run_forked(&invocation, ctx).await;
            drop(guard);
            return match answer {
                Ok(answer) => ToolOutput::ok(answer),
                Err(message) => {
                    let error = crate::slash_commands_ext::SlashCommandError::Fork {
                        skill: invocation.name,
                        message,
                    };
                    ToolOutput::error(format!("Error: {error}"))
                }
            };
        }
        let prompt = invocation.prompt.clone();
        self.commands
            .invoked()
            .push(SkillActivation::new(invocation, guard, SkillOrigin::Model));
        ToolOutput::ok(prompt)
    }
}
