//! Integration tests of agentctx-rollout (one binary; modules under `tests/suite/`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod bounded_memory;
    mod claude_attachments;
    mod claude_branches;
    mod claude_harness;
    mod claude_import;
    mod claude_lines;
    mod codex_newer_lines;
    mod corrupt_lines;
    mod discovery;
    mod format_detection;
    mod legacy;
    mod never_panics;
    mod path_safety;
    mod reader_edges;
    mod recorder;
    mod render;
    mod same_as_before;
}
