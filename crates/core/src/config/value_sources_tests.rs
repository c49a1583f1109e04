use std::collections::BTreeMap;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::ValueSource;
use super::attribute;
use super::leaves;
use crate::config::Config;
use crate::config::EnvVars;

fn source_of(values: &[super::ConfigValue], key: &str) -> ValueSource {
    values
        .iter()
        .find(|value| value.key == key)
        .unwrap_or_else(|| panic!("no key {key}"))
        .source
        .clone()
}

#[test]
fn leaves_are_dotted_keys_with_json_values() {
    let leaves = leaves(&Config::default());
    assert_eq!(leaves.get("system_reminder.enabled"), Some(&json!(true)));
    assert_eq!(leaves.get("model"), Some(&json!(null)));
    assert_eq!(leaves.get("model_providers"), Some(&json!({})));
    assert_eq!(leaves.get("skills.disabled"), Some(&json!([])));
}

#[test]
fn the_winning_variable_is_named_and_the_agentctx_name_ranks_first() {
    let file_config = Config::default();
    let env = EnvVars::from_pairs([
        ("CODEX_ENABLE_TOKEN_USAGE", "1"),
        ("AGENTCTX_ENABLE_TOKEN_USAGE", "1"),
        ("AGENTCTX_DISABLE_AUTO_COMPACT", "yes"),
        ("UNRELATED", "1"),
    ]);
    let mut config = file_config.clone();
    config.apply_env(&env).unwrap();
    let values = attribute(
        &config,
        &file_config,
        &BTreeMap::new(),
        Path::new("config.toml"),
        &env,
    );
    assert_eq!(
        source_of(&values, "system_reminder.enable_token_usage"),
        ValueSource::Env {
            var: "AGENTCTX_ENABLE_TOKEN_USAGE".to_string()
        }
    );
    assert_eq!(
        source_of(&values, "compact.auto_compact"),
        ValueSource::Env {
            var: "AGENTCTX_DISABLE_AUTO_COMPACT".to_string()
        }
    );
    assert_eq!(source_of(&values, "compact.enabled"), ValueSource::Default);
}

#[test]
fn the_token_budget_is_shown_with_its_value_and_source() {
    let file_config = Config::default();
    let values = attribute(
        &file_config,
        &file_config,
        &BTreeMap::new(),
        Path::new("config.toml"),
        &EnvVars::new(),
    );
    let budget = values
        .iter()
        .find(|value| value.key == "compact.auto_compact_tokens")
        .unwrap();
    assert_eq!(
        (&budget.value, &budget.source),
        (&json!("auto"), &ValueSource::Default)
    );

    let env = EnvVars::from_pairs([("AGENTCTX_AUTO_COMPACT_TOKENS", "400000")]);
    let mut config = file_config.clone();
    config.apply_env(&env).unwrap();
    let values = attribute(
        &config,
        &file_config,
        &BTreeMap::new(),
        Path::new("config.toml"),
        &env,
    );
    let budget = values
        .iter()
        .find(|value| value.key == "compact.auto_compact_tokens")
        .unwrap();
    assert_eq!(budget.value, json!(400_000));
    assert_eq!(
        budget.source,
        ValueSource::Env {
            var: "AGENTCTX_AUTO_COMPACT_TOKENS".to_string()
        }
    );
}
