//! What one hook run means, by Claude Code's contract
//! (<https://code.claude.com/docs/en/hooks>, "Exit code output", "JSON output"): exit 0 is a
//! success (its stdout is shown where the event says, or read as JSON with `continue`,
//! `stopReason`, `decision`, `reason`, `systemMessage` and `hookSpecificOutput`), exit 2 is a
//! blocking error (its stderr is the reason), anything else (another code, a crash, a timeout,
//! a command that cannot start) is a non-blocking error the user is told about. See
//! docs/design/hooks.md, "Outcomes".

use serde_json::Value;

use crate::hooks_ext::HookEvent;
use crate::process::CapturedOutput;

/// Most characters of a hook's text that reach the model or the user.
pub(crate) const HOOK_TEXT_LIMIT: usize = 10_000;

/// `PreToolUse`'s `hookSpecificOutput.permissionDecision`, ordered by the precedence the
/// reference gives when several hooks answer: `deny` > `defer` > `ask` > `allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PermissionDecision {
    /// Runs without the approval prompt.
    Allow,
    /// The user confirms first.
    Ask,
    /// Claude Code parks the call for a `claude -p --resume`; we have no such resume.
    Defer,
    /// Refused (also [`HookVerdict::block`]).
    Deny,
}

impl PermissionDecision {
    fn parse(value: &str) -> Option<Self> {
        match value {
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "defer" => Some(Self::Defer),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }
}

/// One hook run, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HookVerdict {
    /// The hook blocks the action, with this reason (exit 2, `decision: "block"`, or
    /// `permissionDecision: "deny"`).
    pub block: Option<String>,
    /// `continue: false`: the turn stops after the hooks, with this reason (may be empty).
    pub stop: Option<String>,
    /// `hookSpecificOutput.additionalContext`.
    pub additional_context: Option<String>,
    /// Plain stdout of a success (shown to the model for `SessionStart` and
    /// `UserPromptSubmit`).
    pub success_output: Option<String>,
    /// For the user only: a non-blocking error, or a `systemMessage`.
    pub user_message: Option<String>,
    /// `PermissionRequest`: `hookSpecificOutput.decision.behavior` `allow` (the call runs
    /// without asking the user).
    pub allow: bool,
    /// `PreToolUse`: `hookSpecificOutput.permissionDecision`.
    pub permission: Option<PermissionDecision>,
    /// `PreToolUse`: `permissionDecisionReason` of an `allow` or `ask` (for the user).
    pub permission_reason: Option<String>,
    /// `PreToolUse` `hookSpecificOutput.updatedInput`, or `PermissionRequest`
    /// `hookSpecificOutput.decision.updatedInput` with `allow`: the tool's input to run with.
    pub updated_input: Option<Value>,
    /// `PermissionRequest` `hookSpecificOutput.decision.updatedPermissions` with `allow`: the
    /// permission update entries, as written.
    pub updated_permissions: Vec<Value>,
    /// `PermissionRequest` `hookSpecificOutput.decision.interrupt` with `deny`: the turn stops.
    pub interrupt: bool,
    /// `PostToolUse` `hookSpecificOutput.updatedToolOutput`: the output the model reads instead.
    pub updated_tool_output: Option<Value>,
    /// `PostToolUse` `hookSpecificOutput.updatedMCPToolOutput`: the same, for MCP tools only.
    pub updated_mcp_tool_output: Option<Value>,
}

/// A hook that did not run to an answer (an `http` hook's non-2xx status or lost connection,
/// an `mcp_tool` hook's error, a `prompt` hook's failed request): a non-blocking error for the
/// user.
pub(crate) fn failed(event: HookEvent, label: &str, message: &str) -> HookVerdict {
    HookVerdict {
        user_message: Some(format!(
            "{} hook `{label}` failed: {message}",
            event.as_str()
        )),
        ..HookVerdict::default()
    }
}

/// Reads a finished run (`Err`: the command could not be started).
pub(crate) fn interpret(
    event: HookEvent,
    command: &str,
    run: &std::io::Result<CapturedOutput>,
) -> HookVerdict {
    let run = match run {
        Ok(run) => run,
        Err(error) => {
            return HookVerdict {
                user_message: Some(format!(
                    "{} hook `{command}` could not start: {error}",
                    event.as_str()
                )),
                ..HookVerdict::default()
            };
        }
    };
    if run.timed_out {
        return HookVerdict {
            user_message: Some(format!(
                "{} hook `{command}` timed out and was killed",
                event.as_str()
            )),
            ..HookVerdict::default()
        };
    }
    match run.exit_code {
        Some(0) => success(event, &run.stdout),
        Some(2) => HookVerdict {
            block: Some(clip(
                non_empty(&run.stderr).unwrap_or("blocked by a hook (no message)"),
            )),
            ..HookVerdict::default()
        },
        code => {
            let code = code.map_or("a signal".to_string(), |code| format!("exit code {code}"));
            let detail = non_empty(&run.stderr)
                .map(|stderr| format!(": {}", clip(stderr)))
                .unwrap_or_default();
            HookVerdict {
                user_message: Some(format!(
                    "{} hook `{command}` failed with {code}{detail}",
                    event.as_str()
                )),
                ..HookVerdict::default()
            }
        }
    }
}

