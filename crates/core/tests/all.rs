//! The integration tests of agentctx-core: one binary, modules under `tests/suite/`.

mod suite {
    mod anthropic;
    mod resume;
    mod responses;
    mod subagents;
    mod support;
}
