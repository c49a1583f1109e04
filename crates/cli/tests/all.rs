//! Integration tests of the `agentctx` binary (one binary; modules under `tests/suite/`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod compact;
    mod config;
    mod mcp;
    mod memory;
    mod memory_kill;
    mod memory_sessions;
    mod replay;
    mod replay_reminders_config;
    mod replay_requests;
    mod skills;
}
