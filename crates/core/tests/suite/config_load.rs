//! `Config::load`: `config.toml` under a home directory, the environment switches over it, and
//! the source of every effective value.

use agentctx_core::Config;
use agentctx_core::ConfigError;
use agentctx_core::EnvVars;
use agentctx_core::ValueSource;
use pretty_assertions::assert_eq;
use serde_json::json;

fn home_with(config: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    home
}

#[test]
fn without_a_file_every_value_is_the_default() {
    let home = tempfile::tempdir().unwrap();
    let loaded = Config::load(home.path(), &EnvVars::new()).unwrap();
    assert!(!loaded.file_exists);
    assert_eq!(loaded.config, Config::default());
    assert!(
        loaded
            .values()
            .iter()
            .all(|value| value.source == ValueSource::Default)
    );
}

#[test]
fn each_value_names_its_source() {
    let home = home_with(
        "model = \"gpt-5\"\n\n[system_reminder]\nenable_token_usage = false\n\n[compact]\nmicro_compact = false\n",
    );
    let env = EnvVars::from_pairs([
        ("AGENTCTX_ENABLE_TOKEN_USAGE", "1"),
        ("OPENAI_API_KEY", "not a switch"),
    ]);
    let loaded = Config::load(home.path(), &env).unwrap();
    let file = home.path().join("config.toml");
    let value = |key: &str| {
        loaded
            .values()
            .iter()
            .find(|value| value.key == key)
            .unwrap_or_else(|| panic!("no {key}"))
            .clone()
    };
    assert_eq!(value("model").value, json!("gpt-5"));
    assert_eq!(
        value("model").source,
        ValueSource::File {
            path: file.clone(),
            line: 1
        }
    );
    // The variable wins over the file.
    assert_eq!(
        value("system_reminder.enable_token_usage").value,
        json!(true)
    );
    assert_eq!(
        value("system_reminder.enable_token_usage").source,
        ValueSource::Env {
            var: "AGENTCTX_ENABLE_TOKEN_USAGE".to_string()
        }
    );
    assert_eq!(
        value("compact.micro_compact").source,
        ValueSource::File {
            path: file,
            line: 7
        }
    );
    assert_eq!(value("compact.auto_compact").source, ValueSource::Default);
    assert_eq!(value("compact.auto_compact").source.to_string(), "default");
}

#[test]
fn a_bad_value_names_the_file_the_line_and_the_key() {
    let home = home_with("[compact]\nauto_compact = true\nmin_messages_before_compact = -3\n");
    let err = Config::load(home.path(), &EnvVars::new()).unwrap_err();
    let ConfigError::Invalid {
        path, line, key, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(path, &home.path().join("config.toml"));
    assert_eq!(*line, Some(3));
    assert_eq!(key.as_deref(), Some("compact.min_messages_before_compact"));
}

#[test]
fn a_bad_environment_value_names_the_variable() {
    let home = tempfile::tempdir().unwrap();
    let env = EnvVars::from_pairs([("AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE", "150")]);
    let err = Config::load(home.path(), &env).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "invalid value \"150\" for environment variable AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE"
        ),
        "{err}"
    );
}

#[test]
fn the_provider_in_use_follows_the_ecosystem_variables() {
    let home = home_with("model_provider = \"ollama\"\nmodel = \"qwen3:8b\"\n");
    let env = EnvVars::from_pairs([("OLLAMA_HOST", "gpu-box")]);
    let loaded = Config::load(home.path(), &env).unwrap();
    let provider = loaded.config.model.resolve_provider(&env.lookup()).unwrap();
    assert_eq!(provider.config.base_url, "http://gpu-box:11434/v1");
}
