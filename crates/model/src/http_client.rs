//! The HTTP model client: one provider, one model, any of the three wire APIs.

use std::sync::Arc;
use std::time::Duration;

use agentctx_protocol::ResponseItem;
use async_trait::async_trait;
use reqwest::header::HeaderMap;
use reqwest::header::HeaderName;
use reqwest::header::HeaderValue;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::client::ModelClient;
use crate::context_management::anthropic_betas;
use crate::error::ModelError;
use crate::error::classify_http_error;
use crate::error::retry_after_from_headers;
use crate::error_text::human_duration;
use crate::error_text::send_failure;
use crate::model_info::ModelInfo;
use crate::model_info::warn_clamped_effort;
use crate::prompt::Prompt;
use crate::prompt::ReasoningEffort;
use crate::provider_config::ANTHROPIC_VERSION;
use crate::provider_config::ProviderConfig;
use crate::provider_config::WireApi;
use crate::remote_compaction::ProviderIdentity;
use crate::remote_compaction::RemoteCompactionSupport;
use crate::response_event::ResponseStream;
use crate::retry::retry_delay;
use crate::stream_driver::StreamDriver;
use crate::structured_output::StructuredOutputFallback;
use crate::wire::anthropic_messages;
use crate::wire::chat_completions;
use crate::wire::responses;
use crate::wire::responses_compact;

/// Events buffered between the reader task and the consumer.
const CHANNEL_CAPACITY: usize = 256;

/// How long a TCP (and TLS) connection may take to open. A server on the other side of the
/// world answers a SYN in well under a second; ten seconds only runs out for an address that
/// drops packets (a wrong host, a firewall), where waiting longer helps nobody.
pub(crate) const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A [`ModelClient`] that talks HTTP + SSE to a configured provider.
#[derive(Debug, Clone)]
pub struct HttpModelClient {
    http: reqwest::Client,
    provider: ProviderConfig,
    slug: String,
    model_info: ModelInfo,
    url: reqwest::Url,
    headers: HeaderMap,
    structured_output: StructuredOutputFallback,
    /// Open requests allowed at once (`max_concurrent_requests`), shared by the clones of this
    /// client; `None` when unlimited.
    open_requests: Option<Arc<Semaphore>>,
}

impl HttpModelClient {
    /// A client for `slug` on `provider`. The API key and `env_http_headers` are read through
    /// `env` (pass `&|name| std::env::var(name).ok()` in production, a map in tests).
    ///
    /// Fails with [`ModelError::MissingApiKey`] naming the variable when the key is required
    /// but unset, and [`ModelError::Config`] for a bad URL or header.
    pub fn new(
        provider: ProviderConfig,
        slug: impl Into<String>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ModelError> {
        let slug = slug.into();
        let api_key = provider.api_key(env)?;
        let url = provider.endpoint_url()?;
        let mut headers = HeaderMap::new();
        let mut insert = |name: &str, value: &str, sensitive: bool| -> Result<(), ModelError> {
            let header_name =
                HeaderName::from_bytes(name.as_bytes()).map_err(|err| ModelError::Config {
                    message: format!("provider `{}` header name `{name}`: {err}", provider.name),
                })?;
            let mut header_value =
                HeaderValue::from_str(value).map_err(|err| ModelError::Config {
                    message: format!("provider `{}` header `{name}` value: {err}", provider.name),
                })?;
            // Keeps keys out of `Debug` output and logs.
            header_value.set_sensitive(sensitive);
            headers.insert(header_name, header_value);
            Ok(())
        };
        if provider.wire_api == WireApi::Anthropic {
            insert("anthropic-version", ANTHROPIC_VERSION, false)?;
        }
        for (name, value) in &provider.http_headers {
            insert(name, value, false)?;
        }
        for (name, variable) in &provider.env_http_headers {
            if let Some(value) = env(variable).filter(|value| !value.trim().is_empty()) {
                insert(name, value.trim(), true)?;
            }
        }
        if let Some(key) = &api_key {
            match provider.wire_api {
                WireApi::Anthropic => insert("x-api-key", key, true)?,
                WireApi::Responses | WireApi::Chat => {
                    insert("authorization", &format!("Bearer {key}"), true)?
                }
            }
        }
        let model_info = provider.model_info(&slug);
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|err| ModelError::Config {
                message: format!(
                    "provider `{}`: cannot build the http client: {err}",
                    provider.name
                ),
            })?;
        let open_requests = provider
            .max_concurrent_requests
            .map(|limit| Arc::new(Semaphore::new(usize::try_from(limit.max(1)).unwrap_or(1))));
        Ok(Self {
            http,
            provider,
            slug,
            model_info,
            url,
            headers,
            structured_output: StructuredOutputFallback::default(),
            open_requests,
        })
    }

