//! The integration tests of `agentctx-lsp`: one binary, modules under `tests/suite/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    reason = "test code fails loudly and says why it skips"
)]

mod suite;
