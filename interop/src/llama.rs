//! llama-cpp-python's OpenAI-compatible server running SmolLM2-135M-Instruct.
//!
//! Started as `python -m llama_cpp.server --model <gguf> --n_ctx <window>` (the server's
//! settings are its command-line flags; see llama-cpp-python's `llama_cpp/server/settings.py`).
//! The model's own chat template (from the GGUF metadata) formats the messages, so request
//! shapes a strict template rejects fail here as they do for users.

use std::time::Duration;

use crate::error::InteropError;
use crate::process::ServerProcess;
use crate::process::command;
use crate::process::free_port;
use crate::tools::Tools;

/// How long the server may take to load the model.
const READY_WITHIN: Duration = Duration::from_secs(120);

/// A running llama.cpp server.
#[derive(Debug)]
pub struct LlamaServer {
    /// Its process.
    pub process: ServerProcess,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The context window it was started with (`n_ctx`).
    pub n_ctx: u32,
}

impl LlamaServer {
    /// Starts the server with a context window of `n_ctx` tokens and waits until it serves
    /// `/v1/models`.
    pub fn start(tools: &Tools, n_ctx: u32) -> Result<Self, InteropError> {
        let port = free_port()?;
        let mut cmd = command(&tools.llama_python);
        cmd.args(["-m", "llama_cpp.server", "--model"])
            .arg(&tools.model_gguf)
            .args(["--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .args(["--n_ctx", &n_ctx.to_string()])
            // One request at a time, as a laptop user runs it; two threads for two cores.
            .args(["--n_threads", "2"])
            // A fixed sampling seed (the server's default draws one at random): the same
            // prompt gets the same answer, so a run's length does not depend on luck (a
            // `memory build` that rambled took 368 s once, 20 s on the next run).
            .args(["--seed", "7"]);
        let mut process = ServerProcess::spawn("llama-cpp-python", cmd)?;
        process.wait_ready(port, READY_WITHIN)?;
        Ok(Self {
            process,
            port,
            n_ctx,
        })
    }

    /// The OpenAI-compatible base URL (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}
