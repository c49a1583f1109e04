//! Which model extracts and consolidates for `agentctx memory build`, if any: none on
//! `--offline`; else the model `--provider` / `--model` or `<home>/config.toml` name, resolved as
//! every command resolves it (`agentctx_core::resolve_model`: the configuration
//! with its environment overrides, `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL` or `OLLAMA_HOST`
//! applied to the presets). Only when no model is named anywhere does the build run offline,
//! and it says why; a named model whose client cannot be built (an unset API key) is an error.

use std::path::Path;
use std::sync::Arc;

use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::ModelSelection;
use agentctx_core::resolve_model;
use agentctx_memory::Consolidator;
use agentctx_memory::Extractor;
use agentctx_memory::ModelConsolidator;
use agentctx_memory::OfflineConsolidator;
use agentctx_model::ModelClient;
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
    let env = EnvVars::from_process_env();
    let config = Config::load(home, &env)?.config;
    let selection = ModelSelection {
        provider: provider.map(str::to_string),
        model: model.map(str::to_string),
        context_window: None,
    };
    if !selection.names_a_model(&config) {
        if provider.is_some() {
            anyhow::bail!("--provider needs --model (or `model` in config.toml)");
        }
        return Ok(offline(
            "no model configured (pass --provider and --model, or set `model` in config.toml)",
        ));
    }
    let choice = super::runtime()?
        .block_on(resolve_model(&config, &env, home, &selection))
        .context("cannot choose the memory model")?;
    let client = choice
        .client(&env)
        .with_context(|| format!("cannot use the memory model of `{}`", choice.provider.id))?;
    let client: Arc<dyn ModelClient> = Arc::new(client);
    Ok(Choice {
        extractor: Extractor::Model(Arc::clone(&client)),
        consolidator: Arc::new(ModelConsolidator::new(client)),
        offline_reason: None,
    })
}
