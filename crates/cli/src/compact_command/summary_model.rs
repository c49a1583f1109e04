//! Which model writes the summary of `agentctx compact`, if any: none on `--offline`; else the
//! model `--provider` / `--model` or `<home>/config.toml` name, resolved as every command
//! resolves it (`agentctx_core::resolve_model`: the configuration with its
//! environment overrides, `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL` or `OLLAMA_HOST` applied to
//! the presets). Only when no model is named anywhere does the offline summariser write the
//! summary, and the output says why; a named model whose client cannot be built (an unset API
//! key, a bad URL) is an error.

use std::path::Path;

use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::ModelSelection;
use agentctx_core::resolve_model;
use agentctx_model::HttpModelClient;
use anyhow::Context as _;

/// The summary model, or why there is none.
pub(crate) enum SummaryModel {
    /// A client for the chosen provider and model.
    Client(Box<HttpModelClient>),
    /// No model: the offline summariser is used, for this reason (`snake_case` code, then the
    /// human explanation).
    Offline { code: &'static str, detail: String },
}

/// Picks the summary model from the flags, then the configuration.
pub(crate) async fn choose(
    offline: bool,
    selection: &ModelSelection,
    config: &Config,
    env: &EnvVars,
    home: &Path,
) -> anyhow::Result<SummaryModel> {
    if offline {
        return Ok(SummaryModel::Offline {
            code: "offline_requested",
            detail: "--offline was given".to_string(),
        });
    }
    if !selection.names_a_model(config) {
        if selection.provider.is_some() {
            anyhow::bail!("--provider needs --model (or `model` in config.toml)");
        }
        return Ok(SummaryModel::Offline {
            code: "no_provider_configured",
            detail:
                "no model configured (pass --provider and --model, or set `model` in config.toml)"
                    .to_string(),
        });
    }
    let choice = resolve_model(config, env, home, selection)
        .await
        .context("cannot choose the summary model")?;
    let client = choice
        .client(env)
        .with_context(|| format!("cannot use the summary model of `{}`", choice.provider.id))?;
    Ok(SummaryModel::Client(Box::new(client)))
}
