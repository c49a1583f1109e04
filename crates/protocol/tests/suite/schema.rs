//! The committed JSON schemas of the protocol types must match the code.
//!
//! Regenerate with `cargo xtask schema`.

use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TokenUsageInfo;
use agentctx_test_support::assert_schema_fresh;

#[test]
fn schema_is_fresh() {
    assert_schema_fresh::<ResponseItem>("response-item");
    assert_schema_fresh::<TokenUsageInfo>("token-usage-info");
    assert_schema_fresh::<TodoItem>("todo-item");
    assert_schema_fresh::<LoopEvent>("loop-event");
}