fn success(event: HookEvent, stdout: &str) -> HookVerdict {
    let trimmed = stdout.trim();
    let json = trimmed
        .starts_with('{')
        .then(|| serde_json::from_str::<Value>(trimmed).ok())
        .flatten();
    let Some(json) = json else {
        return HookVerdict {
            success_output: non_empty(stdout).map(clip),
            ..HookVerdict::default()
        };
    };
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(clip);
    let specific = json.get("hookSpecificOutput");
    let mut verdict = HookVerdict {
        additional_context: text(specific.and_then(|s| s.get("additionalContext")))
            .filter(|context| !context.trim().is_empty()),
        user_message: text(json.get("systemMessage")),
        ..HookVerdict::default()
    };
    if json.get("continue").and_then(Value::as_bool) == Some(false) {
        verdict.stop = Some(text(json.get("stopReason")).unwrap_or_default());
    }
    let reason = text(json.get("reason"));
    let field = |name: &str| specific.and_then(|s| s.get(name)).cloned();
    match event {
        HookEvent::PermissionRequest => permission_request(specific, &mut verdict),
        HookEvent::PreToolUse => {
            verdict.permission = specific
                .and_then(|s| s.get("permissionDecision"))
                .and_then(Value::as_str)
                .and_then(PermissionDecision::parse);
            verdict.updated_input = field("updatedInput").filter(|v| !v.is_null());
            if matches!(
                verdict.permission,
                Some(PermissionDecision::Allow | PermissionDecision::Ask)
            ) {
                verdict.permission_reason =
                    text(specific.and_then(|s| s.get("permissionDecisionReason")));
            }
        }
        HookEvent::PostToolUse => {
            verdict.updated_tool_output = field("updatedToolOutput").filter(|v| !v.is_null());
            verdict.updated_mcp_tool_output =
                field("updatedMCPToolOutput").filter(|v| !v.is_null());
        }
        _ => {}
    }
    if verdict.permission == Some(PermissionDecision::Deny) {
        verdict.block = Some(
            text(specific.and_then(|s| s.get("permissionDecisionReason")))
                .or(reason)
                .unwrap_or_else(|| "denied by a hook".to_string()),
        );
    } else if json.get("decision").and_then(Value::as_str) == Some("block") {
        verdict.block = Some(reason.unwrap_or_else(|| "blocked by a hook".to_string()));
    }
    verdict
}

/// `PermissionRequest`'s `hookSpecificOutput.decision`: `behavior` `allow` (with
/// `updatedInput`, `updatedPermissions`) or `deny` (with `message`, `interrupt`).
fn permission_request(specific: Option<&Value>, verdict: &mut HookVerdict) {
    let decision = specific.and_then(|s| s.get("decision"));
    let field = |name: &str| decision.and_then(|d| d.get(name));
    match field("behavior").and_then(Value::as_str) {
        Some("allow") => {
            verdict.allow = true;
            verdict.updated_input = field("updatedInput").filter(|v| !v.is_null()).cloned();
            verdict.updated_permissions = field("updatedPermissions")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
        }
        Some("deny") => {
            verdict.block = Some(
                field("message")
                    .and_then(Value::as_str)
                    .map(clip)
                    .unwrap_or_else(|| "denied by a PermissionRequest hook".to_string()),
            );
            verdict.interrupt = field("interrupt").and_then(Value::as_bool) == Some(true);
        }
        _ => {}
    }
}

fn non_empty(text: &str) -> Option<&str> {
    let text = text.trim();
    (!text.is_empty()).then_some(text)
}

/// `text` cut to [`HOOK_TEXT_LIMIT`] characters, with a note when cut.
fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(HOOK_TEXT_LIMIT) {
        Some((at, _)) => format!(
            "{}\n[hook output truncated]",
            text.get(..at).unwrap_or_default()
        ),
        None => text.to_string(),
    }
}

#[cfg(test)]
#[path = "outcome_tests.rs"]
mod tests;
