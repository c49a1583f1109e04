//! The LiteLLM proxy in front of Chat Completions backends.
//!
//! Each backend is a `model_list` entry `custom_openai/<name>` with its `api_base`: with the
//! `custom_openai` prefix LiteLLM translates Responses (`/v1/responses`) and Anthropic Messages
//! (`/v1/messages`) requests into chat completions for the backend, where `openai/<name>` would
//! forward `/v1/responses` unchanged (llama-cpp-python has no such route). `num_retries: 0` keeps
//! LiteLLM's retries from hiding ours. LiteLLM 1.108 refuses to start without
//! `LITELLM_MASTER_KEY`, and needs `LITELLM_LOCAL_MODEL_COST_MAP=True` where there is no network
//! (it fetches its price table at start otherwise).

use std::time::Duration;

use crate::error::InteropError;
use crate::process::ServerProcess;
use crate::process::command;
use crate::process::free_port;
use crate::tools::Tools;

/// The proxy's master key; clients send it as their API key.
pub(crate) const MASTER_KEY: &str = "sk-agentctx-interop";

/// How long the proxy may take to import and start.
const READY_WITHIN: Duration = Duration::from_secs(180);

/// A running LiteLLM proxy.
#[derive(Debug)]
pub struct LiteLlm {
    /// Its process.
    pub process: ServerProcess,
    /// Its port on 127.0.0.1.
    pub port: u16,
    // The config file's folder, kept for the proxy's lifetime.
    _config_dir: tempfile::TempDir,
}

impl LiteLlm {
    /// Starts the proxy serving `backends` (model name, Chat Completions base URL ending in
    /// `/v1`) and waits until it is live.
    pub fn start(tools: &Tools, backends: &[(&str, String)]) -> Result<Self, InteropError> {
        let port = free_port()?;
        let config_dir =
            tempfile::tempdir().map_err(InteropError::io("cannot create the config dir"))?;
        let config_path = config_dir.path().join("litellm.yaml");
        std::fs::write(&config_path, config_yaml(backends))
            .map_err(InteropError::io("cannot write the LiteLLM config"))?;
        let mut cmd = command(&tools.litellm);
        cmd.arg("--config")
            .arg(&config_path)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--num_workers", "1"])
            .env("LITELLM_MASTER_KEY", MASTER_KEY)
            .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            .env("LITELLM_TELEMETRY", "False")
            .env("NO_DOCS", "True")
            .current_dir(config_dir.path());
        let mut process = ServerProcess::spawn("litellm", cmd)?;
        process.wait_ready(port, READY_WITHIN)?;
        Ok(Self {
            process,
            port,
            _config_dir: config_dir,
        })
    }

    /// The OpenAI-style base URL (`…/v1`), for the Chat Completions and Responses formats.
    pub fn openai_base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The Anthropic-style base URL (the client appends `/v1/messages`).
    pub fn anthropic_base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// The proxy's `config.yaml` for `backends`.
pub(crate) fn config_yaml(backends: &[(&str, String)]) -> String {
    let mut yaml = String::from("model_list:\n");
    for (name, api_base) in backends {
        yaml.push_str(&format!(
            "  - model_name: {name}\n    litellm_params:\n      model: custom_openai/{name}\n      api_base: {api_base}\n      api_key: none\n"
        ));
    }
    yaml.push_str("litellm_settings:\n  num_retries: 0\n  request_timeout: 300\n");
    yaml
}

#[cfg(test)]
mod tests {
    use super::config_yaml;

    #[test]
    fn each_backend_is_a_custom_openai_model_and_litellm_does_not_retry() {
        let yaml = config_yaml(&[("smollm2", "http://127.0.0.1:1/v1".to_string())]);
        assert_eq!(
            yaml,
            "model_list:\n  - model_name: smollm2\n    litellm_params:\n      model: custom_openai/smollm2\n      api_base: http://127.0.0.1:1/v1\n      api_key: none\nlitellm_settings:\n  num_retries: 0\n  request_timeout: 300\n"
        );
    }
}
