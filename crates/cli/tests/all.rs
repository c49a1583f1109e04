//! Integration tests of the `agentctx` binary (one binary; modules under `tests/suite/`).

mod suite {
    mod skills;
}