    /// Uses this `reqwest` client (for proxies, timeouts, or connection pooling choices). The
    /// wait for the response is still bounded by the provider's idle timeout; the connect
    /// timeout is the given client's own.
    pub fn with_http_client(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    /// Replaces the model info found in the provider configuration.
    pub fn with_model_info(mut self, model_info: ModelInfo) -> Self {
        self.model_info = model_info;
        self
    }

    /// The provider configuration.
    pub fn provider(&self) -> &ProviderConfig {
        &self.provider
    }

    /// The JSON body this client sends for `prompt`.
    pub fn request_body(&self, prompt: &Prompt<'_>) -> Value {
        match self.provider.wire_api {
            WireApi::Responses => responses::request_body(
                prompt,
                &self.slug,
                &self.model_info,
                self.provider.context_management.responses_field(),
            ),
            WireApi::Chat => chat_completions::request_body(prompt, &self.slug, &self.model_info),
            WireApi::Anthropic => anthropic_messages::request_body(
                prompt,
                &self.slug,
                &self.model_info,
                if self.provider.prompt_cache_breakpoints() {
                    anthropic_messages::CacheMarking::Breakpoints(self.provider.prompt_cache_ttl())
                } else {
                    anthropic_messages::CacheMarking::Off
                },
                &self.provider.context_management,
            ),
        }
    }

    /// The bytes this client sends for `prompt`: [`HttpModelClient::request_body`] written as
    /// JSON. The Responses body is written straight from the prompt's items, without a JSON
    /// tree of the history in between.
    pub fn request_json(&self, prompt: &Prompt<'_>) -> Result<Vec<u8>, ModelError> {
        let written = match self.provider.wire_api {
            WireApi::Responses => serde_json::to_vec(
                &responses::RequestBody::new(prompt, &self.slug, &self.model_info)
                    .with_context_management(self.provider.context_management.responses_field()),
            ),
            WireApi::Chat | WireApi::Anthropic => serde_json::to_vec(&self.request_body(prompt)),
        };
        written.map_err(|err| ModelError::Decode {
            what: "request body".to_string(),
            message: err.to_string(),
        })
    }

    /// The effort this client's body carries for `prompt`, with the one the prompt asked for.
    fn effort(&self, prompt: &Prompt<'_>) -> Option<(ReasoningEffort, ReasoningEffort)> {
        match self.provider.wire_api {
            WireApi::Responses => responses::effort(prompt, &self.model_info),
            WireApi::Chat => chat_completions::effort(prompt, &self.model_info),
            WireApi::Anthropic => None,
        }
    }

    /// The request to send for `prompt`. Only requests that are sent come here, so a warning
    /// about the body (an effort the model does not take) is logged here, never while a body is
    /// only rendered ([`HttpModelClient::request_body`]).
    fn prepare(&self, prompt: &Prompt<'_>) -> Result<PreparedRequest, ModelError> {
        if let Some((requested, sent)) = self.effort(prompt) {
            warn_clamped_effort(&self.slug, requested, sent);
        }
        // The betas an Anthropic body's `context_management` edits need are read from it.
        let (body, betas) = match self.provider.wire_api {
            WireApi::Anthropic => {
                let body = self.request_body(prompt);
                let betas = anthropic_betas(&body);
                let bytes = serde_json::to_vec(&body).map_err(|err| ModelError::Decode {
                    what: "request body".to_string(),
                    message: err.to_string(),
                })?;
                (bytes, betas)
            }
            WireApi::Responses | WireApi::Chat => (self.request_json(prompt)?, Vec::new()),
        };
        let mut headers = self.headers.clone();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        if self.provider.wire_api == WireApi::Anthropic
            && anthropic_messages::wants_interleaved_thinking(prompt, &self.model_info)
        {
            merge_list_header(
                &mut headers,
                HeaderName::from_static("anthropic-beta"),
                anthropic_messages::INTERLEAVED_THINKING_BETA,
            )?;
        }
        if self.provider.wire_api == WireApi::Anthropic
            && crate::model_table::one_million_mode(&self.slug).1
        {
            merge_list_header(
                &mut headers,
                HeaderName::from_static("anthropic-beta"),
                crate::model_table::CONTEXT_1M_BETA,
            )?;
        }
        if self.provider.wire_api == WireApi::Anthropic
            && self.provider.prompt_cache_breakpoints()
            && self.provider.prompt_cache_ttl() == crate::provider_config::PromptCacheTtl::OneHour
        {
            merge_list_header(
                &mut headers,
                HeaderName::from_static("anthropic-beta"),
                crate::wire::anthropic_messages_cache::EXTENDED_CACHE_TTL_BETA,
            )?;
        }
        for beta in betas {
            merge_list_header(
                &mut headers,
                HeaderName::from_static("anthropic-beta"),
                beta,
            )?;
        }
        Ok(PreparedRequest {
            http: self.http.clone(),
            url: self.url.clone(),
            headers,
            body: bytes::Bytes::from(body),
            request_max_retries: self.provider.request_max_retries(),
            response_timeout: self.provider.stream_idle_timeout(),
        })
    }
}

impl HttpModelClient {
    /// The `POST {base_url}/responses/compact` request for `prompt` (see
    /// `wire/responses_compact.rs`): the streamed request's URL with `/compact` appended (its
    /// query parameters kept), headers, auth and retries, and a JSON answer.
    fn prepare_compact(&self, prompt: &Prompt<'_>) -> Result<PreparedRequest, ModelError> {
        if let Some((requested, sent)) = responses::effort(prompt, &self.model_info) {
            warn_clamped_effort(&self.slug, requested, sent);
        }
        let request = responses::RequestBody::new(prompt, &self.slug, &self.model_info);
        let body = serde_json::to_vec(&responses_compact::CompactRequestBody::from(request))
            .map_err(|err| ModelError::Decode {
                what: "responses/compact request body".to_string(),
                message: err.to_string(),
            })?;
        let mut url = self.url.clone();
        let path = format!("{}/compact", url.path().trim_end_matches('/'));
        url.set_path(&path);
        let mut headers = self.headers.clone();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json"),
        );
        Ok(PreparedRequest {
            http: self.http.clone(),
            url,
            headers,
            body: bytes::Bytes::from(body),
            request_max_retries: self.provider.request_max_retries(),
            response_timeout: self.provider.stream_idle_timeout(),
        })
    }

