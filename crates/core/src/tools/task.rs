//! `task`: hands a self-contained job to a subagent and returns its report, or with
//! `run_in_background` starts it and returns at once (`background_agents.rs`; its report is
//! read with `agent_output`).

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use crate::background_agents::BackgroundAgent;

#[derive(Deserialize)]
struct Args {
    agent: String,
    prompt: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    run_in_background: bool,
}

/// Runs a subagent (Explore, Plan).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TaskTool;

#[async_trait]
impl ToolHandler for TaskTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "task".to_string(),
            description: "Runs a subagent on a self-contained task and returns its final report. Agents: Explore (read-only code search), Plan (read-only research ending in an implementation plan). With run_in_background it returns at once with the agent's id; agent_output reads the report.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "agent": {"type": "string", "description": "The agent: Explore or Plan"},
                    "prompt": {"type": "string", "description": "The full task for the agent; it does not see this conversation"},
                    "description": {"type": "string", "description": "A few words on the task"},
                    "run_in_background": {"type": "boolean", "description": "Return at once; the agent runs in the background"}
                },
                "required": ["agent", "prompt"],
                "additionalProperties": false
            }),
        }
    }

    fn parallel_safe(&self) -> bool {
        true
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("task", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let Some(runner) = ctx.subagents.clone() else {
            return ToolOutput::error("Error: subagents are not available in this session");
        };
        if args.run_in_background {
            if !runner.agents().iter().any(|agent| agent.name == args.agent) {
                return ToolOutput::error(format!("Error: no agent named {}", args.agent));
            }
            let description = args
                .description
                .unwrap_or_else(|| args.prompt.chars().take(60).collect());
            let agent =
                BackgroundAgent::start(runner, &args.agent, &args.prompt, &description, ctx);
            let mut state = ctx.state();
            state.agents_started += 1;
            let id = format!("agent_{}", state.agents_started);
            state.agents.insert(id.clone(), agent);
            return ToolOutput::ok(format!(
                "Started {} in the background as {id}. Keep working: its end will be announced, and agent_output with agent_id {id} reads its report.",
                args.agent
            ));
        }
        match runner.run(&args.agent, &args.prompt, ctx).await {
            Ok(report) => ToolOutput::ok(report),
            Err(err) => ToolOutput::error(format!("Error: subagent {} failed: {err}", args.agent)),
        }
    }
}
