//! `agentctx config show | schema`: the effective configuration with the source of each value,
//! the provider and model in use (resolved as every command resolves them, with the model's
//! window and output limit and where each came from), and the JSON schema of `config.toml`
//! (see docs/design/configuration.md).

use std::io::Write;
use std::path::PathBuf;

use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::LoadedConfig;
use agentctx_core::ModelSelection;
use agentctx_core::resolve_model;
use agentctx_core::resolve_provider;
use agentctx_model::BaseUrlSource;
use agentctx_model::ResolvedModel;
use agentctx_model::ResolvedProvider;
use anyhow::Context as _;
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub(crate) struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
    /// agentctx home holding config.toml [default: ~/.agentctx]
    #[arg(long, global = true, env = "AGENTCTX_HOME", value_name = "DIR")]
    home: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum ConfigCommand {
    /// Print every effective setting with its source (default, file:line or env VAR), then the
    /// provider in use.
    Show {
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Print the JSON schema of config.toml.
    Schema,
}

/// The provider in use, as `config show` reports it (never the key itself).
#[derive(Debug, Serialize)]
struct ProviderReport {
    id: String,
    base_url: String,
    base_url_source: String,
    api_key_env: Option<String>,
    api_key_set: bool,
}

/// The model in use and its limits with their sources, as `config show` reports them.
#[derive(Debug, Serialize)]
struct ModelReport {
    slug: String,
    context_window: i64,
    context_window_source: String,
    max_output_tokens: Option<i64>,
    max_output_tokens_source: Option<String>,
}

impl ModelReport {
    fn of(model: &ResolvedModel) -> Self {
        Self {
            slug: model.slug.clone(),
            context_window: model.info.context_window,
            context_window_source: model.context_window_source.to_string(),
            max_output_tokens: model.info.max_output_tokens,
            max_output_tokens_source: model
                .max_output_tokens_source
                .as_ref()
                .map(ToString::to_string),
        }
    }
}

#[derive(Debug, Serialize)]
struct ShowJson<'a> {
    file: &'a std::path::Path,
    file_exists: bool,
    values: &'a [agentctx_core::ConfigValue],
    provider: ProviderReport,
    /// `null` when no model is configured.
    model: Option<ModelReport>,
}

pub(crate) fn run(args: ConfigArgs) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match args.command {
        ConfigCommand::Schema => {
            let schema = Config::json_schema().context("cannot print the schema")?;
            stdout.write_all(schema.as_bytes())?;
        }
        ConfigCommand::Show { json } => {
            let home = match args.home {
                Some(dir) => dir,
                None => std::env::home_dir()
                    .map(|dir| dir.join(".agentctx"))
                    .context("no home directory: pass --home or set AGENTCTX_HOME")?,
            };
            let env = EnvVars::from_process_env();
            let loaded = Config::load(&home, &env)?;
            tracing::debug!(
                file = %loaded.path.display(),
                exists = loaded.file_exists,
                "configuration loaded"
            );
            let selection = ModelSelection::default();
            let (provider, model) = if selection.names_a_model(&loaded.config) {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("cannot start the async runtime")?;
                let choice =
                    runtime.block_on(resolve_model(&loaded.config, &env, &home, &selection))?;
                (choice.provider, Some(ModelReport::of(&choice.model)))
            } else {
                (resolve_provider(&loaded.config, &env, &selection)?, None)
            };
            let report = provider_report(&provider, &env);
            if json {
                let show = ShowJson {
                    file: &loaded.path,
                    file_exists: loaded.file_exists,
                    values: loaded.values(),
                    provider: report,
                    model,
                };
                serde_json::to_writer_pretty(&mut stdout, &show)?;
                writeln!(stdout)?;
            } else {
                write_show(&mut stdout, &loaded, &report, model.as_ref())?;
            }
        }
    }
    stdout.flush()?;
    Ok(())
}

fn provider_report(provider: &ResolvedProvider, env: &EnvVars) -> ProviderReport {
    let base_url_source = match &provider.base_url_source {
        BaseUrlSource::Preset => "preset".to_string(),
        BaseUrlSource::Config => "config".to_string(),
        BaseUrlSource::Env(var) => format!("env {var}"),
    };
    ProviderReport {
        id: provider.id.clone(),
        base_url: provider.config.base_url.clone(),
        base_url_source,
        api_key_env: provider.config.env_key.clone(),
        api_key_set: provider
            .config
            .env_key
            .as_deref()
            .and_then(|name| env.get(name))
            .is_some_and(|value| !value.trim().is_empty()),
    }
}

fn write_show(
    out: &mut impl Write,
    loaded: &LoadedConfig,
    provider: &ProviderReport,
    model: Option<&ModelReport>,
) -> std::io::Result<()> {
    let state = if loaded.file_exists {
        "exists"
    } else {
        "not found: every value is a default or from the environment"
    };
    writeln!(out, "# {} ({state})", loaded.path.display())?;
    for value in loaded.values() {
        writeln!(out, "{} = {}  # {}", value.key, value.value, value.source)?;
    }
    writeln!(out)?;
    writeln!(out, "# provider in use")?;
    writeln!(out, "provider = {:?}", provider.id)?;
    writeln!(
        out,
        "base_url = {:?}  # {}",
        provider.base_url, provider.base_url_source
    )?;
    match &provider.api_key_env {
        Some(var) => {
            let state = if provider.api_key_set {
                "set"
            } else {
                "not set"
            };
            writeln!(out, "api_key_env = {var:?}  # {state}")?;
        }
        None => writeln!(out, "api_key_env = none  # no key needed")?,
    }
    writeln!(out)?;
    writeln!(out, "# model in use")?;
    let Some(model) = model else {
        writeln!(out, "model = none  # no model configured")?;
        return Ok(());
    };
    writeln!(out, "model = {:?}", model.slug)?;
    writeln!(
        out,
        "context_window = {}  # {}",
        model.context_window, model.context_window_source
    )?;
    match (model.max_output_tokens, &model.max_output_tokens_source) {
        (Some(tokens), Some(source)) => writeln!(out, "max_output_tokens = {tokens}  # {source}")?,
        (Some(tokens), None) => writeln!(out, "max_output_tokens = {tokens}")?,
        (None, _) => writeln!(out, "max_output_tokens = none  # unknown")?,
    }
    Ok(())
}