    /// A permit of the client's request limit (`max_concurrent_requests`), when it has one.
    async fn open_request(&self) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, ModelError> {
        match &self.open_requests {
            Some(open) => Arc::clone(open)
                .acquire_owned()
                .await
                .map(Some)
                .map_err(|_| ModelError::Config {
                    message: "the client's request limit was closed".to_string(),
                }),
            None => Ok(None),
        }
    }
}

/// Adds `value` to the comma-separated list header `name`, keeping the values already there
/// (the user's configured `anthropic-beta` features, for one) and dropping duplicates. Anthropic
/// reads several betas from one comma-separated `anthropic-beta` header
/// (<https://docs.claude.com/en/api/beta-headers>); overwriting it would silently turn off the
/// user's betas.
fn merge_list_header(
    headers: &mut HeaderMap,
    name: HeaderName,
    value: &str,
) -> Result<(), ModelError> {
    let mut values: Vec<String> = Vec::new();
    let existing = headers
        .get_all(&name)
        .iter()
        .filter_map(|header| header.to_str().ok())
        .flat_map(|header| header.split(','))
        .chain(std::iter::once(value));
    for item in existing.map(str::trim).filter(|item| !item.is_empty()) {
        if !values.iter().any(|seen| seen == item) {
            values.push(item.to_string());
        }
    }
    let sensitive = headers.get(&name).is_some_and(HeaderValue::is_sensitive);
    let mut merged =
        HeaderValue::from_str(&values.join(",")).map_err(|err| ModelError::Config {
            message: format!("header `{name}` value: {err}"),
        })?;
    merged.set_sensitive(sensitive);
    headers.insert(name, merged);
    Ok(())
}

/// Everything needed to (re)send one request.
#[derive(Debug, Clone)]
pub(crate) struct PreparedRequest {
    pub(crate) http: reqwest::Client,
    pub(crate) url: reqwest::Url,
    pub(crate) headers: HeaderMap,
    pub(crate) body: bytes::Bytes,
    pub(crate) request_max_retries: u64,
    /// The longest wait for the response (its status line and headers, or an error's body);
    /// the provider's stream idle timeout, `None` when that is off.
    pub(crate) response_timeout: Option<Duration>,
}

impl PreparedRequest {
    /// Sends the request once. A server that takes the connection and never answers would
    /// otherwise hold the call forever: local servers (llama-cpp-python, llama.cpp's server)
    /// send the status line of a streamed answer only once the whole prompt is processed, so
    /// the wait is bounded by the same idle timeout as the stream's silences, not a shorter one.
    async fn send_once(&self) -> Result<reqwest::Response, ModelError> {
        let Some(after) = self.response_timeout else {
            return self.exchange().await;
        };
        tokio::time::timeout(after, self.exchange())
            .await
            .unwrap_or_else(|_| {
                Err(ModelError::ResponseTimeout {
                    url: self.url.to_string(),
                    after,
                })
            })
    }

