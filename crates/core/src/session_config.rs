//! [`SessionOptions`] from the aggregated [`Config`], the environment, the working directory and
//! the home: what `agentctx run` and `agentctx loop` start a session with (see
//! docs/design/core.md, "Sessions from the configuration"), and [`resolve_model`], the one
//! provider and model resolution every command that talks to a model goes through (`run`,
//! `loop`, `compact --provider`, `memory build`, `config show`).
//!
//! The provider is the configured one (`model_provider`, default `openai`) or the caller's
//! override, resolved with `agentctx_model::ModelConfig::resolve_provider`, so the ecosystem's
//! variables apply: `OPENAI_API_KEY` / `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY` /
//! `ANTHROPIC_BASE_URL`, `OLLAMA_HOST`. The model's window comes from the strongest of
//! `--context-window`, `model_context_window`, the provider's model entry, the server (asked
//! only when nothing else knows it), the model table and the default. Every failure is one line
//! that says what to do.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_model::HttpModelClient;
use agentctx_model::LimitSource;
use agentctx_model::ModelConfig;
use agentctx_model::ModelError;
use agentctx_model::ResolvedModel;
use agentctx_model::ResolvedProvider;
use agentctx_model::probe_context_window;

use crate::approval::ApprovalPolicy;
use crate::approval::Approver;
use crate::config::Config;
use crate::config::EnvVars;
use crate::session::SessionOptions;

/// What the caller chooses of the model on top of the configuration (the CLI's flags).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelSelection {
    /// The provider id instead of `model_provider`.
    pub provider: Option<String>,
    /// The model slug instead of `model`.
    pub model: Option<String>,
    /// The context window instead of anything configured or known (`--context-window`).
    pub context_window: Option<i64>,
}

impl ModelSelection {
    /// True when the flags or `config` name a model. Commands that can work without one
    /// (`compact`, `memory build`) run offline only when this is false (or on `--offline`); a
    /// model that is named and cannot be reached is an error, never a quiet fallback.
    pub fn names_a_model(&self, config: &Config) -> bool {
        self.model
            .as_deref()
            .or(config.model.model.as_deref())
            .is_some_and(|model| !model.trim().is_empty())
    }
}

/// The model a command talks to: the provider with the environment applied, and the model with
/// its limits and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChoice {
    /// The provider in use, with the environment applied.
    pub provider: ResolvedProvider,
    /// The model, its window and output limit.
    pub model: ResolvedModel,
}

impl ModelChoice {
    /// The HTTP client for this provider and model, with the resolved limits; the API key is
    /// read from `env`.
    pub fn client(&self, env: &EnvVars) -> Result<HttpModelClient, ModelError> {
        Ok(HttpModelClient::new(
            self.provider.config.clone(),
            &self.model.slug,
            &env.lookup(),
        )?
        .with_model_info(self.model.info.clone()))
    }

    /// The client for this provider and model used only to write request bodies (`agentctx
    /// replay --requests`): nothing is sent, so a missing API key is not an error (a placeholder
    /// stands in for it; every other variable is read from `env`).
    pub fn body_client(&self, env: &EnvVars) -> Result<HttpModelClient, ModelError> {
        let lookup = env.lookup();
        let key = self.provider.config.env_key.as_deref();
        Ok(HttpModelClient::new(
            self.provider.config.clone(),
            &self.model.slug,
            &|name: &str| {
                lookup(name).or_else(|| (key == Some(name)).then(|| "unused".to_string()))
            },
        )?
        .with_model_info(self.model.info.clone()))
    }
}

/// The model section of `config` with the provider `selection` names.
fn selected_model_config(config: &Config, selection: &ModelSelection) -> ModelConfig {
    let mut model_config = config.model.clone();
    if let Some(provider) = &selection.provider {
        model_config.model_provider = Some(provider.clone());
    }
    model_config
}

/// The provider alone, as [`resolve_model`] resolves it, for a caller that has no model to
/// talk to (`config show` without a configured model).
pub fn resolve_provider(
    config: &Config,
    env: &EnvVars,
    selection: &ModelSelection,
) -> Result<ResolvedProvider, SessionConfigError> {
    Ok(selected_model_config(config, selection).resolve_provider(&env.lookup())?)
}

