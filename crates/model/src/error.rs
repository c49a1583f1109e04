//! Errors of a model call and their classification from HTTP statuses, provider error codes and
//! mid-stream error events.

use std::time::Duration;
use std::time::SystemTime;

use crate::error_text::first_lines;
use crate::error_text::human_duration;
use crate::error_text::is_validation_error;
use crate::error_text::retry_after_clause;
use crate::error_text::server_text;
use crate::structured_output::StructuredOutputError;

/// Why a model call failed.
///
/// Every variant is `Clone` so a [`crate::ScriptedModelClient`] can replay it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The prompt does not fit the model's context window; compacting the history is the fix.
    #[error("context window exceeded: {}", first_lines(.message))]
    ContextWindowExceeded {
        /// The provider's message.
        message: String,
    },
    /// The provider asked us to slow down.
    #[error("rate limited{}: {}", retry_after_clause(*.retry_after), first_lines(.message))]
    RateLimited {
        /// The delay the provider named (`retry-after-ms`, `retry-after`, or its message).
        retry_after: Option<Duration>,
        /// The provider's message.
        message: String,
    },
    /// The account has no quota left; retrying does not help.
    #[error("quota exceeded: {}", first_lines(.message))]
    QuotaExceeded {
        /// The provider's message.
        message: String,
    },
    /// The provider failed (5xx, overloaded, or an equivalent mid-stream error).
    #[error("server error (status {status}): {}", server_text(.body))]
    Server {
        /// The HTTP status (529 for an overloaded event, 500 for other mid-stream errors).
        status: u16,
        /// The response body (whole up to 64 KiB) or the error event's message; the message
        /// shows its first lines.
        body: String,
        /// How long the provider asked us to wait (`retry-after` on a 503 or 529), if it said.
        retry_after: Option<Duration>,
    },
    /// The provider rejected our credentials (401, 403).
    #[error("authentication failed (status {status}): {}", server_text(.body))]
    Auth {
        /// The HTTP status.
        status: u16,
        /// The response body (whole up to 64 KiB) or the error event's message.
        body: String,
    },
    /// The provider needs an API key and the environment variable holding it is not set.
    #[error("provider `{provider}` needs an api key: set the environment variable `{env_key}`")]
    MissingApiKey {
        /// The provider's name.
        provider: String,
        /// The environment variable that should hold the key.
        env_key: String,
    },
    /// The provider rejected the request itself: a 4xx other than the above, or a 5xx whose body
    /// is a request validation error (llama-cpp-python answers a request its schema rejects
    /// with a 500). Sending the same request again fails the same way.
    #[error("bad request (status {status}): {}", server_text(.body))]
    BadRequest {
        /// The HTTP status (400 for a mid-stream error event).
        status: u16,
        /// The response body (whole up to 64 KiB) or the error event's code and message.
        body: String,
    },
    /// The response stream ended or broke before the response completed.
    #[error("stream disconnected before completion: {reason}")]
    StreamDisconnected {
        /// What ended the stream.
        reason: String,
    },
    /// The stream broke after output items had completed. A request sent again would be a new
    /// sample whose items cannot be joined to those already delivered, so the stream ends here:
    /// discard every item this stream delivered and send the prompt again (the whole turn).
    #[error("stream broke after {completed_items} completed item(s); redo the turn: {reason}")]
    TurnRestartRequired {
        /// How many items the stream had completed (and the consumer must discard).
        completed_items: usize,
        /// The error that broke the stream.
        reason: String,
    },
    /// No data arrived on the stream for the idle timeout.
    #[error(
        "no data on the stream for {}; if the server is slow to answer, raise \
         `stream_idle_timeout_ms` for this provider",
        human_duration(*.after)
    )]
    Timeout {
        /// The idle timeout that elapsed.
        after: Duration,
    },
    /// The server took the request but sent no response (not even its status line) within the
    /// idle timeout. Not retried: a server that did not answer in that time is busy or hung,
    /// and asking again would wait as long once more.
    #[error(
        "no response from {url} within {}: the server took the request but sent nothing back; \
         if it is still working through a long prompt, raise `stream_idle_timeout_ms` for this \
         provider (0 waits forever)",
        human_duration(*.after)
    )]
    ResponseTimeout {
        /// The URL the request was sent to.
        url: String,
        /// The wait that elapsed.
        after: Duration,
    },
    /// The response completed with nothing in it: no text and no tool call, also when the
    /// request was sent once more. The LiteLLM proxy answers so when its upstream stream
    /// failed.
    #[error(
        "the server returned an empty answer (no text, no tool call) to {requests} requests in \
         a row; a proxy such as LiteLLM does this when the model behind it failed: see the \
         server's log"
    )]
    EmptyResponse {
        /// How many requests were answered empty.
        requests: u64,
    },
    /// The request could not be sent or the connection failed before a response arrived.
    #[error("transport error: {message}")]
    Transport {
        /// The request and the transport's error.
        message: String,
    },
    /// An event or body could not be decoded.
    #[error("cannot decode {what}: {message}")]
    Decode {
        /// What could not be decoded (an SSE event by name, the stream, a body).
        what: String,
        /// The decoder's message, with an excerpt of the input.
        message: String,
    },
    /// The response ended without completing (for example `max_output_tokens` was hit).
    #[error("incomplete response: {reason}")]
    Incomplete {
        /// The provider's reason (`max_output_tokens`, `length`, `max_tokens`, ...).
        reason: String,
    },
    /// The provider configuration cannot be used.
    #[error("invalid provider configuration: {message}")]
    Config {
        /// What is wrong, naming the provider.
        message: String,
    },
    /// A structured reply did not match the schema it was asked for.
    #[error(transparent)]
    StructuredOutput(#[from] StructuredOutputError),
    /// The provider has no compaction endpoint ([`crate::ModelClient::compact_remote`]);
    /// compact locally instead.
    #[error("provider `{provider}` has no remote compaction; compact locally")]
    RemoteCompactionUnsupported {
        /// The provider's identity (wire API and host).
        provider: String,
    },
    /// A [`crate::ScriptedModelClient`] received more requests than it has scripted responses.
    #[error("scripted model client has no response left (served {served})")]
    ScriptExhausted {
        /// How many responses were served.
        served: usize,
    },
}

