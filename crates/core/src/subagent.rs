//! Subagents: [`AgentDefinition`], the built-in Explore and Plan agents, and the runner the
//! `task` tool calls.
//!
//! A subagent starts from its own initial messages ([`executor::SubagentExecutor::build_initial_messages`]):
//! its system prompt, its `critical_system_reminder` wrapped as a system reminder, the parent
//! messages it is handed with the parent's reminders filtered out, and the task prompt. It sees
//! core-tier reminders only, never the main agent's. See docs/design/core.md, "Subagents".

pub mod executor;

use async_trait::async_trait;

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

/// Runs a subagent for the `task` tool.
#[async_trait]
pub trait SubagentRunner: Send + Sync {
    /// The agents the `task` tool may name.
    fn agents(&self) -> Vec<AgentDefinition>;

    /// Runs `agent` on `prompt`; the final report, or why it failed.
    async fn run(&self, agent: &str, prompt: &str, parent: &ToolContext) -> Result<String, String>;
}