/// The one provider and model resolution of every command: the provider of `selection` or the
/// configuration with the environment's base URL applied, the model slug, and its window (a
/// chat server is asked for it, briefly, when nothing configured or built in knows it).
pub async fn resolve_model(
    config: &Config,
    env: &EnvVars,
    home: &Path,
    selection: &ModelSelection,
) -> Result<ModelChoice, SessionConfigError> {
    let model_config = selected_model_config(config, selection);
    let provider = model_config.resolve_provider(&env.lookup())?;
    let slug = selection
        .model
        .clone()
        .or_else(|| model_config.model.clone())
        .filter(|model| !model.trim().is_empty())
        .ok_or_else(|| SessionConfigError::NoModel {
            provider: provider.id.clone(),
            config_path: home.join(crate::config::CONFIG_FILE),
        })?;
    let mut model = model_config.resolve_model(&provider, &slug);
    if let Some(window) = selection.context_window {
        model.set_context_window(window, LimitSource::Flag);
    } else if model.window_is_unknown()
        && let Some(probed) =
            probe_context_window(&provider.id, &provider.config, &slug, &env.lookup()).await
    {
        model.set_context_window(probed.tokens, LimitSource::ServerProbe { url: probed.url });
    }
    tracing::debug!(
        provider = %provider.id,
        model = %slug,
        context_window = model.info.context_window,
        source = %model.context_window_source,
        "model resolved"
    );
    Ok(ModelChoice { provider, model })
}

/// What the caller chooses on top of the configuration (the CLI's flags).
#[derive(Clone, Default)]
pub struct SessionOverrides {
    /// The provider, model and window.
    pub selection: ModelSelection,
    /// Start in plan mode.
    pub plan_mode: bool,
    /// When to ask before shell commands and writes.
    pub approval: ApprovalPolicy,
    /// Who answers under [`ApprovalPolicy::OnRequest`].
    pub approver: Option<Arc<dyn Approver>>,
    /// A thinking level for every turn (`run --thinking`), below a keyword in the message.
    pub thinking: Option<agentctx_model::thinking::ThinkingConfig>,
}

impl std::fmt::Debug for SessionOverrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOverrides")
            .field("selection", &self.selection)
            .field("plan_mode", &self.plan_mode)
            .field("approval", &self.approval)
            .finish_non_exhaustive()
    }
}

/// The options of a session and the model they talk to.
#[derive(Debug, Clone)]
pub struct SessionSetup {
    /// The session's options.
    pub options: SessionOptions,
    /// The provider and model in use.
    pub choice: ModelChoice,
}

