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
    assert_schema_fresh::<ResponseItem>(
        env!("CARGO_MANIFEST_DIR"),
        "schema/response-item.schema.json",
    );
    assert_schema_fresh::<TokenUsageInfo>(
        env!("CARGO_MANIFEST_DIR"),
        "schema/token-usage-info.schema.json",
    );
    assert_schema_fresh::<TodoItem>(env!("CARGO_MANIFEST_DIR"), "schema/todo-item.schema.json");
    assert_schema_fresh::<LoopEvent>(env!("CARGO_MANIFEST_DIR"), "schema/loop-event.schema.json");
}
