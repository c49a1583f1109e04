//! The committed JSON schema of this crate's config must match the code.
//!
//! Regenerate with `cargo xtask schema` (which sets `AGENTCTX_UPDATE_SCHEMAS=1` for this test).

use std::path::PathBuf;

use pretty_assertions::assert_eq;

#[test]
fn schema_is_fresh() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/schema/model-config.schema.json");
    let schema = schemars::schema_for!(agentctx_model::ModelConfig);
    let generated = format!("{}\n", serde_json::to_string_pretty(&schema).unwrap());
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
