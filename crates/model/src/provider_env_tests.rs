use std::collections::HashMap;

use pretty_assertions::assert_eq;

use super::BaseUrlSource;
use super::ollama_host_url;
use crate::error::ModelError;
use crate::provider_config::ModelConfig;

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(name, value)| ((*name).to_string(), (*value).to_string()))
        .collect();
    move |name| vars.get(name).cloned()
}

fn config(provider: &str) -> ModelConfig {
    ModelConfig {
        model_provider: Some(provider.to_string()),
        ..ModelConfig::default()
    }
}

#[test]
fn ollama_host_is_read_as_the_ollama_client_reads_it() {
    for (value, url) in [
        ("", "http://127.0.0.1:11434"),
        ("1.2.3.4", "http://1.2.3.4:11434"),
        (":56789", "http://127.0.0.1:56789"),
        ("1.2.3.4:56789", "http://1.2.3.4:56789"),
        ("http://1.2.3.4", "http://1.2.3.4:80"),
        ("https://example.com", "https://example.com:443"),
        ("https://example.com:56789", "https://example.com:56789"),
        ("example.com/", "http://example.com:11434"),
        ("example.com:56789/path/", "http://example.com:56789/path"),
        (
            "[0001:002:003:0004::1]",
            "http://[0001:002:003:0004::1]:11434",
        ),
        (
            "[0001:002:003:0004::1]:56789/path",
            "http://[0001:002:003:0004::1]:56789/path",
        ),
    ] {
        assert_eq!(ollama_host_url(value), url, "OLLAMA_HOST={value:?}");
    }
}

#[test]
fn the_presets_take_their_base_url_from_the_ecosystem_variables() {
    let vars = env(&[
        ("OPENAI_BASE_URL", "http://127.0.0.1:9000/v1"),
        ("ANTHROPIC_BASE_URL", "https://proxy.example/anthropic"),
        ("OLLAMA_HOST", "gpu-box:11500"),
    ]);
    let openai = config("openai").resolve_provider(&vars).unwrap();
    assert_eq!(openai.config.base_url, "http://127.0.0.1:9000/v1");
    assert_eq!(
        openai.base_url_source,
        BaseUrlSource::Env("OPENAI_BASE_URL")
    );
    let anthropic = config("anthropic").resolve_provider(&vars).unwrap();
    assert_eq!(anthropic.config.base_url, "https://proxy.example/anthropic");
    assert_eq!(
        anthropic.config.endpoint_url().unwrap().as_str(),
        "https://proxy.example/anthropic/v1/messages"
    );
    let ollama = config("ollama").resolve_provider(&vars).unwrap();
    assert_eq!(ollama.config.base_url, "http://gpu-box:11500/v1");
    assert_eq!(ollama.base_url_source, BaseUrlSource::Env("OLLAMA_HOST"));
}

#[test]
fn without_the_variables_the_presets_keep_their_defaults() {
    let none = env(&[("OPENAI_BASE_URL", "  ")]);
    let openai = ModelConfig::default().resolve_provider(&none).unwrap();
    assert_eq!(openai.id, "openai");
    assert_eq!(openai.config.base_url, "https://api.openai.com/v1");
    assert_eq!(openai.base_url_source, BaseUrlSource::Preset);
    let anthropic = config("anthropic").resolve_provider(&none).unwrap();
    assert_eq!(anthropic.config.base_url, "https://api.anthropic.com");
    let ollama = config("ollama").resolve_provider(&none).unwrap();
    assert_eq!(ollama.config.base_url, "http://localhost:11434/v1");
}

#[test]
fn a_configured_provider_is_used_as_written() {
    let mut model = config("openai");
    model.model_providers.insert(
        "openai".to_string(),
        crate::provider_config::ProviderEntry {
            base_url: Some("https://gateway.example/v1".to_string()),
            ..Default::default()
        },
    );
    let resolved = model
        .resolve_provider(&env(&[("OPENAI_BASE_URL", "http://ignored/v1")]))
        .unwrap();
    assert_eq!(resolved.config.base_url, "https://gateway.example/v1");
    assert_eq!(resolved.base_url_source, BaseUrlSource::Config);
}

#[test]
fn a_missing_key_is_one_line_naming_the_variable() {
    let resolved = config("anthropic").resolve_provider(&env(&[])).unwrap();
    let err = resolved.api_key(&env(&[])).unwrap_err();
    assert!(matches!(err, ModelError::MissingApiKey { .. }));
    assert_eq!(
        err.to_string(),
        "provider `Anthropic` needs an api key: set the environment variable `ANTHROPIC_API_KEY`"
    );
    let openai = config("openai").resolve_provider(&env(&[])).unwrap();
    assert_eq!(
        openai
            .api_key(&env(&[("OPENAI_API_KEY", "sk-test")]))
            .unwrap(),
        Some("sk-test".to_string())
    );
    let ollama = config("ollama").resolve_provider(&env(&[])).unwrap();
    assert_eq!(ollama.api_key(&env(&[])).unwrap(), None);
}

#[test]
fn a_base_url_that_does_not_parse_names_the_variable() {
    let err = config("openai")
        .resolve_provider(&env(&[("OPENAI_BASE_URL", "not a url")]))
        .unwrap_err();
    assert!(err.to_string().contains("OPENAI_BASE_URL"), "{err}");
}
