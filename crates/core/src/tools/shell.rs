//! `shell`, `bash_output` and `kill_shell`: commands in the working directory, in the
//! foreground with a timeout or in the background.

use std::time::Duration;

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolClass;
use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalRequest;
use crate::process::BackgroundProcess;
use crate::process::BackgroundStatus;
use crate::process::run_shell;
use crate::session_state::BackgroundShell;

/// Timeout of a foreground command when the model gives none.
pub(crate) const DEFAULT_SHELL_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest timeout the model may ask for.
pub(crate) const MAX_SHELL_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Deserialize)]
struct ShellArgs {
    command: String,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    run_in_background: bool,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Deserialize)]
struct ShellIdArgs {
    shell_id: String,
}

/// Runs a bash command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShellTool {
    /// Timeout when the model gives none.
    pub default_timeout: Duration,
}

impl Default for ShellTool {
    fn default() -> Self {
        Self {
            default_timeout: DEFAULT_SHELL_TIMEOUT,
        }
    }
}

#[async_trait]
impl ToolHandler for ShellTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "shell".to_string(),
            description: "Runs a bash command in the working directory and returns its exit code, stdout and stderr. Set run_in_background for long-running commands, then read them with bash_output and stop them with kill_shell.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line"},
                    "timeout_ms": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds (default 120000, at most 600000)"},
                    "run_in_background": {"type": "boolean", "description": "Run in the background and return at once"},
                    "description": {"type": "string", "description": "What the command does, in a few words"}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        }
    }

    fn class(&self) -> Option<ToolClass> {
        Some(ToolClass::Shell)
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: ShellArgs = match parse_args("shell", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        if ctx.state().plan.active {
            return ToolOutput::error(
                "Error: plan mode is on, so shell commands do not run. Read files with read_file, write the plan file, then call exit_plan_mode.",
            );
        }
        let request = ApprovalRequest::Shell {
            command: args.command.clone(),
        };
        if ctx.approve(&request).await == ApprovalDecision::Denied {
            return ToolOutput::error(format!(
                "Error: the user did not approve running `{}`",
                args.command
            ));
        }
        if args.run_in_background {
            let process = match BackgroundProcess::spawn(&args.command, &ctx.cwd) {
                Ok(process) => process,
                Err(err) => {
                    return ToolOutput::error(format!(
                        "Error: cannot start `{}`: {err}",
                        args.command
                    ));
                }
            };
            let mut state = ctx.state();
            state.shells_started += 1;
            let id = format!("shell_{}", state.shells_started);
            state.shells.insert(
                id.clone(),
                BackgroundShell {
                    command: args.command.clone(),
                    description: args.description.unwrap_or_else(|| args.command.clone()),
                    process,
                },
            );
            return ToolOutput::ok(format!(
                "Started `{}` in the background as {id}. Read its output with bash_output, stop it with kill_shell.",
                args.command
            ));
        }
        let timeout = args
            .timeout_ms
            .map_or(self.default_timeout, Duration::from_millis)
            .min(MAX_SHELL_TIMEOUT);
        match run_shell(&args.command, &ctx.cwd, timeout, &ctx.cancel).await {
            Ok(out) if out.timed_out => ToolOutput::error(format!(
                "Error: `{}` timed out after {} ms and was killed",
                args.command,
                timeout.as_millis()
            )),
            Ok(out) if out.cancelled => {
                ToolOutput::error(format!("Error: `{}` was cancelled", args.command))
            }
            Ok(out) => {
                let code = out.exit_code.map_or_else(
                    || "none (killed by a signal)".to_string(),
                    |c| c.to_string(),
                );
                let text = format!(
                    "exit_code: {code}\nstdout:\n{}\nstderr:\n{}",
                    out.stdout, out.stderr
                );
                if out.exit_code == Some(0) {
                    ToolOutput::ok(text)
                } else {
                    ToolOutput::error(text)
                }
            }
            Err(err) => ToolOutput::error(format!("Error: cannot run `{}`: {err}", args.command)),
        }
    }
}

/// Reads what a background shell printed since the last read.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BashOutputTool;

#[async_trait]
impl ToolHandler for BashOutputTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "bash_output".to_string(),
            description:
                "Returns the output a background shell printed since the last call, and its status."
                    .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {"shell_id": {"type": "string", "description": "The id shell returned"}},
                "required": ["shell_id"],
                "additionalProperties": false
            }),
        }
    }

    fn class(&self) -> Option<ToolClass> {
        Some(ToolClass::Shell)
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: ShellIdArgs = match parse_args("bash_output", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let mut state = ctx.state();
        let Some(shell) = state.shells.get_mut(&args.shell_id) else {
            return ToolOutput::error(format!("Error: no background shell {}", args.shell_id));
        };
        let (output, status) = shell.process.read_new_output();
        let exit = match status {
            BackgroundStatus::Exited(Some(code)) => format!("\n<exit_code>{code}</exit_code>"),
            _ => String::new(),
        };
        ToolOutput::ok(format!(
            "<status>{}</status>{exit}\n<output>\n{output}</output>",
            status.as_str()
        ))
    }
}

/// Stops a background shell.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KillShellTool;

#[async_trait]
impl ToolHandler for KillShellTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "kill_shell".to_string(),
            description: "Stops a background shell.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {"shell_id": {"type": "string", "description": "The id shell returned"}},
                "required": ["shell_id"],
                "additionalProperties": false
            }),
        }
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: ShellIdArgs = match parse_args("kill_shell", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let mut state = ctx.state();
        let Some(shell) = state.shells.get_mut(&args.shell_id) else {
            return ToolOutput::error(format!("Error: no background shell {}", args.shell_id));
        };
        if shell.process.kill() {
            ToolOutput::ok(format!("Killed {}", args.shell_id))
        } else {
            ToolOutput::ok(format!(
                "{} had already finished ({})",
                args.shell_id,
                shell.process.status().as_str()
            ))
        }
    }
}
