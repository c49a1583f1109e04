//! `agent_output`: the report of a subagent started in the background (`task` with
//! `run_in_background`), waiting for it a bounded time. Claude Code's counterpart is
//! `AgentOutputTool` (its `async_agent_status` notification names that tool).

use std::time::Duration;

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use crate::background_agents::AgentRun;

/// How long a call waits for a running agent by default.
pub(crate) const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The longest a call may wait.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(600);

#[derive(Deserialize)]
struct Args {
    agent_id: String,
    #[serde(default = "default_block")]
    block: bool,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

fn default_block() -> bool {
    true
}

/// Reads a background agent's report.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AgentOutputTool;

#[async_trait]
impl ToolHandler for AgentOutputTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "agent_output".to_string(),
            description: "Returns a background agent's status, and its report once it ended (waits up to timeout_ms, 30 s by default, unless block is false).".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "agent_id": {"type": "string", "description": "The id task returned (agent_1, …)"},
                    "block": {"type": "boolean", "description": "Wait for a running agent (default true)"},
                    "timeout_ms": {"type": "integer", "description": "How long to wait, at most 600000"}
                },
                "required": ["agent_id"],
                "additionalProperties": false
            }),
        }
    }

    fn parallel_safe(&self) -> bool {
        true
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("agent_output", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let wait = args
            .timeout_ms
            .map_or(DEFAULT_WAIT, Duration::from_millis)
            .min(MAX_WAIT);
        // The wait must not hold the session's state: a clone of the agent's channel waits.
        let waiting = {
            let state = ctx.state();
            let Some(agent) = state.agents.get(&args.agent_id) else {
                return ToolOutput::error(format!("Error: no background agent {}", args.agent_id));
            };
            agent.waiter()
        };
        let run = if args.block {
            tokio::select! {
                run = waiting.wait(wait) => run,
                () = ctx.cancel.cancelled() => waiting.state(),
            }
        } else {
            waiting.state()
        };
        let status = run.as_str();
        match run {
            AgentRun::Completed(report) => ToolOutput::ok(format!(
                "<status>{status}</status>\n<report>\n{report}\n</report>"
            )),
            AgentRun::Failed(error) => {
                ToolOutput::error(format!("<status>{status}</status>\n<error>{error}</error>"))
            }
            AgentRun::Running | AgentRun::Stopped => {
                ToolOutput::ok(format!("<status>{status}</status>"))
            }
        }
    }
}
