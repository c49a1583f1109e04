//! The interop suite's harness: real third-party servers on loopback ports, and the `agentctx`
//! binary pointed at them.
//!
//! Every other provider test of the workspace runs against servers we wrote (wiremock fixtures),
//! so it can only confirm our own reading of the wire formats. This crate starts servers that
//! other people wrote and drives the shipped binary against them:
//!
//! - [`LlamaServer`]: llama-cpp-python's OpenAI-compatible server running SmolLM2-135M-Instruct
//!   (a real model, with a real chat template and a real context window);
//! - [`LiteLlm`]: the LiteLLM proxy, an independent implementation of the Chat Completions,
//!   Responses and Anthropic Messages formats, translating each into chat completions for the
//!   backends behind it;
//! - [`ScriptedChat`]: a deterministic Chat Completions backend behind LiteLLM that answers with
//!   tool calls, because the 135M model never calls tools on its own and llama-cpp-python does
//!   not stream tool calls with automatic tool choice; the binary also talks to it directly
//!   where the server under test is another (pyright, for the diagnostics test).
//!
//! The servers are installed by `cargo xtask tools interop-servers` into `target/tools/python`
//! ([`Tools::locate`] finds them); the tests live in `tests/` and run in their own CI step
//! (`cargo xtask ci`, step "interop"). See docs/design/interop.md.
//!
//! ```no_run
//! use agentctx_interop::{Agentctx, LlamaServer, Route, Tools};
//!
//! let tools = Tools::locate()?;
//! let llama = LlamaServer::start(&tools, 4096)?;
//! let agentctx = Agentctx::new(&tools, &Route::llama(&llama, 4096))?;
//! let output = agentctx.command(&["run", "Say hello."]).output()?;
//! assert!(output.status.success());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod agentctx;
mod error;
mod litellm;
mod llama;
mod process;
mod scripted_chat;
mod tools;

pub use agentctx::Agentctx;
pub use agentctx::DEFAULT_MAX_OUTPUT_TOKENS;
pub use agentctx::Route;
pub use agentctx::WireApi;
pub use error::InteropError;
pub use litellm::LiteLlm;
pub use llama::LlamaServer;
pub use process::ServerProcess;
pub use process::free_port;
pub use scripted_chat::ScriptedChat;
pub use scripted_chat::ScriptedReply;
pub use tools::Tools;
