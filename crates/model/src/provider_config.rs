//! Provider configuration as codex `model_providers` spell it, and the built-in presets.

use std::collections::BTreeMap;
use std::time::Duration;

use agentctx_protocol::ThinkingLevel;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use crate::context_management::ContextManagementConfig;
use crate::error::ModelError;
use crate::model_info::ModelEntry;
use crate::model_info::ModelInfo;
use crate::model_table::known_model;
use crate::model_table::known_models;
use crate::thinking::BudgetByLevel;
use crate::thinking::ThinkingCapabilityOverride;
use crate::thinking::ThinkingSettings;

/// Request retries when `request_max_retries` is not set (as codex).
pub(crate) const DEFAULT_REQUEST_MAX_RETRIES: u64 = 4;
/// Stream reconnects when `stream_max_retries` is not set (as codex).
pub(crate) const DEFAULT_STREAM_MAX_RETRIES: u64 = 5;
/// Idle timeout of a response stream when `stream_idle_timeout_ms` is not set (as codex).
pub(crate) const DEFAULT_STREAM_IDLE_TIMEOUT_MS: u64 = 300_000;
/// Upper bound on configured retries, so a typo cannot retry forever.
pub(crate) const MAX_RETRIES_CAP: u64 = 100;
/// `anthropic-version` header sent when the configuration does not set one.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Which wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WireApi {
    /// OpenAI Responses API: `POST {base_url}/responses`.
    #[default]
    Responses,
    /// OpenAI-compatible Chat Completions: `POST {base_url}/chat/completions`.
    Chat,
    /// Anthropic Messages: `POST {base_url}/v1/messages`.
    Anthropic,
}

/// How long an Anthropic prompt-cache entry lives after its last use: the `ttl` of each
/// `cache_control` breakpoint (<https://docs.claude.com/en/docs/build-with-claude/prompt-caching>,
/// "1-hour cache duration"). Writes of the 1-hour cache cost twice the input price instead of
/// 1.25 times; a session with pauses of more than five minutes between requests reads its
/// prefix back instead of writing it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
pub enum PromptCacheTtl {
    /// Five minutes, refreshed by each use (Anthropic's default; no `ttl` is sent).
    #[default]
    #[serde(rename = "5m")]
    FiveMinutes,
    /// One hour, refreshed by each use.
    #[serde(rename = "1h")]
    OneHour,
}

/// Where a Chat Completions request puts the developer and system messages of the history.
///
/// Strict chat templates (Qwen3, Gemma, Mistral as vLLM, llama.cpp and LM Studio apply them)
/// reject a system message anywhere but first, and some reject two user turns in a row. In the
/// two strict modes, developer messages before the first user or assistant turn join the
/// leading system message (they are part of the stable preamble), and consecutive user
/// messages are merged into one. See docs/design/model-providers.md, "Chat Completions".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SystemMessageMode {
    /// A later developer message becomes user text at its place in the conversation: the
    /// prompt prefix the server cached stays byte-identical and the message keeps its moment.
    #[default]
    AsUser,
    /// A later developer message is appended to the leading system message.
    MergeIntoSystem,
    /// Every developer message is sent as a `system` message where it is (OpenAI itself).
    AsIs,
}

