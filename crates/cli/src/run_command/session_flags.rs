//! The flags `agentctx run` and `agentctx loop` share, and the session options they make:
//! the configuration under the home, the environment, the provider and model, the working
//! directory and the approval policy with its approver.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_core::ApprovalPolicy;
use agentctx_core::Approver;
use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::LoadedConfig;
use agentctx_core::ModelSelection;
use agentctx_core::SessionOverrides;
use agentctx_core::SessionSetup;
use agentctx_core::session_setup;
use anyhow::Context as _;

use super::approver::NonInteractiveApprover;
use super::approver::TerminalApprover;

/// `--approval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ApprovalFlag {
    /// Ask before each shell command and write (on the terminal; refused when stdin is not one).
    OnRequest,
    /// Refuse every shell command and write.
    Never,
    /// Run them without asking (what --yes means).
    Auto,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SessionFlags {
    /// Provider id: openai, anthropic, ollama, lmstudio or a `[model_providers.<id>]` of
    /// config.toml [default: `model_provider` of config.toml, else openai]
    #[arg(long)]
    pub(crate) provider: Option<String>,
    /// Model slug [default: `model` of config.toml]
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// The model's context window in tokens, over anything configured, asked of the server or
    /// known [default: `model_context_window`, the provider's model entry, the server, the
    /// model table, else 128000]
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(i64).range(1..))]
    pub(crate) context_window: Option<i64>,
    /// Working directory the agent reads and changes [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// When to ask before shell commands and writes
    #[arg(long, value_enum, default_value_t = ApprovalFlag::OnRequest)]
    pub(crate) approval: ApprovalFlag,
    /// Run shell commands and writes without asking (= --approval auto, for scripts)
    #[arg(long, short = 'y')]
    pub(crate) yes: bool,
    /// Thinking level of every turn: none, deep_think or ultra_think (a keyword such as
    /// `ultrathink` in a prompt still wins; the COCODE_THINKING_LEVEL variable wins over both)
    /// [default: `[thinking] default_level` of config.toml, else the model's default]
    #[arg(long, value_name = "LEVEL", value_parser = parse_thinking_flag)]
    pub(crate) thinking: Option<agentctx_protocol::ThinkingLevel>,
    /// agentctx home holding config.toml and sessions/ [default: ~/.agentctx]
    #[arg(long, env = "AGENTCTX_HOME", value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,
}

/// `--thinking`: the level names the configuration takes.
fn parse_thinking_flag(raw: &str) -> Result<agentctx_protocol::ThinkingLevel, String> {
    agentctx_model::thinking::parse_thinking_level(raw).ok_or_else(|| {
        format!("unknown thinking level `{raw}`: use none, deep_think or ultra_think")
    })
}

/// Everything a command needs to start a session.
pub(crate) struct Prepared {
    pub(crate) home: PathBuf,
    pub(crate) cwd: PathBuf,
    pub(crate) env: EnvVars,
    pub(crate) loaded: LoadedConfig,
}

impl SessionFlags {
    /// Reads the home, the working directory, the environment and the configuration.
    pub(crate) fn prepare(&self) -> anyhow::Result<Prepared> {
        let home = match &self.home {
            Some(dir) => dir.clone(),
            None => std::env::home_dir()
                .map(|dir| dir.join(".agentctx"))
                .context("no home directory: pass --home or set AGENTCTX_HOME")?,
        };
        let cwd = match &self.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let cwd = cwd
            .canonicalize()
            .with_context(|| format!("no working directory {}", cwd.display()))?;
        let env = EnvVars::from_process_env();
        let loaded = Config::load(&home, &env)?;
        Ok(Prepared {
            home,
            cwd,
            env,
            loaded,
        })
    }

    /// The policy and who answers: `--yes` wins; `on-request` asks on a terminal and refuses
    /// (with a message) when stdin is not one. On a terminal the approver is there whatever the
    /// policy, so the model's `ask_user` questions reach the user under `--yes` too (the policy
    /// alone decides approvals: `auto` and `never` never consult it).
    pub(crate) fn approval(&self) -> (ApprovalPolicy, Option<Arc<dyn Approver>>) {
        let terminal = std::io::stdin().is_terminal();
        let asker = || terminal.then(|| Arc::new(TerminalApprover) as Arc<dyn Approver>);
        if self.yes {
            return (ApprovalPolicy::AutoApprove, asker());
        }
        match self.approval {
            ApprovalFlag::Auto => (ApprovalPolicy::AutoApprove, asker()),
            ApprovalFlag::Never => (ApprovalPolicy::Never, asker()),
            ApprovalFlag::OnRequest if terminal => (ApprovalPolicy::OnRequest, asker()),
            ApprovalFlag::OnRequest => (
                ApprovalPolicy::OnRequest,
                Some(Arc::new(NonInteractiveApprover)),
            ),
        }
    }

    /// The provider, model and window the flags choose.
    pub(crate) fn selection(&self) -> ModelSelection {
        ModelSelection {
            provider: self.provider.clone(),
            model: self.model.clone(),
            context_window: self.context_window,
        }
    }

    /// The session's options.
    pub(crate) async fn setup(
        &self,
        prepared: &Prepared,
        plan_mode: bool,
    ) -> anyhow::Result<SessionSetup> {
        let (approval, approver) = self.approval();
        let overrides = SessionOverrides {
            selection: self.selection(),
            plan_mode,
            approval,
            approver,
            thinking: self
                .thinking
                .map(|level| agentctx_model::thinking::ThinkingConfig {
                    level,
                    ..Default::default()
                }),
        };
        Ok(session_setup(
            &prepared.loaded.config,
            &prepared.env,
            &prepared.cwd,
            &prepared.home,
            overrides,
        )
        .await?)
    }
}
