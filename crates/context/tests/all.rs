#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code fails loudly"
)]

mod suite {
    mod bounded_tool_output;
    mod context_manager_props;
    mod function_output_props;
    mod history_concurrency;
    mod truncation_props;
}
