#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

//! The integration tests of `agentctx-reminders`, one binary; modules live in `tests/suite/`.

mod suite {
    mod bounded_changed_files;
    mod config;
    mod generators_catalogue;
    mod generators_throttled;
    mod multi_llm;
    mod orchestrator;
    mod prompt_flow;
    mod schema;
    mod scripted;
    mod standing;
    mod tool_results;
    mod types;
}
