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
    if event == HookEvent::PermissionRequest {
        let decision = specific.and_then(|s| s.get("decision"));
        match decision
            .and_then(|d| d.get("behavior"))
            .and_then(Value::as_str)
        {
            Some("allow") => verdict.allow = true,
            Some("deny") => {
                verdict.block = Some(
                    text(decision.and_then(|d| d.get("message")))
                        .unwrap_or_else(|| "denied by a PermissionRequest hook".to_string()),
                );
            }
            _ => {}
        }
    }
    let denied = event == HookEvent::PreToolUse
        && matches!(
            specific
                .and_then(|s| s.get("permissionDecision"))
                .and_then(Value::as_str),
            Some("deny")
        );
    if denied {
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
