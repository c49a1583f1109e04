//! How errors read: what a server said, cut to its first lines; request validation errors found
//! in a body; durations as people write them; the cause of a failed connection.
//!
//! An error value keeps the server's body whole (up to a cap, see
//! [`crate::error::MAX_ERROR_BODY_CHARS`]) for whoever needs it; its message shows only the
//! first lines, so a 16 KB validation body or a proxy's HTML page does not fill the terminal.

use std::error::Error as StdError;
use std::time::Duration;

use serde_json::Value;

use crate::error::ProviderErrorBody;

/// Lines of a server's text shown in an error message.
const SHOWN_LINES: usize = 6;
/// Characters of a server's text shown in an error message.
const SHOWN_CHARS: usize = 600;

/// A duration as people write it: `250ms`, `1s`, `1.5s`, `5m`, `1m 30s`, `2h`, `1h 5m`.
pub(crate) fn human_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1_000 {
        return format!("{millis}ms");
    }
    let secs = duration.as_secs();
    if secs < 60 {
        let tenths = duration.subsec_millis() / 100;
        return if tenths == 0 {
            format!("{secs}s")
        } else {
            format!("{secs}.{tenths}s")
        };
    }
    match (secs / 3600, secs / 60 % 60, secs % 60) {
        (0, minutes, 0) => format!("{minutes}m"),
        (0, minutes, seconds) => format!("{minutes}m {seconds}s"),
        (hours, 0, _) => format!("{hours}h"),
        (hours, minutes, _) => format!("{hours}h {minutes}m"),
    }
}

/// ` (retry after 1.5s)` when the provider named a delay, nothing otherwise.
pub(crate) fn retry_after_clause(retry_after: Option<Duration>) -> String {
    retry_after
        .map(|wait| format!(" (retry after {})", human_duration(wait)))
        .unwrap_or_default()
}

/// The first lines of `text` (at most [`SHOWN_LINES`] lines and [`SHOWN_CHARS`] characters),
/// with a note of how many bytes were left out.
pub(crate) fn first_lines(text: &str) -> String {
    let text = text.trim();
    let line_end = text
        .match_indices('\n')
        .nth(SHOWN_LINES - 1)
        .map_or(text.len(), |(at, _)| at);
    let char_end = text
        .char_indices()
        .nth(SHOWN_CHARS)
        .map_or(text.len(), |(at, _)| at);
    let end = line_end.min(char_end);
    let (Some(shown), Some(rest)) = (text.get(..end), text.get(end..)) else {
        return text.to_string();
    };
    if rest.is_empty() {
        return shown.to_string();
    }
    let left_out = rest.trim_start_matches('\n').len();
    if end == line_end {
        format!("{}\n… ({left_out} more bytes)", shown.trim_end())
    } else {
        format!("{shown}… ({left_out} more bytes)")
    }
}

/// What the server said in an error `body`, for a message: the message of a JSON error body
/// (with its code), a request validation error as one `location: message` line per error, or
/// the text itself; cut to its first lines.
pub(crate) fn server_text(body: &str) -> String {
    let parsed = ProviderErrorBody::parse(body);
    if let Some(errors) = validation_errors(body, &parsed.message) {
        return first_lines(&format!(
            "the request is invalid:\n  {}",
            errors.join("\n  ")
        ));
    }
    let is_json = serde_json::from_str::<Value>(body).is_ok();
    let text = match (is_json, parsed.code.as_deref().or(parsed.kind.as_deref())) {
        (true, Some(code)) if !parsed.message.contains(code) => {
            format!("{} ({code})", parsed.message)
        }
        (true, _) => parsed.message,
        (false, _) => body.to_string(),
    };
    first_lines(&text)
}

/// True when `body` (with `message`, its parsed error message) is a request validation error:
/// the request is malformed, and sending it again fails the same way.
pub(crate) fn is_validation_error(body: &str, message: &str) -> bool {
    if validation_errors(body, message).is_some() {
        return true;
    }
    // Pydantic's own `ValidationError` text: "2 validation errors for Model\nfield\n  Field
    // required [type=missing, input_value=..., input_type=dict]".
    let lower = message.to_lowercase();
    lower.contains("validation error") && lower.contains("[type=")
}

