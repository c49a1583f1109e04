//! Which model extracts and consolidates for `agentctx memory build`, if any: `--offline`,
//! `--provider` / `--model`, or the model configured in `<home>/config.toml` (`model`,
//! `model_provider`, `[model_providers.<id>]`). Without one, or when the client cannot be built
//! (an unset API key), the build runs offline and says why.

use std::path::Path;
use std::sync::Arc;

use agentctx_memory::Consolidator;
use agentctx_memory::Extractor;
use agentctx_memory::ModelConsolidator;
use agentctx_memory::OfflineConsolidator;
use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelConfig;
use anyhow::Context as _;

/// The extractor and consolidator chosen, and why the build is offline when it is.
pub(crate) struct Choice {
    pub(crate) extractor: Extractor,
    pub(crate) consolidator: Arc<dyn Consolidator>,
    pub(crate) offline_reason: Option<String>,
}

fn offline(reason: impl Into<String>) -> Choice {
    Choice {
        extractor: Extractor::Offline,
        consolidator: Arc::new(OfflineConsolidator),
        offline_reason: Some(reason.into()),
    }
}

fn load_model_config(home: &Path) -> anyhow::Result<ModelConfig> {
    let path = home.join("config.toml");
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str(&text).with_context(|| format!("invalid {}", path.display())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(ModelConfig::default()),
        Err(err) => Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Picks the extractor from the flags, then the configuration.
pub(crate) fn choose(
    home: &Path,
    offline_requested: bool,
    provider: Option<&str>,
    model: Option<&str>,
) -> anyhow::Result<Choice> {
    if offline_requested {
        return Ok(offline("--offline was given"));
    }
    let config = load_model_config(home)?;
    let slug = match model.or(config.model.as_deref()) {
        Some(slug) => slug.to_string(),
        None if provider.is_some() => {
            anyhow::bail!("--provider needs --model (or `model` in config.toml)")
        }
        None => {
            return Ok(offline(
                "no model configured (pass --provider and --model, or set `model` in config.toml)",
            ));
        }
    };
    let provider_id = provider.unwrap_or_else(|| config.provider_id()).to_string();
    let provider_config = config
        .provider(&provider_id)
        .context("cannot choose the memory model")?;
    let env = |name: &str| std::env::var(name).ok();
    match HttpModelClient::new(provider_config, &slug, &env) {
        Ok(client) => {
            let client: Arc<dyn ModelClient> = Arc::new(client);
            Ok(Choice {
                extractor: Extractor::Model(Arc::clone(&client)),
                consolidator: Arc::new(ModelConsolidator::new(client)),
                offline_reason: None,
            })
        }
        Err(err) => Ok(offline(format!("provider `{provider_id}`: {err}"))),
    }
}
