//! The binary under test, with a home whose `config.toml` points at one server.

use std::path::Path;
use std::path::PathBuf;

use crate::error::InteropError;
use crate::litellm::LiteLlm;
use crate::litellm::MASTER_KEY;
use crate::llama::LlamaServer;
use crate::process::command;
use crate::tools::Tools;

/// The variable the suite's provider entry reads its key from.
pub(crate) const API_KEY_VAR: &str = "AGENTCTX_INTEROP_API_KEY";

/// The output limit the routes configure: SmolLM2 rambles until its limit, and on two cores
/// every token of it is time (a window-sized default would make each answer take minutes).
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 128;

/// The wire format a route speaks (agentctx's `wire_api`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireApi {
    /// Chat Completions.
    Chat,
    /// OpenAI Responses.
    Responses,
    /// Anthropic Messages.
    Anthropic,
}

impl WireApi {
    fn config_name(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Responses => "responses",
            Self::Anthropic => "anthropic",
        }
    }
}

/// One way to reach a model: a provider entry of `config.toml`.
#[derive(Debug, Clone)]
pub struct Route {
    /// A label for messages (`llama/chat`, `litellm/responses`, …).
    pub label: String,
    /// The wire format.
    pub wire: WireApi,
    /// The provider's base URL.
    pub base_url: String,
    /// The model slug sent.
    pub model: String,
    /// The API key, if the server wants one.
    pub api_key: Option<String>,
    /// The model's context window, configured.
    pub context_window: u32,
    /// The model's output limit, configured; `None` leaves it unset.
    pub max_output_tokens: Option<u32>,
}

impl Route {
    /// llama-cpp-python directly, over Chat Completions.
    pub fn llama(llama: &LlamaServer, context_window: u32) -> Self {
        Self {
            label: "llama/chat".into(),
            wire: WireApi::Chat,
            base_url: llama.base_url(),
            model: "smollm2".into(),
            api_key: None,
            context_window,
            max_output_tokens: Some(DEFAULT_MAX_OUTPUT_TOKENS),
        }
    }

    /// LiteLLM in `wire`'s format, serving `model` (a backend name of the proxy).
    pub fn litellm(litellm: &LiteLlm, wire: WireApi, model: &str, context_window: u32) -> Self {
        let base_url = match wire {
            WireApi::Anthropic => litellm.anthropic_base_url(),
            WireApi::Chat | WireApi::Responses => litellm.openai_base_url(),
        };
        Self {
            label: format!("litellm/{}/{model}", wire.config_name()),
            wire,
            base_url,
            model: model.into(),
            api_key: Some(MASTER_KEY.into()),
            context_window,
            max_output_tokens: Some(DEFAULT_MAX_OUTPUT_TOKENS),
        }
    }

    /// The provider section of `config.toml`.
    pub fn config_toml(&self) -> String {
        let mut toml = format!(
            "model = \"{model}\"\nmodel_provider = \"interop\"\n\n[model_providers.interop]\nname = \"{label}\"\nbase_url = \"{base}\"\nwire_api = \"{wire}\"\n",
            model = self.model,
            label = self.label,
            base = self.base_url,
            wire = self.wire.config_name(),
        );
        if self.api_key.is_some() {
            toml.push_str(&format!("env_key = \"{API_KEY_VAR}\"\n"));
        }
        // llama-cpp-python cuts the running answer short when another request arrives; the
        // session's background session-memory extraction must wait its turn.
        toml.push_str("max_concurrent_requests = 1\n");
        if self.wire == WireApi::Anthropic {
            // LiteLLM passes Anthropic content block arrays on to the chat backend as arrays,
            // which llama-cpp-python refuses; without cache breakpoints text goes as strings.
            toml.push_str("prompt_cache_breakpoints = false\n");
        }
        toml.push_str(&format!(
            "\n[model_providers.interop.models.\"{model}\"]\ncontext_window = {window}\n",
            model = self.model,
            window = self.context_window,
        ));
        if let Some(max) = self.max_output_tokens {
            toml.push_str(&format!("max_output_tokens = {max}\n"));
        }
        toml
    }
}

