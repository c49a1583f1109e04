//! Subagents: [`AgentDefinition`], the built-in Explore and Plan agents, and the runner the
//! `task` tool calls.
//!
//! A subagent starts from its own initial messages ([`executor::SubagentExecutor::build_initial_messages`]):
//! its system prompt, its `critical_system_reminder` wrapped as a system reminder, the parent
//! messages it is handed with the parent's reminders filtered out, and the task prompt. It sees
//! core-tier reminders only, never the main agent's. See docs/design/core.md, "Subagents".

pub(crate) mod executor;

use agentctx_skills::SkillHooksConfig;
use agentctx_skills::SkillInvocation;
use async_trait::async_trait;

use crate::slash_commands_ext::ToolLimit;
use crate::tools::ToolContext;

/// The critical reminder of the built-in Explore agent.
pub const EXPLORE_CRITICAL_REMINDER: &str = "CRITICAL: This is a READ-ONLY exploration task. You MUST NOT create, modify or delete any file, and you MUST NOT run commands that change the system. Only read and search, then report what you found with file paths and line numbers.";

/// The critical reminder of the built-in Plan agent.
pub const PLAN_CRITICAL_REMINDER: &str = "CRITICAL: This is a PLANNING task. You MUST NOT create, modify or delete any file. Read the code you need, then answer with a step-by-step implementation plan naming the files to change, the risks and how to verify the result.";

/// Which tools a subagent gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentTools {
    /// Read-only tools.
    ReadOnly,
}

/// A kind of subagent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// The name the `task` tool's `agent` argument uses.
    pub name: String,
    /// When to use it, for the model.
    pub description: String,
    /// Its system prompt.
    pub system_prompt: Option<String>,
    /// A reminder injected at the start of every run, as a system reminder.
    pub critical_system_reminder: Option<String>,
    /// Its tools.
    pub tools: AgentTools,
    /// The most model requests one run may make.
    pub max_requests: u32,
}

impl AgentDefinition {
    /// The built-in Explore agent: fast, read-only code search.
    pub fn explore() -> Self {
        Self {
            name: "Explore".to_string(),
            description: "Fast read-only exploration of the code base: finds files, reads them and reports what it found.".to_string(),
            system_prompt: Some("You are a file search specialist. Read files to answer the question you are given, then reply with a concise report naming file paths and line numbers.".to_string()),
            critical_system_reminder: Some(EXPLORE_CRITICAL_REMINDER.to_string()),
            tools: AgentTools::ReadOnly,
            max_requests: 20,
        }
    }

    /// The built-in Plan agent: read-only research that ends in an implementation plan.
    pub fn plan() -> Self {
        Self {
            name: "Plan".to_string(),
            description: "Read-only research that ends in a step-by-step implementation plan.".to_string(),
            system_prompt: Some("You are a software architect. Study the code you need and design an implementation plan for the task you are given.".to_string()),
            critical_system_reminder: Some(PLAN_CRITICAL_REMINDER.to_string()),
            tools: AgentTools::ReadOnly,
            max_requests: 20,
        }
    }

    /// The built-in agents.
    pub fn builtin() -> Vec<Self> {
        vec![Self::explore(), Self::plan()]
    }
}

/// What one run changes of its agent's settings: a skill run as a subagent (`context: fork`)
/// runs with its own `allowed-tools`, `model` and `hooks`, as Claude Code's forked skills do
/// (<https://code.claude.com/docs/en/skills>, "Run skills in a subagent"; hooks:
/// <https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>).
#[derive(Debug, Clone, Default)]
pub struct SubagentOverrides {
    /// Cuts the agent's own tools to the allowed ones (a tool the agent lacks is not added).
    pub tool_limit: Option<ToolLimit>,
    /// The model slug the run's requests go to, resolved as `/model` resolves one.
    pub model: Option<String>,
    /// Hooks that run for the run's tool calls, and for its end (`SubagentStop`).
    pub hooks: Option<ScopedHooks>,
}

/// The hooks of one component (a skill), scoped to a subagent's run.
#[derive(Debug, Clone)]
pub struct ScopedHooks {
    /// Whose hooks they are (hook logs and `once` keys name it).
    pub owner: String,
    /// The frontmatter `hooks:`.
    pub config: SkillHooksConfig,
}

impl SubagentOverrides {
    /// The settings of the skill `invocation` that hold while its subagent runs.
    pub(crate) fn for_skill(invocation: &SkillInvocation) -> Self {
        Self {
            tool_limit: invocation
                .allowed_tools
                .as_deref()
                .map(|allowed| ToolLimit::new(&invocation.name, allowed)),
            model: invocation.model.clone(),
            hooks: invocation.hooks.as_ref().map(|config| ScopedHooks {
                owner: invocation.name.clone(),
                config: config.clone(),
            }),
        }
    }
}

/// Runs a subagent for the `task` tool and for forked skills.
#[async_trait]
pub trait SubagentRunner: Send + Sync {
    /// The agents the `task` tool may name.
    fn agents(&self) -> Vec<AgentDefinition>;

    /// Runs `agent` on `prompt` with `overrides` of its settings; the final report, or why it
    /// failed (an unknown agent, a model that cannot be resolved, a failed request).
    async fn run_with(
        &self,
        agent: &str,
        prompt: &str,
        parent: &ToolContext,
        overrides: &SubagentOverrides,
    ) -> Result<String, String>;

    /// Runs `agent` on `prompt` with its own settings.
    async fn run(&self, agent: &str, prompt: &str, parent: &ToolContext) -> Result<String, String> {
        self.run_with(agent, prompt, parent, &SubagentOverrides::default())
            .await
    }
}