impl ModelError {
    /// True for errors a retry can fix: rate limits, server errors, dropped or stalled streams and
    /// transport failures.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::RateLimited { .. }
            | Self::Server { .. }
            | Self::StreamDisconnected { .. }
            | Self::TurnRestartRequired { .. }
            | Self::Timeout { .. }
            | Self::Transport { .. } => true,
            Self::ContextWindowExceeded { .. }
            | Self::QuotaExceeded { .. }
            | Self::Auth { .. }
            | Self::MissingApiKey { .. }
            | Self::BadRequest { .. }
            | Self::ResponseTimeout { .. }
            | Self::EmptyResponse { .. }
            | Self::Decode { .. }
            | Self::Incomplete { .. }
            | Self::Config { .. }
            | Self::StructuredOutput(_)
            | Self::RemoteCompactionUnsupported { .. }
            | Self::ScriptExhausted { .. } => false,
        }
    }

    /// True when the consumer must throw away the items this stream delivered and send the
    /// prompt again: the stream broke after items had completed and could not be resumed.
    pub fn requires_turn_restart(&self) -> bool {
        matches!(self, Self::TurnRestartRequired { .. })
    }

    /// The numbers of a [`ModelError::ContextWindowExceeded`] when the provider's message named
    /// them (input tokens, requested output tokens, context window); `None` for other errors.
    pub fn context_overflow(&self) -> Option<ContextOverflow> {
        match self {
            Self::ContextWindowExceeded { message } => ContextOverflow::parse(message),
            _ => None,
        }
    }

    /// The delay the provider asked for, when it named one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } | Self::Server { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }

    /// True for authentication failures, a missing key included.
    pub fn is_auth(&self) -> bool {
        matches!(self, Self::Auth { .. } | Self::MissingApiKey { .. })
    }
}