/// The errors of a request validation body, one `location: message` each, or `None` when the
/// body is not one. Two spellings are read:
///
/// - FastAPI's JSON body, `{"detail": [{"type", "loc": [...], "msg", "input"}]}`;
/// - the Python repr of the same list inside an error message, `[{'type': 'missing', 'loc':
///   ('body', 'messages', 1), 'msg': 'Field required', ...}]` (or FastAPI's newer "1 validation
///   error:" text listing the same dicts). llama-cpp-python's `RouteErrorHandler` catches
///   FastAPI's `RequestValidationError` and returns `str(error)` as the message of a 500
///   (abetlen/llama-cpp-python, llama_cpp/server/errors.py, `error_message_wrapper`).
pub(crate) fn validation_errors(body: &str, message: &str) -> Option<Vec<String>> {
    let from_json = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|value| fastapi_detail(&value));
    let errors = from_json.unwrap_or_else(|| python_repr_errors(message));
    (!errors.is_empty()).then_some(errors)
}

/// `location: message` of each entry of FastAPI's `detail` array; `None` when the body has no
/// such array.
fn fastapi_detail(value: &Value) -> Option<Vec<String>> {
    let entries = value.get("detail")?.as_array()?;
    let errors: Vec<String> = entries
        .iter()
        .filter_map(|entry| {
            let location = entry.get("loc")?.as_array()?;
            let message = entry.get("msg")?.as_str()?;
            let location: Vec<String> = location
                .iter()
                .map(|part| match part {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect();
            Some(format!("{}: {message}", location.join(".")))
        })
        .collect();
    (!errors.is_empty()).then_some(errors)
}

/// `location: message` of each `'loc': (...)` in the Python repr of pydantic errors.
fn python_repr_errors(message: &str) -> Vec<String> {
    const LOC: &str = "'loc': (";
    let mut errors = Vec::new();
    let mut rest = message;
    while let Some(at) = rest.find(LOC) {
        let Some(after) = rest.get(at + LOC.len()..) else {
            break;
        };
        let Some(close) = after.find(')') else {
            break;
        };
        let location: Vec<&str> = after
            .get(..close)
            .unwrap_or_default()
            .split(',')
            .map(|part| part.trim().trim_matches(['\'', '"']))
            .filter(|part| !part.is_empty())
            .collect();
        rest = after.get(close..).unwrap_or_default();
        // The message belongs to this error only if it comes before the next one's location.
        let this_error = rest
            .find(LOC)
            .map_or(rest, |next| rest.get(..next).unwrap_or(rest));
        errors.push(match python_string_after(this_error, "'msg': ") {
            Some(text) => format!("{}: {text}", location.join(".")),
            None => location.join("."),
        });
    }
    errors
}

/// The Python string literal (in `'` or `"`) right after `key` in `text`.
fn python_string_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let start = text.find(key)? + key.len();
    let literal = text.get(start..)?;
    let quote = literal.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = literal.get(1..)?;
    let mut escaped = false;
    for (at, c) in body.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == quote && !escaped => return body.get(..at),
            _ => escaped = false,
        }
    }
    None
}

/// Why a request failed before any response arrived, naming `url`: a refused connection says so
/// and asks whether the server runs; a connect timeout names the wait; anything else gives the
/// causes found down the error's source chain (reqwest's own text only says "error sending
/// request").
pub(crate) fn send_failure(
    url: &reqwest::Url,
    error: &reqwest::Error,
    connect_timeout: Duration,
) -> String {
    let mut causes: Vec<&(dyn StdError + 'static)> = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        causes.push(cause);
        source = cause.source();
    }
    let io_kind = causes
        .iter()
        .find_map(|cause| cause.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind);
    if io_kind == Some(std::io::ErrorKind::ConnectionRefused) {
        return format!("connection refused at {url} (is the server running?)");
    }
    if error.is_connect() && error.is_timeout() {
        return format!(
            "no connection to {url} within {} (is the address right and the server reachable?)",
            human_duration(connect_timeout)
        );
    }
    let mut texts: Vec<String> = Vec::new();
    for cause in causes {
        let text = cause.to_string();
        if !texts.iter().any(|seen| seen.contains(&text)) {
            texts.push(text);
        }
    }
    if texts.is_empty() {
        format!("POST {url}: {error}")
    } else {
        format!("POST {url}: {}", texts.join(": "))
    }
}

#[cfg(test)]
#[path = "error_text_tests.rs"]
mod tests;
