//! The committed JSON schema of this crate's config must match the code.
//!
//! Regenerate with `cargo xtask schema`.

use agentctx_loop_driver::LoopConfig;
use agentctx_test_support::assert_schema_fresh;

#[test]
fn schema_is_fresh() {
    assert_schema_fresh::<LoopConfig>(env!("CARGO_MANIFEST_DIR"), "config.schema.json");
}
