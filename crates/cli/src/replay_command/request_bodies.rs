//! `agentctx replay --requests DIR`: every request the engine would send, written as the
//! session's provider receives it.
//!
//! The provider and model are the flags', else the ones the session recorded (its
//! `session_meta.model_provider` and the first `turn_context.model`), else config.toml's, and
//! are resolved as every command resolves them (`agentctx_core::resolve_model`).
//! The body is the provider client's own (`HttpModelClient::request_body`, through
//! `ModelChoice::body_client`): nothing is sent, and a missing API key does not matter for a
//! body that never leaves the machine.

use std::io::Write as _;
use std::path::Path;
use std::path::PathBuf;

use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::ModelSelection;
use agentctx_core::resolve_model;
use agentctx_engine::replay::RequestSink;
use agentctx_model::HttpModelClient;
use agentctx_model::Prompt;
use agentctx_protocol::EventMsg;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::CLAUDE_CODE_ORIGINATOR;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use anyhow::Context as _;
use serde_json::Value;

/// The lines read at most to find what model a session recorded.
const HEADER_LINES: usize = 200;

/// Writes `request-NNNN.json` files into a folder.
pub(crate) struct RequestBodies {
    dir: PathBuf,
    client: HttpModelClient,
}

impl std::fmt::Debug for RequestBodies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestBodies")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl RequestBodies {
    /// Bodies of `session`'s requests into `dir` (created when missing), for the provider and
    /// model chosen as the module says.
    pub(crate) fn new(
        dir: &Path,
        session: &Path,
        home: &Path,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let client = BodyClients::load(home, provider, model)?.client(session)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            client,
        })
    }
}

/// Chooses the client whose bodies a session's requests are written as: config.toml read once,
/// the provider and model given, else the session's, else config.toml's.
pub(crate) struct BodyClients {
    home: PathBuf,
    config: Config,
    env: EnvVars,
    provider: Option<String>,
    model: Option<String>,
}

impl std::fmt::Debug for BodyClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyClients")
            .field("home", &self.home)
            .field("provider", &self.provider)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl BodyClients {
    /// Reads `home`'s config.toml and the environment.
    pub(crate) fn load(
        home: &Path,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> anyhow::Result<Self> {
        let env = EnvVars::from_process_env();
        let loaded = Config::load(home, &env)?;
        Ok(Self {
            home: home.to_path_buf(),
            config: loaded.config,
            env,
            provider: provider.map(str::to_string),
            model: model.map(str::to_string),
        })
    }

    /// The client for `session`'s requests.
    pub(crate) fn client(&self, session: &Path) -> anyhow::Result<HttpModelClient> {
        let (recorded_provider, recorded_model) = recorded_model(session);
        let selection = ModelSelection {
            provider: self.provider.clone().or(recorded_provider),
            model: self.model.clone().or(recorded_model),
            context_window: None,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        let choice = runtime
            .block_on(resolve_model(
                &self.config,
                &self.env,
                &self.home,
                &selection,
            ))
            .context("cannot choose the provider the requests are written for")?;
        choice
            .body_client(&self.env)
            .context("cannot build the provider's client")
    }
}

impl RequestSink for RequestBodies {
    fn request(&mut self, request: usize, prompt: &Prompt<'_>) -> std::io::Result<()> {
        let body = self.client.request_body(prompt);
        let path = self.dir.join(format!("request-{request:04}.json"));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        serde_json::to_writer_pretty(&mut file, &body)?;
        writeln!(file)?;
        file.flush()
    }
}

/// The provider id and model the session recorded (its header's `model_provider`, its first
/// `turn_context.model`), when it recorded them. A Claude Code transcript names no provider
/// (it is Anthropic's) and its model on each response (the first one's is taken).
fn recorded_model(session: &Path) -> (Option<String>, Option<String>) {
    let Ok(reader) = RolloutReader::open(session) else {
        return (None, None);
    };
    let mut provider = None;
    let mut model = None;
    for event in reader.take(HEADER_LINES) {
        let Ok(ReadEvent::Record(record)) = event else {
            continue;
        };
        match &record.line.item {
            RolloutItem::SessionMeta(meta) if provider.is_none() => {
                provider.clone_from(&meta.model_provider);
                if meta.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR) {
                    provider = Some(ANTHROPIC_PROVIDER.to_string());
                }
            }
            RolloutItem::TurnContext(context) => {
                model.clone_from(&context.model);
                break;
            }
            RolloutItem::EventMsg(EventMsg::TokenCount(count)) => {
                if let Some(name) = count.extra.get("model").and_then(Value::as_str) {
                    model = Some(name.to_string());
                    break;
                }
            }
            _ => {}
        }
    }
    (provider, model)
}

/// The built-in provider whose wire format a Claude Code session's requests are written in.
const ANTHROPIC_PROVIDER: &str = "anthropic";