/// One model provider (an entry of `[model_providers.<id>]`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProviderConfig {
    /// Display name.
    pub name: String,
    /// Base URL, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub base_url: String,
    /// Name of the environment variable that holds the API key; `None` for keyless local servers.
    pub env_key: Option<String>,
    /// The wire protocol.
    pub wire_api: WireApi,
    /// Extra headers sent with every request.
    pub http_headers: BTreeMap<String, String>,
    /// Extra headers whose value is read from an environment variable (header → variable);
    /// unset variables are skipped.
    pub env_http_headers: BTreeMap<String, String>,
    /// Query parameters appended to the request URL (e.g. Azure `api-version`).
    pub query_params: BTreeMap<String, String>,
    /// Retries of a failed request (connection errors, 429, 5xx); default 4.
    pub request_max_retries: Option<u64>,
    /// Reconnects of a stream that dropped before completion; default 5.
    pub stream_max_retries: Option<u64>,
    /// Milliseconds without stream data before the stream counts as dropped; default 300000,
    /// `0` disables the idle timeout.
    pub stream_idle_timeout_ms: Option<u64>,
    /// Known models by slug: what is known of each, laid over the built-in table.
    pub models: BTreeMap<String, ModelEntry>,
    /// Chat Completions: where developer and system messages of the history go (default
    /// `as_user`, which every chat template accepts); a model entry may override it.
    pub system_messages: Option<SystemMessageMode>,
    /// Anthropic Messages: mark prompt-cache breakpoints (`cache_control`); turn off for a
    /// proxy whose backend rejects content block arrays (for example LiteLLM in front of
    /// llama.cpp). Default on.
    pub prompt_cache_breakpoints: Option<bool>,
    /// Anthropic Messages: the lifetime of the prompt-cache breakpoints, `"5m"` (default) or
    /// `"1h"`; the engine's cost model prices the cache with it.
    pub prompt_cache_ttl: Option<PromptCacheTtl>,
    /// How many requests of one client (a session and its background work share it) may be
    /// open at once; unset, no limit. Set 1 for a server that serves one request at a time and
    /// cuts the running answer short when another arrives (llama-cpp-python's default
    /// `interrupt_requests`): the session's background session-memory extraction would
    /// otherwise end each answer empty.
    pub max_concurrent_requests: Option<u32>,
    /// What the provider is asked to do to the context on its side (server-side compaction,
    /// Anthropic context editing) and whether it has a compaction endpoint; all off by default.
    pub context_management: ContextManagementConfig,
}

impl ProviderConfig {
    /// Whether the provider has OpenAI's `POST /responses/compact`: the configured
    /// `context_management.compact_endpoint`, else on for the Responses API at
    /// `api.openai.com` or an Azure OpenAI host (`*.openai.azure.com`), whose APIs document the
    /// endpoint (<https://developers.openai.com/api/reference/resources/responses>, "Compact a
    /// response"; <https://learn.microsoft.com/en-us/azure/foundry/reference/rest/compactconversation>).
    /// Other Responses servers (proxies, local servers) rarely have it, and a call that fails
    /// only costs a fallback to local compaction.
    pub fn compact_endpoint(&self) -> bool {
        if self.wire_api != WireApi::Responses {
            return false;
        }
        self.context_management.compact_endpoint.unwrap_or_else(|| {
            let host = reqwest::Url::parse(&self.base_url)
                .ok()
                .and_then(|url| url.host_str().map(str::to_ascii_lowercase))
                .unwrap_or_default();
            host == "api.openai.com" || host.ends_with(".openai.azure.com")
        })
    }

    /// Retries of a failed request, capped at 100 so a typo cannot retry forever.
    pub fn request_max_retries(&self) -> u64 {
        self.request_max_retries
            .unwrap_or(DEFAULT_REQUEST_MAX_RETRIES)
            .min(MAX_RETRIES_CAP)
    }

    /// Reconnects of a dropped stream, capped at 100 so a typo cannot retry forever.
    pub fn stream_max_retries(&self) -> u64 {
        self.stream_max_retries
            .unwrap_or(DEFAULT_STREAM_MAX_RETRIES)
            .min(MAX_RETRIES_CAP)
    }

    /// Whether Anthropic requests mark prompt-cache breakpoints (default on). Off, a request
    /// carries no `cache_control`, and its system prompt and text-only messages go as strings.
    pub fn prompt_cache_breakpoints(&self) -> bool {
        self.prompt_cache_breakpoints.unwrap_or(true)
    }

    /// The lifetime of the prompt-cache entries the requests write (default five minutes).
    pub fn prompt_cache_ttl(&self) -> PromptCacheTtl {
        self.prompt_cache_ttl.unwrap_or_default()
    }