/// The numbers a provider gave when it refused a prompt as too long; each is `None` when the
/// message did not name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContextOverflow {
    /// Tokens of the input (the prompt).
    pub input_tokens: Option<i64>,
    /// The output tokens the request asked for (`max_tokens` or the completion).
    pub max_tokens: Option<i64>,
    /// The model's context window.
    pub context_window: Option<i64>,
}

impl ContextOverflow {
    /// Reads the numbers out of a provider's message:
    ///
    /// - Anthropic: "input length and `max_tokens` exceed context limit: A + B > C" and
    ///   "prompt is too long: A tokens > C maximum";
    /// - OpenAI-compatible servers (vLLM, OpenAI): "maximum context length is C tokens. However,
    ///   you requested N tokens (A in the messages, B in the completion)" and "you requested B
    ///   output tokens and your prompt contains at least A input tokens".
    ///
    /// `None` when no number was found.
    pub fn parse(message: &str) -> Option<Self> {
        let lower = message.to_lowercase();
        let mut overflow = Self::default();
        if let Some(rest) = text_after(&lower, "context limit:") {
            // "A + B > C"
            let (a, rest) = leading_number(rest)?;
            let rest = rest.trim_start().strip_prefix('+')?;
            let (b, rest) = leading_number(rest)?;
            let rest = rest.trim_start().strip_prefix('>')?;
            let (c, _) = leading_number(rest)?;
            overflow = Self {
                input_tokens: Some(a),
                max_tokens: Some(b),
                context_window: Some(c),
            };
        } else if let Some(rest) = text_after(&lower, "prompt is too long:") {
            // "A tokens > C maximum"
            let (a, rest) = leading_number(rest)?;
            overflow.input_tokens = Some(a);
            overflow.context_window = rest
                .split_once('>')
                .and_then(|(_, after)| leading_number(after))
                .map(|(c, _)| c);
        } else {
            overflow.context_window = text_after(&lower, "maximum context length is")
                .and_then(leading_number)
                .map(|(c, _)| c);
            if let Some(rest) =
                text_after(&lower, "tokens (").filter(|rest| rest.contains("in the messages"))
            {
                // "(A in the messages, B in the completion)"
                overflow.input_tokens = leading_number(rest).map(|(a, _)| a);
                overflow.max_tokens = text_after(rest, ",")
                    .and_then(leading_number)
                    .map(|(b, _)| b);
            } else {
                // "you requested B output tokens and your prompt contains at least A input
                // tokens" (OpenAI); "your request has A input tokens" and "your messages
                // resulted in A tokens" (vLLM), with "'max_tokens' ... is too large: B" when the
                // requested output is what overflowed.
                overflow.max_tokens = text_after(&lower, "you requested")
                    .and_then(leading_number)
                    .filter(|(_, rest)| rest.trim_start().starts_with("output"))
                    .or_else(|| text_after(&lower, "is too large:").and_then(leading_number))
                    .map(|(b, _)| b);
                overflow.input_tokens = ["contains at least", "your request has", "resulted in"]
                    .iter()
                    .find_map(|marker| text_after(&lower, marker).and_then(leading_number))
                    .map(|(a, _)| a);
            }
        }
        (overflow != Self::default()).then_some(overflow)
    }
}

/// The text after the first `marker`.
fn text_after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker)
        .and_then(|at| text.get(at + marker.len()..))
}

/// The decimal number at the start of `text` (after spaces; `,` and `_` separators allowed)
/// and the rest of the text.
fn leading_number(text: &str) -> Option<(i64, &str)> {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '_'))
        .unwrap_or(text.len());
    let digits: String = text
        .get(..end)?
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let number = digits.parse().ok()?;
    Some((number, text.get(end..).unwrap_or_default()))
}

