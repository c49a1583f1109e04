//! Integration tests of agentctx-protocol (one binary; modules under `tests/suite/`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod reminder_tags;
    mod round_trip;
    mod schema;
}
