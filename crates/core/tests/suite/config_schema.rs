//! The committed JSON schema of the aggregated `config.toml` must match the code.
//!
//! Regenerate with `cargo xtask schema` (or `AGENTCTX_UPDATE_SCHEMAS=1`).

use agentctx_core::Config;
use agentctx_test_support::assert_schema_fresh;
use agentctx_test_support::generated_schema;
use pretty_assertions::assert_eq;

#[test]
fn schema_is_fresh() {
    assert_schema_fresh::<Config>(env!("CARGO_MANIFEST_DIR"), "config.schema.json");
}

#[test]
fn the_printed_schema_is_the_committed_one() {
    assert_eq!(Config::json_schema().unwrap(), generated_schema::<Config>());
}

#[test]
fn the_schema_has_every_crates_section() {
    let schema: serde_json::Value = serde_json::from_str(&Config::json_schema().unwrap()).unwrap();
    let properties = schema["properties"].as_object().unwrap();
    for key in [
        "model",
        "model_provider",
        "model_providers",
        "thinking",
        "system_reminder",
        "compact",
        "skills",
        "memory",
        "hooks",
        "loop",
    ] {
        assert!(properties.contains_key(key), "missing {key}");
    }
}
