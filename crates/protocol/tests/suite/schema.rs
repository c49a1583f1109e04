//! The committed JSON schema of the protocol types must match the code.
//!
//! Regenerate with `cargo xtask schema` (which sets `AGENTCTX_UPDATE_SCHEMAS=1` for this test).

use std::path::PathBuf;

use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TokenUsageInfo;
use pretty_assertions::assert_eq;
use schemars::schema_for;

fn check(name: &str, generated: serde_json::Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/schema")
        .join(format!("{name}.schema.json"));
    let generated = format!("{}\n", serde_json::to_string_pretty(&generated).unwrap());
    if std::env::var_os("AGENTCTX_UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        committed,
        generated,
        "{} is stale: run `cargo xtask schema`",
        path.display()
    );
}

#[test]
fn schema_is_fresh() {
    check(
        "response-item",
        serde_json::to_value(schema_for!(ResponseItem)).unwrap(),
    );
    check(
        "token-usage-info",
        serde_json::to_value(schema_for!(TokenUsageInfo)).unwrap(),
    );
    check(
        "todo-item",
        serde_json::to_value(schema_for!(TodoItem)).unwrap(),
    );
    check(
        "loop-event",
        serde_json::to_value(schema_for!(LoopEvent)).unwrap(),
    );
}
