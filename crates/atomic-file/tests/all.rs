//! The integration tests of `agentctx-atomic-file`: one binary, modules under `tests/suite/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite;
