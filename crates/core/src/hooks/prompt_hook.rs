//! `prompt` hooks (Claude Code's hooks reference, "Prompt-based hooks",
//! <https://code.claude.com/docs/en/hooks>): the session's model judges the hook's `prompt`
//! with `$ARGUMENTS` replaced by the input JSON (appended when the prompt has no
//! `$ARGUMENTS`), one request through [`ModelClient::complete`] as the session's other side
//! requests, within the hook's timeout (default 30 s). It answers `{"ok": true}` to let the
//! action go on or `{"ok": false, "reason": "..."}` to block it: the reason is then what a
//! blocking hook's reason is for the event (`Stop`: the model goes on with it). The hook's
//! `model` is not honoured: the judge is the session's model.

use std::time::Duration;

use agentctx_model::ModelClient;
use serde_json::Value;
use serde_json::json;

use super::handlers::HandlerAnswer;
use super::settings::HookCommand;
use super::settings::HookEvent;

/// The system instructions of the judge: the documented response shape.
pub(crate) const PROMPT_HOOK_SYSTEM: &str = "You are a hook in a coding agent's session: you judge the event described below against the condition you are given. Respond with a JSON object only, no other text: {\"ok\": true} to let the action go on, or {\"ok\": false, \"reason\": \"<why, addressed to the agent>\"} to stop it.";

/// The text sent to the judge: `prompt` with `$ARGUMENTS` replaced by `input`, or with
/// `input` appended when it has no `$ARGUMENTS`.
pub(crate) fn prompt_text(prompt: &str, input: &Value) -> String {
    let arguments = serde_json::to_string(input).unwrap_or_default();
    if prompt.contains("$ARGUMENTS") {
        prompt.replace("$ARGUMENTS", &arguments)
    } else {
        format!("{prompt}\n\n{arguments}")
    }
}

/// Asks `model` and returns the decision as a command hook's JSON output.
pub(crate) async fn judge(
    hook: &HookCommand,
    event: HookEvent,
    model: &dyn ModelClient,
    input: &Value,
    timeout: Duration,
) -> HandlerAnswer {
    let text = prompt_text(hook.prompt.as_deref().unwrap_or_default(), input);
    let reply = tokio::time::timeout(timeout, model.complete(PROMPT_HOOK_SYSTEM, &text))
        .await
        .map_err(|_| {
            format!(
                "the model did not answer within {} s",
                timeout.as_secs_f64()
            )
        })?
        .map_err(|error| format!("the model request failed: {error}"))?;
    let (ok, reason) = parse_reply(&reply)?;
    Ok(decision_json(event, ok, reason).to_string())
}

/// `(ok, reason)` of the model's reply: the first JSON object in it (fences and text around
/// it are tolerated).
pub(crate) fn parse_reply(reply: &str) -> Result<(bool, Option<String>), String> {
    let start = reply.find('{');
    let end = reply.rfind('}');
    let object = match (start, end) {
        (Some(start), Some(end)) if start < end => reply.get(start..=end).unwrap_or_default(),
        _ => return Err(format!("the model's answer is not JSON: {}", reply.trim())),
    };
    let value: Value = serde_json::from_str(object)
        .map_err(|error| format!("the model's answer is not JSON ({error}): {}", reply.trim()))?;
    let ok = value
        .get("ok")
        .and_then(Value::as_bool)
        .ok_or_else(|| format!("the model's answer has no boolean `ok`: {}", reply.trim()))?;
    let reason = value
        .get("reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok((ok, reason))
}

/// The command-hook JSON output with the same effect as `ok` / `reason` on `event`.
pub(crate) fn decision_json(event: HookEvent, ok: bool, reason: Option<String>) -> Value {
    let reason = reason.unwrap_or_else(|| "the prompt hook said no".to_string());
    match (event, ok) {
        (HookEvent::PermissionRequest, true) => json!({
            "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}
        }),
        (HookEvent::PermissionRequest, false) => json!({
            "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": reason}}
        }),
        (_, true) => json!({}),
        (_, false) => json!({"decision": "block", "reason": reason}),
    }
}

#[cfg(test)]
#[path = "prompt_hook_tests.rs"]
mod tests;