/// The binary with a temporary home (its `config.toml` naming one route) and working folder.
#[derive(Debug)]
pub struct Agentctx {
    bin: PathBuf,
    route: Route,
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

impl Agentctx {
    /// A fresh home and working folder for `route`.
    pub fn new(tools: &Tools, route: &Route) -> Result<Self, InteropError> {
        Self::with_binary(&tools.agentctx, route)
    }

    /// [`Agentctx::new`] for the binary at `bin` (a test that needs none of the servers of
    /// [`Tools`]).
    pub fn with_binary(bin: &Path, route: &Route) -> Result<Self, InteropError> {
        let home = tempfile::tempdir().map_err(InteropError::io("cannot create the home"))?;
        let cwd = tempfile::tempdir().map_err(InteropError::io("cannot create the cwd"))?;
        std::fs::write(home.path().join("config.toml"), route.config_toml())
            .map_err(InteropError::io("cannot write config.toml"))?;
        std::fs::write(home.path().join("gitconfig"), "")
            .map_err(InteropError::io("cannot write gitconfig"))?;
        Ok(Self {
            bin: bin.to_path_buf(),
            route: route.clone(),
            home,
            cwd,
        })
    }

    /// The route the home is configured for.
    pub fn route(&self) -> &Route {
        &self.route
    }

    /// `AGENTCTX_HOME`.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// The working folder the binary runs in.
    pub fn cwd(&self) -> &Path {
        self.cwd.path()
    }

    /// Appends `text` to the home's `config.toml`.
    pub fn append_config(&self, text: &str) -> Result<(), InteropError> {
        let path = self.home().join("config.toml");
        let mut config =
            std::fs::read_to_string(&path).map_err(InteropError::io("cannot read config.toml"))?;
        config.push_str(text);
        std::fs::write(&path, config).map_err(InteropError::io("cannot write config.toml"))
    }

    /// `agentctx <args>` in the working folder, with only this home's configuration and git
    /// that reads no user configuration.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = command(&self.bin);
        cmd.current_dir(self.cwd())
            .env("AGENTCTX_HOME", self.home())
            .env("GIT_CONFIG_GLOBAL", self.home().join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Interop")
            .env("GIT_AUTHOR_EMAIL", "interop@example.com")
            .env("GIT_COMMITTER_NAME", "Interop")
            .env("GIT_COMMITTER_EMAIL", "interop@example.com")
            .args(args);
        if let Some(key) = &self.route.api_key {
            cmd.env(API_KEY_VAR, key);
        }
        cmd
    }

    /// `git <args>` in the working folder, as the binary's children run it.
    pub fn git(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = command(Path::new("git"));
        cmd.current_dir(self.cwd())
            .env("GIT_CONFIG_GLOBAL", self.home().join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Interop")
            .env("GIT_AUTHOR_EMAIL", "interop@example.com")
            .env("GIT_COMMITTER_NAME", "Interop")
            .env("GIT_COMMITTER_EMAIL", "interop@example.com")
            .args(args);
        cmd
    }

    /// The rollout files recorded under the home, oldest first.
    pub fn rollouts(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        collect_jsonl(&self.home().join("sessions"), &mut found);
        found.sort();
        found
    }
}

fn collect_jsonl(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_jsonl(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
            found.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Route;
    use super::WireApi;

    #[test]
    fn a_route_is_one_provider_entry_with_its_window() {
        let route = Route {
            label: "litellm/anthropic/smollm2".into(),
            wire: WireApi::Anthropic,
            base_url: "http://127.0.0.1:4000".into(),
            model: "smollm2".into(),
            api_key: Some("k".into()),
            context_window: 4096,
            max_output_tokens: Some(256),
        };
        assert_eq!(
            route.config_toml(),
            "model = \"smollm2\"\nmodel_provider = \"interop\"\n\n[model_providers.interop]\nname = \"litellm/anthropic/smollm2\"\nbase_url = \"http://127.0.0.1:4000\"\nwire_api = \"anthropic\"\nenv_key = \"AGENTCTX_INTEROP_API_KEY\"\nmax_concurrent_requests = 1\nprompt_cache_breakpoints = false\n\n[model_providers.interop.models.\"smollm2\"]\ncontext_window = 4096\nmax_output_tokens = 256\n"
        );
    }
}
