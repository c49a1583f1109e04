#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

//! The integration tests of `agentctx-engine`, one binary; modules live in `tests/suite/`.

mod suite;