    /// The stream idle timeout; `None` when disabled with `0`.
    pub fn stream_idle_timeout(&self) -> Option<Duration> {
        match self
            .stream_idle_timeout_ms
            .unwrap_or(DEFAULT_STREAM_IDLE_TIMEOUT_MS)
        {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }

    /// The model info of `slug`: the configured entry (an exact slug, else the longest
    /// configured slug that prefixes it, so `gpt-5-2025-08-07` finds `gpt-5`) laid over the
    /// built-in model table, over the defaults. The provider's `system_messages` fills in when
    /// the model sets none.
    ///
    /// The table serves the OpenAI wire formats (an Azure deployment or a router serving
    /// `gpt-5` must get its efforts clamped too). An Anthropic endpoint other than the preset (a
    /// proxy) is left at the defaults: the Messages request sizes `max_tokens` from the output
    /// limit, and a proxy's limits are its own. The Anthropic preset carries the Claude rows in
    /// its own `models`.
    pub fn model_info(&self, slug: &str) -> ModelInfo {
        let base = self.table_model(slug).unwrap_or_default();
        let mut info = match self.configured_model(slug) {
            Some(entry) => entry.apply_to(base),
            None => base,
        };
        // A `[1m]` model id opens the 1M-token window on any wire (on Anthropic's with the beta
        // header the client sends), over the window of the model without the suffix (the
        // preset's Claude rows say 200,000); only an entry for the `[1m]` id itself sets another.
        let explicit = self
            .models
            .get(slug)
            .is_some_and(|entry| entry.context_window.is_some());
        if crate::model_table::one_million_mode(slug).1 && !explicit {
            info.context_window = crate::model_table::ONE_MILLION_WINDOW;
        }
        info.system_messages = info.system_messages.or(self.system_messages);
        info
    }

    /// The configured entry of `slug`: exact, else the longest configured slug prefixing it.
    pub fn configured_model(&self, slug: &str) -> Option<&ModelEntry> {
        find_model_entry(&self.models, slug)
    }

    /// The built-in table's row for `slug`, when the table applies to this provider's wire API.
    pub(crate) fn table_model(&self, slug: &str) -> Option<ModelInfo> {
        known_model(slug).filter(|_| self.wire_api != WireApi::Anthropic)
    }

    /// Reads the API key through `env` (never the process environment directly).
    ///
    /// Returns `Ok(None)` for keyless providers and [`ModelError::MissingApiKey`] naming the
    /// variable when a key is required but unset or empty.
    pub fn api_key(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<String>, ModelError> {
        let Some(env_key) = &self.env_key else {
            return Ok(None);
        };
        match env(env_key) {
            Some(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_string())),
            _ => Err(ModelError::MissingApiKey {
                provider: self.name.clone(),
                env_key: env_key.clone(),
            }),
        }
    }

    /// The endpoint URL for this provider's wire API, query parameters included.
    pub fn endpoint_url(&self) -> Result<reqwest::Url, ModelError> {
        let base = self.base_url.trim_end_matches('/');
        let path = match self.wire_api {
            WireApi::Responses => "/responses",
            WireApi::Chat => "/chat/completions",
            WireApi::Anthropic => "/v1/messages",
        };
        let mut url =
            reqwest::Url::parse(&format!("{base}{path}")).map_err(|err| ModelError::Config {
                message: format!(
                    "provider `{}` base_url `{}`: {err}",
                    self.name, self.base_url
                ),
            })?;
        if !self.query_params.is_empty() {
            url.query_pairs_mut().extend_pairs(self.query_params.iter());
        }
        Ok(url)
    }

    /// The OpenAI preset: Responses API with `OPENAI_API_KEY`, the OpenAI rows of the model
    /// table.
    pub fn openai() -> Self {
        let mut models = known_models("gpt-");
        models.extend(known_models("o"));
        Self {
            name: "OpenAI".to_string(),
            base_url: "https://api.openai.com/v1".to_string(),
            env_key: Some("OPENAI_API_KEY".to_string()),
            wire_api: WireApi::Responses,
            models: models
                .into_iter()
                .map(|(slug, info)| (slug, ModelEntry::from(info)))
                .collect(),
            ..Self::default()
        }
    }

    /// The Ollama preset: Chat Completions at `http://localhost:11434/v1`, no key.
    pub fn ollama() -> Self {
        Self {
            name: "Ollama".to_string(),
            base_url: "http://localhost:11434/v1".to_string(),
            wire_api: WireApi::Chat,
            system_messages: Some(SystemMessageMode::AsUser),
            ..Self::default()
        }
    }

    /// The LM Studio preset: Chat Completions at `http://localhost:1234/v1`, no key.
    pub fn lmstudio() -> Self {
        Self {
            name: "LM Studio".to_string(),
            base_url: "http://localhost:1234/v1".to_string(),
            wire_api: WireApi::Chat,
            system_messages: Some(SystemMessageMode::AsUser),
            ..Self::default()
        }
    }

    /// The Anthropic preset: Messages API with `ANTHROPIC_API_KEY`, the Claude rows of the model
    /// table.
    pub fn anthropic() -> Self {
        // The per-model override example of docs/design/model-providers.md, 'Thinking levels and the capability table'.
        let sonnet_4_override = ThinkingCapabilityOverride {
            supported_levels: vec![ThinkingLevel::DeepThink, ThinkingLevel::UltraThink],
            default_level: Some(ThinkingLevel::None),
            max_budget: Some(64_000),
            budget_by_level: Some(BudgetByLevel {
                deep_think: 16_000,
                ultra_think: 64_000,
            }),
        };
        let models = known_models("claude-")
            .into_iter()
            .map(|(slug, mut info)| {
                if slug == "claude-sonnet-4" {
                    info.thinking_override = Some(sonnet_4_override.clone());
                }
                (slug, ModelEntry::from(info))
            })
            .collect();
        Self {
            name: "Anthropic".to_string(),
            base_url: "https://api.anthropic.com".to_string(),
            env_key: Some("ANTHROPIC_API_KEY".to_string()),
            wire_api: WireApi::Anthropic,
            http_headers: BTreeMap::from([(
                "anthropic-version".to_string(),
                ANTHROPIC_VERSION.to_string(),
            )]),
            models,
            ..Self::default()
        }
    }

    /// The built-in providers by id: `openai`, `ollama`, `lmstudio`, `anthropic`.
    pub fn built_in() -> BTreeMap<String, Self> {
        BTreeMap::from([
            ("openai".to_string(), Self::openai()),
            ("ollama".to_string(), Self::ollama()),
            ("lmstudio".to_string(), Self::lmstudio()),
            ("anthropic".to_string(), Self::anthropic()),
        ])
    }
}

/// The model entry of `slug` in `models`: exact, else the longest slug that prefixes it.
pub(crate) fn find_model_entry<'a>(
    models: &'a BTreeMap<String, ModelEntry>,
    slug: &str,
) -> Option<&'a ModelEntry> {
    models.get(slug).or_else(|| {
        models
            .iter()
            .filter(|(known, _)| slug.starts_with(known.as_str()))
            .max_by_key(|(known, _)| known.len())
            .map(|(_, entry)| entry)
    })
}

