//! `task`: hands a self-contained job to a subagent and returns its report.

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;

#[derive(Deserialize)]
struct Args {
    agent: String,
    prompt: String,
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "shown to the user by hosts that render tool calls"
    )]
    description: Option<String>,
}

/// Runs a subagent (Explore, Plan).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TaskTool;

#[async_trait]
impl ToolHandler for TaskTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "task".to_string(),
            description: "Runs a subagent on a self-contained task and returns its final report. Agents: Explore (read-only code search), Plan (read-only research ending in an implementation plan).".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "agent": {"type": "string", "description": "The agent: Explore or Plan"},
                    "prompt": {"type": "string", "description": "The full task for the agent; it does not see this conversation"},
                    "description": {"type": "string", "description": "A few words on the task"}
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
        match runner.run(&args.agent, &args.prompt, ctx).await {
            Ok(report) => ToolOutput::ok(report),
            Err(err) => ToolOutput::error(format!("Error: subagent {} failed: {err}", args.agent)),
        }
    }
}
