//! Integration tests of agentctx-skills (one binary; modules under `tests/suite/`), run
//! against the fixture tree in `tests/fixtures/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod cache;
    mod fixture;
    mod kill_during_save;
    mod loading;
    mod registry;
    mod running;
    mod schema;
}
