//! Glue to `agentctx-skills`: the `skill` tool and the `invoked_skills` record.
//!
//! The session loads the skills of the home and the working directory into one command registry
//! (shared with the slash commands the user types, `slash_commands_ext.rs`), registers
//! [`SkillTool`] when any skill may be invoked by the model, and every invocation, by the tool
//! or typed, is recorded in the session state (for the invoked-skills reminder and for
//! restoration after compaction). Delete this file and its call site and the session runs without skills. See
//! docs/design/core.md, "The extension files".

use std::path::Path;
use std::sync::Arc;

use agentctx_model::ToolSpec;
use agentctx_protocol::InvokedSkill;
use agentctx_skills::CommandRegistry;
use agentctx_skills::RunningSkills;
use agentctx_skills::SkillInvocation;
pub use agentctx_skills::SkillsConfig;
use agentctx_skills::load_skills;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use crate::session_state::SessionState;
use crate::tools::ToolContext;
use crate::tools::ToolHandler;
use crate::tools::ToolOutput;
use crate::tools::ToolRegistry;

/// The unified registry of the skills under `home` and `cwd` and the built-in commands; a skill
/// that fails to load is logged and left out.
pub fn load_commands(home: &Path, cwd: &Path, config: &SkillsConfig) -> CommandRegistry {
    let outcome = load_skills(&config.roots(home, cwd));
    for error in &outcome.errors {
        tracing::warn!(?error, "skill not loaded");
    }
    CommandRegistry::new(&outcome, config)
}

/// Registers the `skill` tool in `registry` when the model may invoke any of `skills`; a skill
/// among `running` (typed by the user and running now) is refused to the model.
pub fn register_skill_tool(
    registry: &mut ToolRegistry,
    skills: &Arc<CommandRegistry>,
    running: &RunningSkills,
) {
    if skills.get_llm_invocable_skills().is_empty() {
        return;
    }
    registry.register(Arc::new(SkillTool {
        skills: Arc::clone(skills),
        running: running.clone(),
    }));
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

/// Invokes a skill: returns its prompt to the model and records the invocation.
pub struct SkillTool {
    skills: Arc<CommandRegistry>,
    running: RunningSkills,
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
            .skills
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
        if self.running.is_running(&args.skill) {
            let error = agentctx_skills::SkillError::AlreadyRunning { name: args.skill };
            return ToolOutput::error(format!("Error: {error}"));
        }
        match self.skills.invoke_by_model(&args.skill, &args.args) {
            Ok(invocation) => {
                record_invocation(&mut ctx.state(), &invocation);
                ToolOutput::ok(invocation.prompt)
            }
            Err(err) => ToolOutput::error(format!("Error: {err}")),
        }
    }
}
