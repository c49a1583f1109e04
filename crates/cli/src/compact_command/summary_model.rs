//! Which model writes the summary of `agentctx compact`, if any: `--offline`, `--provider` /
//! `--model`, or the model configured in `<home>/config.toml` (`model`, `model_provider`,
//! `[model_providers.<id>]`, read as `agentctx-model`'s `ModelConfig`). Without one, or when the
//! client cannot be built (an unset API key), the offline summariser writes the summary and the
//! output says why.

use std::path::Path;

use agentctx_compact::CompactConfig;
use agentctx_model::HttpModelClient;
use agentctx_model::ModelConfig;
use anyhow::Context as _;
use serde::Deserialize;

/// The parts of `config.toml` the command reads.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct HomeConfig {
    #[serde(flatten)]
    pub(crate) model: ModelConfig,
    pub(crate) compact: CompactConfig,
}

/// Reads `<home>/config.toml`; no file gives the defaults.
pub(crate) fn load_home_config(home: &Path) -> anyhow::Result<HomeConfig> {
    let path = home.join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(HomeConfig::default());
        }
        Err(err) => {
            return Err(err).with_context(|| format!("cannot read {}", path.display()));
        }
    };
    toml::from_str(&text).with_context(|| format!("invalid {}", path.display()))
}

/// The summary model, or why there is none.
pub(crate) enum SummaryModel {
    /// A client for the chosen provider and model.
    Client(Box<HttpModelClient>),
    /// No model: the offline summariser is used, for this reason (`snake_case` code, then the
    /// human explanation).
    Offline { code: &'static str, detail: String },
}

/// Picks the summary model from the flags, then the configuration.
pub(crate) fn choose(
    offline: bool,
    provider: Option<&str>,
    model: Option<&str>,
    config: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<SummaryModel> {
    if offline {
        return Ok(SummaryModel::Offline {
            code: "offline_requested",
            detail: "--offline was given".to_string(),
        });
    }
    let slug = match model.or(config.model.as_deref()) {
        Some(slug) => slug,
        None if provider.is_some() => {
            anyhow::bail!("--provider needs --model (or `model` in config.toml)")
        }
        None => {
            return Ok(SummaryModel::Offline {
                code: "no_provider_configured",
                detail: "no model configured (pass --provider and --model, or set `model` in config.toml)"
                    .to_string(),
            });
        }
    };
    let provider_id = provider.unwrap_or_else(|| config.provider_id());
    let provider_config = config
        .provider(provider_id)
        .context("cannot choose the summary model")?;
    match HttpModelClient::new(provider_config, slug, env) {
        Ok(client) => Ok(SummaryModel::Client(Box::new(client))),
        Err(err) => Ok(SummaryModel::Offline {
            code: "provider_unavailable",
            detail: format!("provider `{provider_id}`: {err}"),
        }),
    }
}