/// A `[model_providers.<id>]` entry as written: only the keys given. Under a built-in id it is
/// laid over the preset (so `[model_providers.ollama.models."qwen3"] context_window = 8192`
/// keeps Ollama's URL and wire API); under any other id it is the whole provider.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProviderEntry {
    /// Display name [default: the id].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Base URL, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Name of the environment variable that holds the API key; `""` for a keyless server
    /// (also under a preset's id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env_key: Option<String>,
    /// The wire protocol [default: the preset's, else `responses`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_api: Option<WireApi>,
    /// Extra headers sent with every request (added to the preset's).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub http_headers: BTreeMap<String, String>,
    /// Extra headers whose value is read from an environment variable (header → variable).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env_http_headers: BTreeMap<String, String>,
    /// Query parameters appended to the request URL (e.g. Azure `api-version`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub query_params: BTreeMap<String, String>,
    /// Retries of a failed request (connection errors, 429, 5xx); default 4.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_max_retries: Option<u64>,
    /// Reconnects of a stream that dropped before completion; default 5.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_max_retries: Option<u64>,
    /// Milliseconds without stream data before the stream counts as dropped; default 300000,
    /// `0` disables the idle timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_idle_timeout_ms: Option<u64>,
    /// Known models by slug; each entry is laid over the preset's row for the same slug.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelEntry>,
    /// Chat Completions: where developer and system messages of the history go.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_messages: Option<SystemMessageMode>,
    /// Anthropic Messages: mark prompt-cache breakpoints (`cache_control`); turn off for a
    /// proxy whose backend rejects content block arrays (for example LiteLLM in front of
    /// llama.cpp) [default: on].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_breakpoints: Option<bool>,
    /// Anthropic Messages: the lifetime of the prompt-cache breakpoints, `"5m"` or `"1h"`
    /// [default: `"5m"`]. One hour costs twice the input price per written token instead of
    /// 1.25 times, and keeps the cache through pauses of up to an hour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_ttl: Option<PromptCacheTtl>,
    /// How many requests of one client (a session and its background work share it) may be
    /// open at once; [default: no limit]. Set 1 for a server that serves one request at a time and
    /// cuts the running answer short when another arrives (llama-cpp-python's default
    /// `interrupt_requests`): the session's background session-memory extraction would
    /// otherwise end each answer empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_concurrent_requests: Option<u32>,
    /// Provider-side context management (server-side compaction, Anthropic context editing,
    /// the compaction endpoint); merged key by key over the preset's [default: all off].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_management: Option<ContextManagementConfig>,
    /// Where full compaction runs for this provider (`local`, `remote` or `auto`), over
    /// `[compact] mode` [default: `[compact] mode`]. Read by the session's configuration, not
    /// by the client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_mode: Option<agentctx_protocol::CompactMode>,
}

