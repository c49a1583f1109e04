//! The interop suite: the `agentctx` binary against real third-party servers on loopback ports
//! (llama-cpp-python with SmolLM2-135M-Instruct, the LiteLLM proxy in the three wire formats)
//! and the pyright language server. A 135M model writes poor text: the tests assert protocol,
//! accounting, compaction and error behaviour, never what the model says.
//!
//! Skipped with a printed reason when the servers are not installed (`cargo xtask tools
//! interop-servers`) and `AGENTCTX_REQUIRE_INTEROP` is unset; `cargo xtask ci` runs it in its
//! own step with the release binary.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod support;

    mod compact_and_memory;
    mod litellm_formats;
    mod llama_chat;
    mod loop_command;
    mod lsp_diagnostics;
    mod small_window;
}