    /// Sends the request and waits for its response; a failure status is read and classified.
    async fn exchange(&self) -> Result<reqwest::Response, ModelError> {
        let response = self
            .http
            .post(self.url.clone())
            .headers(self.headers.clone())
            .body(self.body.clone())
            .send()
            .await
            .map_err(|err| ModelError::Transport {
                message: send_failure(&self.url, &err, CONNECT_TIMEOUT),
            })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after =
            retry_after_from_headers(response.headers(), std::time::SystemTime::now());
        let body = match response.text().await {
            Ok(body) => body,
            Err(err) => format!("(the error body could not be read: {err})"),
        };
        Err(classify_http_error(status.as_u16(), retry_after, &body))
    }

    /// Sends the request, retrying retryable failures with backoff (or the provider's
    /// `retry-after`) up to `request_max_retries` times.
    pub(crate) async fn send(&self) -> Result<reqwest::Response, ModelError> {
        let mut attempt = 0;
        loop {
            match self.send_once().await {
                Ok(response) => return Ok(response),
                Err(error) if error.is_retryable() && attempt < self.request_max_retries => {
                    attempt += 1;
                    let Some(delay) = retry_delay(&error, attempt) else {
                        return Err(error);
                    };
                    tracing::warn!(%error, attempt, delay = %human_duration(delay), "model request failed; retrying");
                    tokio::time::sleep(delay).await;
                }
                Err(error) => return Err(error),
            }
        }
    }
}

#[async_trait]
impl ModelClient for HttpModelClient {
    async fn stream(&self, prompt: &Prompt<'_>) -> Result<ResponseStream, ModelError> {
        let request = self.prepare(prompt)?;
        // Held until the answer's stream ends, so a server that serves one request at a time
        // never sees a second one while it answers.
        let permit = self.open_request().await?;
        let response = request.send().await?;
        let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
        let driver = StreamDriver::new(
            request,
            self.provider.wire_api,
            self.provider.stream_max_retries(),
            self.provider.stream_idle_timeout(),
            tx,
        );
        tokio::spawn(async move {
            driver.run(response).await;
            drop(permit);
        });
        Ok(Box::pin(ReceiverStream::new(rx)))
    }

    fn model_info(&self) -> &ModelInfo {
        &self.model_info
    }

    fn slug(&self) -> &str {
        &self.slug
    }

    fn structured_output_fallback(&self) -> Option<&StructuredOutputFallback> {
        Some(&self.structured_output)
    }

    fn provider_identity(&self) -> ProviderIdentity {
        ProviderIdentity::new(self.provider.wire_api, &self.provider.base_url)
    }

    fn prompt_cache_ttl(&self) -> crate::provider_config::PromptCacheTtl {
        self.provider.prompt_cache_ttl()
    }

    /// The endpoint where [`ProviderConfig::compact_endpoint`] says there is one; in-request
    /// compaction and context editing as `context_management` configures them for this wire
    /// API.
    fn remote_compaction(&self) -> RemoteCompactionSupport {
        let config = &self.provider.context_management;
        match self.provider.wire_api {
            WireApi::Responses => RemoteCompactionSupport {
                endpoint: self.provider.compact_endpoint(),
                in_request: config.compact_threshold.is_some(),
                context_editing: false,
            },
            WireApi::Anthropic => RemoteCompactionSupport {
                endpoint: false,
                in_request: config.compaction.is_some(),
                context_editing: config.clear_tool_uses.is_some()
                    || config.clear_thinking.is_some(),
            },
            WireApi::Chat => RemoteCompactionSupport::NONE,
        }
    }

    /// `POST {base_url}/responses/compact` with the prompt's history, retried as a streamed
    /// request is; the answer's `output` unfiltered. A provider without the endpoint fails with
    /// [`ModelError::RemoteCompactionUnsupported`] before any request.
    async fn compact_remote(&self, prompt: &Prompt<'_>) -> Result<Vec<ResponseItem>, ModelError> {
        if !self.remote_compaction().endpoint {
            return Err(ModelError::RemoteCompactionUnsupported {
                provider: self.provider_identity().to_string(),
            });
        }
        let request = self.prepare_compact(prompt)?;
        let _permit = self.open_request().await?;
        let response = request.send().await?;
        let read = response.bytes();
        let body = match request.response_timeout {
            Some(after) => tokio::time::timeout(after, read).await.map_err(|_| {
                ModelError::ResponseTimeout {
                    url: request.url.to_string(),
                    after,
                }
            })?,
            None => read.await,
        }
        .map_err(|err| ModelError::Transport {
            message: format!("reading the answer of {}: {err}", request.url),
        })?;
        responses_compact::parse_compact_response(&body)
    }
}
