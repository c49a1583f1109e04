//! Integration tests of the `agentctx` binary (one binary; modules under `tests/suite/`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod compact;
    mod compact_survival;
    mod config;
    mod long_sessions;
    mod loop_command;
    mod mcp;
    mod memory;
    mod memory_kill;
    mod memory_sessions;
    mod provider_hosts;
    mod queued_commands_pty;
    mod replay;
    mod replay_live_requests;
    mod replay_reminders_config;
    mod replay_requests;
    mod report;
    mod report_browser;
    mod report_history;
    mod report_long_sessions;
    mod report_usage;
    mod run;
    mod run_cancel;
    mod run_failures;
    mod run_mock;
    mod run_resume;
    mod run_slash;
    mod skills;
}
