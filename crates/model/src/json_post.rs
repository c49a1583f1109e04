//! A JSON POST that is not a model request: what a host needs to call a webhook (core's `http`
//! hooks) while this crate stays the workspace's one HTTP client (docs/architecture.md).

use std::time::Duration;

/// What the server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPostResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The body, as text.
    pub body: String,
}

impl JsonPostResponse {
    /// A 2xx status.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Why no answer came.
#[derive(Debug, thiserror::Error)]
pub enum JsonPostError {
    /// The HTTP client could not be built (TLS setup).
    #[error("no HTTP client: {0}")]
    Client(String),
    /// A header name or value is not valid HTTP.
    #[error("invalid header {name}: {reason}")]
    Header {
        /// The header's name.
        name: String,
        /// Why it was refused.
        reason: String,
    },
    /// The answer did not come within the timeout.
    #[error("timed out after {0} s")]
    Timeout(f64),
    /// The connection failed (refused, reset, DNS, TLS).
    #[error("request failed: {0}")]
    Request(String),
    /// The body could not be read.
    #[error("response body not read: {0}")]
    Body(String),
}

/// POSTs `body` as JSON to `url` with `headers`, waiting at most `timeout` for the whole
/// exchange. Any status is an answer; only a failed exchange is an error.
pub async fn post_json(
    url: &str,
    headers: &[(String, String)],
    body: &serde_json::Value,
    timeout: Duration,
) -> Result<JsonPostResponse, JsonPostError> {
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|error| JsonPostError::Client(error.to_string()))?;
    let mut header_map = reqwest::header::HeaderMap::new();
    for (name, value) in headers {
        let header_error = |reason: String| JsonPostError::Header {
            name: name.clone(),
            reason,
        };
        let key = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|error| header_error(error.to_string()))?;
        let value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|error| header_error(error.to_string()))?;
        header_map.append(key, value);
    }
    let response = client
        .post(url)
        .headers(header_map)
        .json(body)
        .send()
        .await
        .map_err(|error| {
            if error.is_timeout() {
                JsonPostError::Timeout(timeout.as_secs_f64())
            } else {
                JsonPostError::Request(error.to_string())
            }
        })?;
    let status = response.status().as_u16();
    let body = response.text().await.map_err(|error| {
        if error.is_timeout() {
            JsonPostError::Timeout(timeout.as_secs_f64())
        } else {
            JsonPostError::Body(error.to_string())
        }
    })?;
    Ok(JsonPostResponse { status, body })
}
