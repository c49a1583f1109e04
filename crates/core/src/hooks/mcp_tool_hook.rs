//! `mcp_tool` hooks (Claude Code's hooks reference, "MCP tool hook fields",
//! <https://code.claude.com/docs/en/hooks>): the hook calls `tool` on the connected MCP
//! server `server` with `input`, whose string values read the hook's input JSON through
//! `${path}` (`"${tool_input.file_path}"`). The tool's text is the hook's output, read as a
//! command hook's stdout; a server that is not connected, an `isError` result or the timeout
//! is a non-blocking error.

use std::time::Duration;

use serde_json::Map;
use serde_json::Value;

use super::handlers::HandlerAnswer;
use super::settings::HookCommand;
use crate::mcp_ext::McpConnectionManager;

/// Calls the hook's tool.
pub(crate) async fn call(
    hook: &HookCommand,
    mcp: &McpConnectionManager,
    input: &Value,
    timeout: Duration,
) -> HandlerAnswer {
    let server = hook.server.as_deref().unwrap_or_default();
    let tool = hook.tool.as_deref().unwrap_or_default();
    let arguments = match hook.input.as_ref().map(|value| substitute(value, input)) {
        Some(Value::Object(map)) => Some(map),
        Some(other) => return Err(format!("`input` must be an object, not {other}")),
        None => Some(Map::new()),
    };
    let result = tokio::time::timeout(timeout, mcp.call_tool(server, tool, arguments))
        .await
        .map_err(|_| format!("timed out after {} s", timeout.as_secs_f64()))?
        .map_err(|error| format!("{server}/{tool}: {error}"))?;
    let output = crate::mcp_ext::render_call_result(&result);
    if output.success {
        Ok(output.text)
    } else {
        Err(format!(
            "{server}/{tool} returned an error: {}",
            output.text
        ))
    }
}

/// `value` with every `${path}` in its strings replaced by the value at the dotted `path` of
/// `input` (a string as is, anything else as JSON; nothing when absent).
pub(crate) fn substitute(value: &Value, input: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(substitute_text(text, input)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, input)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| (key.clone(), substitute(v, input)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn substitute_text(text: &str, input: &Value) -> String {
    let Ok(pattern) = regex::Regex::new(r"\$\{([A-Za-z0-9_.\-]+)\}") else {
        return text.to_string();
    };
    pattern
        .replace_all(text, |captures: &regex::Captures<'_>| {
            let path = captures.get(1).map(|m| m.as_str()).unwrap_or_default();
            let found = path.split('.').try_fold(input, |value, key| value.get(key));
            match found {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            }
        })
        .into_owned()
}

#[cfg(test)]
#[path = "mcp_tool_hook_tests.rs"]
mod tests;