impl ProviderEntry {
    /// `base` (a preset, or an empty provider named after its id) with every key this entry
    /// sets replaced; header, query and model maps are merged key by key.
    pub fn apply_to(&self, mut base: ProviderConfig) -> ProviderConfig {
        if let Some(name) = &self.name {
            base.name = name.clone();
        }
        if let Some(base_url) = &self.base_url {
            base.base_url = base_url.clone();
        }
        if let Some(env_key) = &self.env_key {
            base.env_key = Some(env_key.clone()).filter(|key| !key.trim().is_empty());
        }
        if let Some(wire_api) = self.wire_api {
            base.wire_api = wire_api;
        }
        base.http_headers.extend(self.http_headers.clone());
        base.env_http_headers.extend(self.env_http_headers.clone());
        base.query_params.extend(self.query_params.clone());
        base.request_max_retries = self.request_max_retries.or(base.request_max_retries);
        base.stream_max_retries = self.stream_max_retries.or(base.stream_max_retries);
        base.stream_idle_timeout_ms = self.stream_idle_timeout_ms.or(base.stream_idle_timeout_ms);
        for (slug, entry) in &self.models {
            let merged = base
                .models
                .remove(slug)
                .unwrap_or_default()
                .merged_with(entry);
            base.models.insert(slug.clone(), merged);
        }
        base.system_messages = self.system_messages.or(base.system_messages);
        base.prompt_cache_breakpoints = self
            .prompt_cache_breakpoints
            .or(base.prompt_cache_breakpoints);
        base.prompt_cache_ttl = self.prompt_cache_ttl.or(base.prompt_cache_ttl);
        base.max_concurrent_requests = self
            .max_concurrent_requests
            .or(base.max_concurrent_requests);
        if let Some(context_management) = &self.context_management {
            base.context_management = base.context_management.merged_with(context_management);
        }
        base
    }
}

/// The model section of `config.toml`: which model and provider to use, user-defined providers
/// and thinking settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ModelConfig {
    /// The model slug, e.g. `gpt-5` or `qwen3:8b`.
    pub model: Option<String>,
    /// The provider id, a key of `model_providers` or a built-in id; default `openai`.
    pub model_provider: Option<String>,
    /// The context window of the model in use, in tokens, over anything else known of it (as
    /// codex's `model_context_window`).
    pub model_context_window: Option<i64>,
    /// The output limit of the model in use, in tokens (as codex's `model_max_output_tokens`).
    pub model_max_output_tokens: Option<i64>,
    /// Providers by id; an entry with a built-in id is laid over the built-in preset.
    pub model_providers: BTreeMap<String, ProviderEntry>,
    /// Extended thinking settings (`[thinking]`).
    pub thinking: ThinkingSettings,
}

impl ModelConfig {
    /// The provider id in use.
    pub fn provider_id(&self) -> &str {
        self.model_provider.as_deref().unwrap_or("openai")
    }

    /// The provider `id`: the built-in preset with the `[model_providers.<id>]` entry laid over
    /// it, or the entry alone for an id that is not built in.
    pub fn provider(&self, id: &str) -> Result<ProviderConfig, ModelError> {
        let entry = self.model_providers.get(id);
        let base = match (ProviderConfig::built_in().remove(id), entry) {
            (Some(preset), _) => preset,
            (None, Some(_)) => ProviderConfig {
                name: id.to_string(),
                ..ProviderConfig::default()
            },
            (None, None) => {
                return Err(ModelError::Config {
                    message: format!(
                        "unknown model provider `{id}`: define [model_providers.{id}] or use one of openai, ollama, lmstudio, anthropic"
                    ),
                });
            }
        };
        Ok(match entry {
            Some(entry) => entry.apply_to(base),
            None => base,
        })
    }
}

#[cfg(test)]
#[path = "provider_config_tests.rs"]
mod tests;