/// Message fragments (lowercase) by which providers say the prompt is too long.
const CONTEXT_WINDOW_MESSAGES: &[&str] = &[
    "context_length_exceeded",
    "maximum context length",
    "prompt is too long",
    "exceed_context_size",
    "exceeds the available context size",
    "context window",
    "input is too long",
    "too many tokens in the prompt",
    // Anthropic, when input plus `max_tokens` overflow the window:
    // "input length and `max_tokens` exceed context limit: A + B > C".
    "exceed context limit",
];

/// True when a provider error code or message says the prompt exceeded the context window.
pub(crate) fn is_context_window_message(code: Option<&str>, message: &str) -> bool {
    if matches!(
        code,
        Some(
            "context_length_exceeded"
                | "exceed_context_size_error"
                | "string_above_max_length"
                | "request_too_large"
        )
    ) {
        return true;
    }
    let lower = message.to_lowercase();
    CONTEXT_WINDOW_MESSAGES
        .iter()
        .any(|fragment| lower.contains(fragment))
}

/// A provider error as found in an HTTP error body or a mid-stream error event.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ProviderErrorBody {
    /// `error.code` (OpenAI) when present.
    pub(crate) code: Option<String>,
    /// `error.type` (OpenAI `invalid_request_error`, Anthropic `overloaded_error`, ...).
    pub(crate) kind: Option<String>,
    /// The human-readable message.
    pub(crate) message: String,
}

