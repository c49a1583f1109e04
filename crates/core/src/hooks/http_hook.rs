//! `http` hooks (Claude Code's hooks reference, "HTTP hook fields" and "HTTP response
//! handling", <https://code.claude.com/docs/en/hooks>): the input is POSTed as JSON to `url`
//! with `headers` (a value's `$VAR` / `${VAR}` read from the environment for the variables
//! `allowedEnvVars` lists, others empty), within the hook's timeout. A 2xx body is the hook's
//! output (empty: nothing; JSON: a decision; text: a success output); a non-2xx status, a
//! lost connection or the timeout is a non-blocking error.

use std::time::Duration;

use serde_json::Value;

use super::handlers::HandlerAnswer;
use super::settings::HookCommand;

/// POSTs `input` as the hook says (through `agentctx-model`, the workspace's HTTP client).
pub(crate) async fn post(hook: &HookCommand, input: &Value, timeout: Duration) -> HandlerAnswer {
    let url = hook.url.as_deref().unwrap_or_default();
    let headers: Vec<(String, String)> = hook
        .headers
        .iter()
        .map(|(name, value)| {
            let value = interpolate(value, &hook.allowed_env_vars, |name| {
                std::env::var(name).ok()
            });
            (name.clone(), value)
        })
        .collect();
    let response = agentctx_model::post_json(url, &headers, input, timeout)
        .await
        .map_err(|error| error.to_string())?;
    if !response.is_success() {
        return Err(format!("HTTP status {}", response.status));
    }
    Ok(response.body)
}

/// `value` with `$NAME` and `${NAME}` replaced by `lookup(NAME)` for the names in `allowed`,
/// and by nothing for the others (Claude Code: "References to unlisted variables are replaced
/// with empty strings").
pub(crate) fn interpolate(
    value: &str,
    allowed: &[String],
    lookup: impl Fn(&str) -> Option<String>,
) -> String {
    let Ok(pattern) =
        regex::Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
    else {
        return value.to_string();
    };
    pattern
        .replace_all(value, |captures: &regex::Captures<'_>| {
            let name = captures
                .get(1)
                .or_else(|| captures.get(2))
                .map(|m| m.as_str())
                .unwrap_or_default();
            if allowed.iter().any(|allowed| allowed == name) {
                lookup(name).unwrap_or_default()
            } else {
                String::new()
            }
        })
        .into_owned()
}

#[cfg(test)]
#[path = "http_hook_tests.rs"]
mod tests;
