//! The provider in use with the ecosystem's environment conventions applied:
//! [`ModelConfig::resolve_provider`].
//!
//! The official clients read a base URL from the environment, and users expect a harness to do
//! the same: `OPENAI_BASE_URL` (openai-python `src/openai/_client.py`: `base_url` falls back to
//! `os.environ.get("OPENAI_BASE_URL")`, then `https://api.openai.com/v1`), `ANTHROPIC_BASE_URL`
//! (anthropic-sdk-python `src/anthropic/_client.py`: then `https://api.anthropic.com`) and
//! `OLLAMA_HOST` (ollama-python `ollama/_client.py`, `_parse_host`: a host, `host:port`, `:port`
//! or a URL; scheme `http`, host `127.0.0.1` and port `11434` by default, `80`/`443` when the
//! scheme is given without a port). The keys come from `OPENAI_API_KEY` and `ANTHROPIC_API_KEY`
//! (the presets' `env_key`). See docs/design/model-providers.md, "Environment".
//!
//! Only the built-in presets follow these variables, and only while the configuration does not
//! set their `base_url`: a `base_url` in `[model_providers.<id>]` is the user's explicit
//! choice and is used as written. An entry that sets other keys of a preset (a model's window,
//! a header) leaves the preset's URL, and these variables, in force.

use crate::error::ModelError;
use crate::provider_config::ModelConfig;
use crate::provider_config::ProviderConfig;

/// Where the base URL of the provider in use came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseUrlSource {
    /// The built-in preset's default.
    Preset,
    /// The `base_url` of a `[model_providers.<id>]` entry of the configuration.
    Config,
    /// An environment variable (its name).
    Env(&'static str),
}

/// The provider in use: its id, its settings with the environment applied, and where its base
/// URL came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedProvider {
    /// The provider id (`openai`, `anthropic`, `ollama`, or a configured one).
    pub id: String,
    /// Its settings, base URL from the environment included.
    pub config: ProviderConfig,
    /// Where the base URL came from.
    pub base_url_source: BaseUrlSource,
}

impl ResolvedProvider {
    /// The API key, read through `env`; a missing key is
    /// [`ModelError::MissingApiKey`], whose message names the variable.
    pub fn api_key(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<String>, ModelError> {
        self.config.api_key(env)
    }
}

/// The variable that overrides the base URL of a built-in provider.
pub fn base_url_env_var(provider_id: &str) -> Option<&'static str> {
    match provider_id {
        "openai" => Some("OPENAI_BASE_URL"),
        "anthropic" => Some("ANTHROPIC_BASE_URL"),
        "ollama" => Some("OLLAMA_HOST"),
        _ => None,
    }
}

impl ModelConfig {
    /// The provider in use ([`ModelConfig::provider_id`]) with the environment read through
    /// `env` (never the process environment directly): a built-in preset takes its base URL
    /// from `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL` or `OLLAMA_HOST` when set and not empty.
    pub fn resolve_provider(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ResolvedProvider, ModelError> {
        let id = self.provider_id().to_string();
        let mut config = self.provider(&id)?;
        let configured_url = self
            .model_providers
            .get(&id)
            .is_some_and(|entry| entry.base_url.is_some());
        let built_in = ProviderConfig::built_in().contains_key(&id);
        if configured_url || !built_in {
            return Ok(ResolvedProvider {
                id,
                config,
                base_url_source: BaseUrlSource::Config,
            });
        }
        let from_env = base_url_env_var(&id).and_then(|name| {
            env(name)
                .map(|value| value.trim().to_string())
                .filter(|value| !value.is_empty())
                .map(|value| (name, value))
        });
        let Some((name, value)) = from_env else {
            return Ok(ResolvedProvider {
                id,
                config,
                base_url_source: BaseUrlSource::Preset,
            });
        };
        config.base_url = if name == "OLLAMA_HOST" {
            format!("{}/v1", ollama_host_url(&value))
        } else {
            value
        };
        // The URL must parse before a request is made: a typo is reported naming the variable.
        config.endpoint_url().map_err(|err| ModelError::Config {
            message: format!("{name}: {err}"),
        })?;
        Ok(ResolvedProvider {
            id,
            config,
            base_url_source: BaseUrlSource::Env(name),
        })
    }
}

/// The server URL an `OLLAMA_HOST` value names, as ollama-python's `_parse_host` reads it:
/// `1.2.3.4` → `http://1.2.3.4:11434`, `:56789` → `http://127.0.0.1:56789`,
/// `https://example.com` → `https://example.com:443`, `example.com/path/` →
/// `http://example.com:11434/path`.
pub fn ollama_host_url(value: &str) -> String {
    let value = value.trim();
    let (scheme, rest, default_port) = match value.split_once("://") {
        Some(("https", rest)) => ("https", rest, "443"),
        Some(("http", rest)) => ("http", rest, "80"),
        Some((scheme, rest)) => (scheme, rest, "11434"),
        None => ("http", value, "11434"),
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (host, port) = split_host_port(authority);
    let host = if host.is_empty() { "127.0.0.1" } else { host };
    let port = port.filter(|port| !port.is_empty()).unwrap_or(default_port);
    let path = path.trim_matches('/');
    if path.is_empty() {
        format!("{scheme}://{host}:{port}")
    } else {
        format!("{scheme}://{host}:{port}/{path}")
    }
}

/// `host:port`, `[v6]:port`, `host` or `:port`.
fn split_host_port(authority: &str) -> (&str, Option<&str>) {
    if authority.starts_with('[') {
        return match authority.split_once(']') {
            Some((host, rest)) => (
                authority.get(..host.len() + 1).unwrap_or(authority),
                rest.strip_prefix(':'),
            ),
            None => (authority, None),
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    }
}

#[cfg(test)]
#[path = "provider_env_tests.rs"]
mod tests;
