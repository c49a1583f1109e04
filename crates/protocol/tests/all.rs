//! Integration tests of agentctx-protocol (one binary; modules under `tests/suite/`).

mod suite {
    mod reminder_tags;
    mod round_trip;
}