impl ProviderErrorBody {
    /// Reads `{"error": {...}}`, `{"type":"error","error":{...}}` or a bare `{message, code, type}`;
    /// any other body becomes its raw text as the message.
    pub(crate) fn parse(body: &str) -> Self {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else {
            return Self {
                message: body_excerpt(body.trim()),
                ..Self::default()
            };
        };
        let error = match value.get("error") {
            Some(inner @ serde_json::Value::Object(_)) => inner,
            Some(serde_json::Value::String(message)) => {
                return Self {
                    message: message.clone(),
                    ..Self::default()
                };
            }
            _ => &value,
        };
        let text = |key: &str| {
            error.get(key).and_then(|v| match v {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
        };
        Self {
            code: text("code"),
            kind: text("type"),
            message: text("message").unwrap_or_else(|| body_excerpt(body.trim())),
        }
    }

    /// Classifies an error event that arrived inside a stream (no HTTP status).
    pub(crate) fn into_stream_error(self) -> ModelError {
        let code = self.code.as_deref().or(self.kind.as_deref());
        if is_context_window_message(code, &self.message) {
            return ModelError::ContextWindowExceeded {
                message: self.message,
            };
        }
        match code {
            Some("insufficient_quota") => ModelError::QuotaExceeded {
                message: self.message,
            },
            Some("rate_limit_exceeded" | "rate_limit_error") => ModelError::RateLimited {
                retry_after: retry_after_from_message(&self.message),
                message: self.message,
            },
            Some("overloaded_error") => ModelError::Server {
                status: 529,
                body: self.message,
                retry_after: None,
            },
            Some("server_error" | "api_error" | "internal_error" | "server_is_overloaded") => {
                ModelError::Server {
                    status: 500,
                    body: self.message,
                    retry_after: None,
                }
            }
            Some("authentication_error" | "permission_error" | "invalid_api_key") => {
                ModelError::Auth {
                    status: 401,
                    body: self.message,
                }
            }
            _ => ModelError::BadRequest {
                status: 400,
                body: match code {
                    Some(code) => format!("{code}: {}", self.message),
                    None => self.message,
                },
            },
        }
    }
}

/// Classifies a non-success HTTP response from its status, `retry-after` headers and body.
pub(crate) fn classify_http_error(
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
) -> ModelError {
    let parsed = ProviderErrorBody::parse(body);
    let code = parsed.code.as_deref().or(parsed.kind.as_deref());
    // 413 is a body over the size limit (Anthropic `request_too_large`: 32 MB for the Messages
    // API, <https://docs.claude.com/en/api/errors>): only a shorter history fixes it, as for a
    // prompt over the context window, so compaction is what must start.
    if status == 413
        || ((status == 400 || status == 422) && is_context_window_message(code, &parsed.message))
    {
        return ModelError::ContextWindowExceeded {
            message: parsed.message,
        };
    }
    match status {
        401 | 403 => ModelError::Auth {
            status,
            body: body_excerpt(body),
        },
        429 if code == Some("insufficient_quota") => ModelError::QuotaExceeded {
            message: parsed.message,
        },
        429 => ModelError::RateLimited {
            retry_after: retry_after.or_else(|| retry_after_from_message(&parsed.message)),
            message: parsed.message,
        },
        408 => ModelError::Transport {
            message: format!("http 408 request timeout: {}", server_text(body)),
        },
        // A 5xx may carry `retry-after` too: RFC 9110, section 10.2.3 (with a 503, "how long
        // the service is expected to be unavailable"); Anthropic's 529 `overloaded_error`
        // (<https://docs.claude.com/en/api/errors>) is retried the same way. It is honoured
        // as for a 429, within MAX_RETRY_AFTER.
        //
        // A 5xx whose body is a request validation error is the request's fault, whatever the
        // status says: llama-cpp-python returns FastAPI's `RequestValidationError` as a 500
        // (llama_cpp/server/errors.py in abetlen/llama-cpp-python). Retrying it only repeats the
        // failure, so it is a bad request.
        500..=599 if is_validation_error(body, &parsed.message) => ModelError::BadRequest {
            status,
            body: body_excerpt(body),
        },
        500..=599 => ModelError::Server {
            status,
            body: body_excerpt(body),
            retry_after,
        },
        _ => ModelError::BadRequest {
            status,
            body: body_excerpt(body),
        },
    }
}

/// The longest error body kept in an error, in characters: a validation body echoing a long
/// conversation is tens of kilobytes and is kept whole, while a proxy's error page can be
/// megabytes of HTML. Messages show only the first lines (see [`crate::error_text`]).
pub(crate) const MAX_ERROR_BODY_CHARS: usize = 64 * 1024;

/// `body`, cut to [`MAX_ERROR_BODY_CHARS`] characters with a note of how much was left out.
fn body_excerpt(body: &str) -> String {
    match body.char_indices().nth(MAX_ERROR_BODY_CHARS) {
        None => body.to_string(),
        Some((cut, _)) => format!(
            "{}… ({} more bytes)",
            body.get(..cut).unwrap_or(body),
            body.len() - cut
        ),
    }
}

/// Reads the delay from `retry-after-ms` (OpenAI) or `retry-after` (RFC 9110: seconds, or an
/// HTTP date, counted from `now`; a date in the past means "now").
pub(crate) fn retry_after_from_headers(
    headers: &reqwest::header::HeaderMap,
    now: SystemTime,
) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(delay) = header("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|ms| seconds(ms / 1000.0))
    {
        return Some(delay);
    }
    let value = header("retry-after")?.trim();
    match value.parse::<f64>() {
        Ok(secs) => seconds(secs),
        Err(_) => {
            let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
            let at = SystemTime::from(at.with_timezone(&chrono::Utc));
            Some(at.duration_since(now).unwrap_or(Duration::ZERO))
        }
    }
}

/// A delay of `secs` seconds; `None` when negative, not finite, or too large for a
/// [`Duration`] (a provider's number must never panic the client).
fn seconds(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
}

/// Reads "try again in 1.5s" / "try again in 250ms" from a rate-limit message.
pub(crate) fn retry_after_from_message(message: &str) -> Option<Duration> {
    let lower = message.to_lowercase();
    let start = lower.find("try again in ")? + "try again in ".len();
    let rest = lower.get(start..)?;
    let number_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let value: f64 = rest.get(..number_len)?.parse().ok()?;
    let unit = rest.get(number_len..)?.trim_start();
    if unit.starts_with("ms") {
        seconds(value / 1000.0)
    } else if unit.starts_with('s') {
        seconds(value)
    } else {
        None
    }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