/// Why a session cannot be set up. Each message is one line naming the fix.
#[derive(Debug, thiserror::Error)]
pub enum SessionConfigError {
    /// No model was chosen.
    #[error(
        "no model chosen for provider `{provider}`: pass --model or set `model` in {}",
        config_path.display()
    )]
    NoModel {
        /// The provider in use.
        provider: String,
        /// The configuration file that could set it.
        config_path: PathBuf,
    },
    /// The provider is unknown, its URL is bad, or its API key is missing.
    #[error(transparent)]
    Provider(#[from] ModelError),
    /// A recorded session to resume was not found.
    #[error("{0}")]
    NoSuchSession(String),
    /// The sessions folder could not be read.
    #[error("cannot list the recorded sessions: {0}")]
    Sessions(#[from] agentctx_rollout::RolloutError),
}

/// Builds the options of a session in `cwd` with its state under `home`, from `config` (already
/// loaded with the environment applied), the variables `env` (API keys and base URLs) and the
/// caller's `overrides`; the model through [`resolve_model`].
pub async fn session_setup(
    config: &Config,
    env: &EnvVars,
    cwd: &Path,
    home: &Path,
    overrides: SessionOverrides,
) -> Result<SessionSetup, SessionConfigError> {
    let choice = resolve_model(config, env, home, &overrides.selection).await?;
    let client = choice.client(env)?;
    let mut options = SessionOptions::new(cwd, home, Arc::new(client));
    options.provider_name = choice.provider.id.clone();
    options.reminders = config.system_reminder.clone();
    options.compact = config.compact_for_provider(&choice.provider.id);
    options.skills = config.skills.clone();
    options.memory = config.memory.clone();
    options.hooks = config.hooks.clone();
    options.lsp = config.lsp.clone();
    options.history = config.history.clone();
    options.approval = overrides.approval;
    options.approver = overrides.approver;
    options.plan_mode = overrides.plan_mode;
    options.plans_dir = plans_dir(config, cwd, home);
    options.thinking = crate::thinking_ext::ThinkingOptions {
        settings: config.model.thinking.clone(),
        env: agentctx_model::thinking::ThinkingEnvOverride::from_env(&env.lookup()),
        per_turn: overrides.thinking,
    };
    options.shell = env
        .get("SHELL")
        .and_then(|shell| Path::new(shell).file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .or(options.shell);
    options.current_date = Some(chrono::Local::now().format("%Y-%m-%d").to_string());
    options.model_resolver = Some(Arc::new(ConfiguredModels {
        config: config.clone(),
        env: env.clone(),
        home: home.to_path_buf(),
        provider: overrides.selection.provider.clone(),
    }));
    Ok(SessionSetup { options, choice })
}

/// The models a session may switch to (`/model`, a skill's `model`, a resume with another
/// model): resolved by [`resolve_model`] with the session's provider, so the provider, the API
/// key and the window come out as they did for the session's first model.
#[derive(Debug, Clone)]
pub(crate) struct ConfiguredModels {
    config: Config,
    env: EnvVars,
    home: PathBuf,
    provider: Option<String>,
}

#[async_trait::async_trait]
impl crate::model_switch::ModelResolver for ConfiguredModels {
    async fn resolve(
        &self,
        slug: &str,
    ) -> Result<crate::model_switch::SwitchTarget, crate::model_switch::ModelSwitchError> {
        let failed = |message: String| crate::model_switch::ModelSwitchError::Resolve {
            slug: slug.to_string(),
            message,
        };
        let selection = ModelSelection {
            provider: self.provider.clone(),
            model: Some(slug.to_string()),
            context_window: None,
        };
        // `resolve_model` may ask a chat server for the window with a borrowed, unsendable
        // variable lookup; it runs on a blocking thread of the same runtime so the switch's
        // future stays `Send` (the runtime's drivers go on serving its requests).
        let handle = tokio::runtime::Handle::current();
        let resolver = self.clone();
        let choice = tokio::task::spawn_blocking(move || {
            handle.block_on(resolve_model(
                &resolver.config,
                &resolver.env,
                &resolver.home,
                &selection,
            ))
        })
        .await
        .map_err(|error| failed(error.to_string()))?
        .map_err(|error| failed(error.to_string()))?;
        let client = choice
            .client(&self.env)
            .map_err(|error| failed(error.to_string()))?;
        Ok(crate::model_switch::SwitchTarget {
            client: Arc::new(client),
            provider_name: choice.provider.id,
        })
    }
}

/// The plans folder of a session in `cwd`: the first of `[loop] plan_dirs`, the folders `agentctx
/// loop` takes its plan from, so a plan made with `run --plan` is the plan the loop follows. A
/// relative folder is taken from the top of the git work tree holding `cwd` (as the loop takes
/// it), else from `cwd`; with no folder configured, `<home>/plans`.
pub(crate) fn plans_dir(config: &Config, cwd: &Path, home: &Path) -> PathBuf {
    let Some(first) = config.loop_driver.plan_dirs.first() else {
        return home.join("plans");
    };
    if first.is_absolute() {
        return first.clone();
    }
    let root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd);
    root.join(first)
}

/// The rollout of a recorded session under `home/sessions`: `last` is the newest, anything else
/// a session id (the end of the file name, `rollout-<time>-<id>.jsonl`).
pub fn find_session(home: &Path, id_or_last: &str) -> Result<PathBuf, SessionConfigError> {
    let root = home.join("sessions");
    if !root.is_dir() {
        return Err(SessionConfigError::NoSuchSession(format!(
            "no recorded sessions under {}",
            root.display()
        )));
    }
    let sessions = agentctx_rollout::discover_sessions(&root)?;
    let found = if id_or_last == "last" {
        sessions.into_iter().next()
    } else {
        let suffix = format!("-{id_or_last}.jsonl");
        sessions.into_iter().find(|session| {
            session
                .path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().ends_with(&suffix))
        })
    };
    found.map(|session| session.path).ok_or_else(|| {
        SessionConfigError::NoSuchSession(format!(
            "no recorded session `{id_or_last}` under {}",
            root.display()
        ))
    })
}

#[cfg(test)]
#[path = "session_config_tests.rs"]
mod tests;
