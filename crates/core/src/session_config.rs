//! [`SessionOptions`] from the aggregated [`Config`], the environment, the working directory and
//! the home: what `agentctx run` and `agentctx loop` start a session with (see
//! docs/design/core.md, "Sessions from the configuration").
//!
//! The provider is the configured one (`model_provider`, default `openai`) or the caller's
//! override, resolved with `agentctx_model::ModelConfig::resolve_provider`, so the ecosystem's
//! variables apply: `OPENAI_API_KEY` / `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY` /
//! `ANTHROPIC_BASE_URL`, `OLLAMA_HOST`. Every failure is one line that says what to do.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_model::HttpModelClient;
use agentctx_model::ModelError;
use agentctx_model::ResolvedProvider;

use crate::approval::ApprovalPolicy;
use crate::approval::Approver;
use crate::config::Config;
use crate::config::EnvVars;
use crate::session::SessionOptions;

/// What the caller chooses on top of the configuration (the CLI's flags).
#[derive(Clone, Default)]
pub struct SessionOverrides {
    /// The provider id instead of `model_provider`.
    pub provider: Option<String>,
    /// The model slug instead of `model`.
    pub model: Option<String>,
    /// Start in plan mode.
    pub plan_mode: bool,
    /// When to ask before shell commands and writes.
    pub approval: ApprovalPolicy,
    /// Who answers under [`ApprovalPolicy::OnRequest`].
    pub approver: Option<Arc<dyn Approver>>,
}

impl std::fmt::Debug for SessionOverrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOverrides")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("plan_mode", &self.plan_mode)
            .field("approval", &self.approval)
            .finish_non_exhaustive()
    }
}

/// The options of a session and the provider they talk to.
#[derive(Debug, Clone)]
pub struct SessionSetup {
    /// The session's options.
    pub options: SessionOptions,
    /// The provider in use, with the environment applied.
    pub provider: ResolvedProvider,
    /// The model slug.
    pub model: String,
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
/// caller's `overrides`.
pub fn session_setup(
    config: &Config,
    env: &EnvVars,
    cwd: &Path,
    home: &Path,
    overrides: SessionOverrides,
) -> Result<SessionSetup, SessionConfigError> {
    let mut model_config = config.model.clone();
    if let Some(provider) = &overrides.provider {
        model_config.model_provider = Some(provider.clone());
    }
    let provider = model_config.resolve_provider(&env.lookup())?;
    let model = overrides
        .model
        .clone()
        .or_else(|| model_config.model.clone())
        .filter(|model| !model.trim().is_empty())
        .ok_or_else(|| SessionConfigError::NoModel {
            provider: provider.id.clone(),
            config_path: home.join(crate::config::CONFIG_FILE),
        })?;
    let client = HttpModelClient::new(provider.config.clone(), &model, &env.lookup())?;
    let mut options = SessionOptions::new(cwd, home, Arc::new(client));
    options.provider_name = provider.id.clone();
    options.reminders = config.system_reminder.clone();
    options.compact = config.compact.clone();
    options.skills = config.skills.clone();
    options.memory = config.memory.clone();
    options.hooks = config.hooks.clone();
    options.approval = overrides.approval;
    options.approver = overrides.approver;
    options.plan_mode = overrides.plan_mode;
    options.shell = env
        .get("SHELL")
        .and_then(|shell| Path::new(shell).file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .or(options.shell);
    options.current_date = Some(chrono::Local::now().format("%Y-%m-%d").to_string());
    Ok(SessionSetup {
        options,
        provider,
        model,
    })
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
