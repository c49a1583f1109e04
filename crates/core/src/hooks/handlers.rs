//! One hook handler run to its verdict, by its `type` (Claude Code's hooks reference, "Hook
//! handler fields", <https://code.claude.com/docs/en/hooks>): `command` through the crate's
//! process helper, `http` (`http_hook.rs`), `prompt` (`prompt_hook.rs`) and `mcp_tool`
//! (`mcp_tool_hook.rs`). Each gives the same thing a command's exit 0 stdout gives (read by
//! `outcome.rs`), or an error the user is told about while the action goes on.

use std::path::PathBuf;
use std::sync::Arc;

use agentctx_model::ModelClient;
use serde_json::Value;

use super::outcome::HookVerdict;
use super::outcome::failed;
use super::outcome::interpret;
use super::settings::HookCommand;
use super::settings::HookEvent;
use super::settings::HookKind;
use crate::hooks_ext::HOOK_OUTPUT_CAP;
use crate::mcp_ext::McpConnectionManager;
use crate::process::CapturedOutput;

/// What a handler runs with.
#[derive(Clone)]
pub(crate) struct HandlerContext {
    /// The working directory of `command` hooks.
    pub cwd: PathBuf,
    /// Added to a `command` hook's environment.
    pub env: Vec<(String, String)>,
    /// The session's model (`prompt`).
    pub model: Option<Arc<dyn ModelClient>>,
    /// The session's MCP servers (`mcp_tool`).
    pub mcp: Option<Arc<McpConnectionManager>>,
}

/// What a handler that answered said: its output read as a command's exit-0 stdout.
pub(crate) type HandlerAnswer = Result<String, String>;

/// Runs `hook` on `event` with `input` and reads its verdict.
pub(crate) async fn run_handler(
    hook: &HookCommand,
    event: HookEvent,
    ctx: &HandlerContext,
    input: &Value,
) -> HookVerdict {
    run_handler_captured(hook, event, ctx, input).await.0
}

/// [`run_handler`] with a `command` hook's captured run (the async hooks' report).
pub(crate) async fn run_handler_captured(
    hook: &HookCommand,
    event: HookEvent,
    ctx: &HandlerContext,
    input: &Value,
) -> (HookVerdict, Option<CapturedOutput>) {
    let label = hook.label();
    let timeout = hook.timeout_on(event);
    let answer = match hook.runnable_kind() {
        Some(HookKind::Command) => {
            let stdin = serde_json::to_vec(input).unwrap_or_default();
            let run = crate::process::run_with_input(
                &hook.command,
                &ctx.cwd,
                &ctx.env,
                &stdin,
                timeout,
                HOOK_OUTPUT_CAP,
            )
            .await;
            let verdict = interpret(event, &label, &run);
            return (verdict, run.ok());
        }
        Some(HookKind::Http) => super::http_hook::post(hook, input, timeout).await,
        Some(HookKind::Prompt) => match &ctx.model {
            Some(model) => {
                super::prompt_hook::judge(hook, event, model.as_ref(), input, timeout).await
            }
            None => Err("no model to judge the prompt".to_string()),
        },
        Some(HookKind::McpTool) => match &ctx.mcp {
            Some(mcp) => super::mcp_tool_hook::call(hook, mcp, input, timeout).await,
            None => Err(format!(
                "the MCP server `{}` is not connected",
                hook.server.as_deref().unwrap_or_default()
            )),
        },
        None => Err(format!("hooks of type `{}` are not run", hook.kind)),
    };
    (answer_verdict(event, &label, answer), None)
}

/// The verdict of a handler that answered with `answer`.
pub(crate) fn answer_verdict(event: HookEvent, label: &str, answer: HandlerAnswer) -> HookVerdict {
    match answer {
        Ok(stdout) => interpret(
            event,
            label,
            &Ok(CapturedOutput {
                exit_code: Some(0),
                stdout,
                stderr: String::new(),
                timed_out: false,
                truncated: false,
            }),
        ),
        Err(message) => failed(event, label, &message),
    }
}
