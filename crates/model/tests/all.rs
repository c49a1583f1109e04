//! Integration tests of agentctx-model (one binary; modules under `tests/suite/`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod anthropic_context_management;
    mod anthropic_messages;
    mod bad_events;
    mod chat_completions;
    mod empty_answers;
    mod reconnect;
    mod remote_compaction;
    mod request_limit;
    mod responses;
    mod retries;
    mod schema;
    mod scripted;
    mod structured;
    pub(crate) mod support;
    mod transport;
}
