use std::collections::BTreeMap;
use std::collections::HashMap;
use std::time::Duration;

use pretty_assertions::assert_eq;

use super::*;

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn toml_model_providers_parse_with_defaults() {
    let config: ModelConfig = toml::from_str(
        r#"
model = "qwen3:8b"
model_provider = "local-vllm"

[model_providers.local-vllm]
name = "vLLM"
base_url = "http://gpu-box:8000/v1"
env_key = "VLLM_API_KEY"
wire_api = "chat"
http_headers = { "X-Team" = "agents" }
env_http_headers = { "X-Org" = "ORG_ID" }
query_params = { "api-version" = "2025-04-01" }
stream_idle_timeout_ms = 0

[model_providers.local-vllm.models."qwen3:8b"]
context_window = 40960
max_output_tokens = 8192
supports_reasoning = true

[model_providers.local-vllm.models."qwen3:8b".thinking_override]
supported_levels = ["deep_think"]
max_budget = 12000

[thinking]
default_level = "deep_think"
[thinking.keywords]
deepthink = ["deepthink", "think deeper"]
"#,
    )
    .unwrap();
    assert_eq!(config.provider_id(), "local-vllm");
    let provider = config.provider("local-vllm").unwrap();
    assert_eq!(provider.wire_api, WireApi::Chat);
    assert_eq!(provider.request_max_retries(), DEFAULT_REQUEST_MAX_RETRIES);
    assert_eq!(provider.stream_max_retries(), DEFAULT_STREAM_MAX_RETRIES);
    assert_eq!(provider.stream_idle_timeout(), None);
    assert_eq!(
        provider.endpoint_url().unwrap().as_str(),
        "http://gpu-box:8000/v1/chat/completions?api-version=2025-04-01"
    );
    let info = provider.model_info("qwen3:8b");
    assert_eq!(info.context_window, 40_960);
    assert_eq!(info.max_output_tokens, Some(8_192));
    assert_eq!(
        info.thinking_override,
        Some(ThinkingCapabilityOverride {
            supported_levels: vec![ThinkingLevel::DeepThink],
            default_level: None,
            max_budget: Some(12_000),
            budget_by_level: None,
        })
    );
    assert_eq!(
        config.thinking.default_level,
        Some(ThinkingLevel::DeepThink)
    );
    assert_eq!(
        config.thinking.keywords.deepthink_keywords,
        vec!["deepthink".to_string(), "think deeper".to_string()]
    );
    // Unset keyword lists keep their default.
    assert_eq!(
        config.thinking.keywords.ultrathink_keywords,
        vec!["ultrathink".to_string()]
    );
}

#[test]
fn built_in_presets() {
    let openai = ProviderConfig::openai();
    assert_eq!(
        openai.endpoint_url().unwrap().as_str(),
        "https://api.openai.com/v1/responses"
    );
    assert_eq!(openai.env_key.as_deref(), Some("OPENAI_API_KEY"));
    let ollama = ModelConfig::default().provider("ollama").unwrap();
    assert_eq!(
        ollama.endpoint_url().unwrap().as_str(),
        "http://localhost:11434/v1/chat/completions"
    );
    assert_eq!(ollama.env_key, None);
    let lmstudio = ProviderConfig::lmstudio();
    assert_eq!(
        lmstudio.endpoint_url().unwrap().as_str(),
        "http://localhost:1234/v1/chat/completions"
    );
    let anthropic = ProviderConfig::anthropic();
    assert_eq!(
        anthropic.endpoint_url().unwrap().as_str(),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        anthropic.http_headers,
        BTreeMap::from([("anthropic-version".to_string(), "2023-06-01".to_string())])
    );
    assert_eq!(
        openai.stream_idle_timeout(),
        Some(Duration::from_millis(300_000))
    );
}

#[test]
fn a_provider_entry_is_laid_over_the_preset_and_unknown_is_an_error() {
    let mut config = ModelConfig::default();
    config.model_providers.insert(
        "ollama".to_string(),
        ProviderEntry {
            base_url: Some("http://other:11434/v1".to_string()),
            ..ProviderEntry::default()
        },
    );
    let ollama = config.provider("ollama").unwrap();
    assert_eq!(ollama.base_url, "http://other:11434/v1");
    // What the entry does not set is the preset's.
    assert_eq!(ollama.wire_api, WireApi::Chat);
    assert_eq!(ollama.name, "Ollama");
    assert_eq!(ollama.system_messages, Some(SystemMessageMode::AsUser));
    let error = config.provider("nope").unwrap_err();
    assert!(
        error.to_string().contains("unknown model provider `nope`"),
        "{error}"
    );
}

#[test]
fn a_model_window_alone_under_a_preset_keeps_its_url_wire_and_key() {
    let config: ModelConfig = toml::from_str(
        "[model_providers.ollama.models.\"qwen3\"]\ncontext_window = 8192\n\n\
         [model_providers.openai]\nhttp_headers = { \"X-Team\" = \"agents\" }\n\
         [model_providers.openai.models.\"gpt-5\"]\nmax_output_tokens = 1000\n",
    )
    .unwrap();
    let ollama = config.provider("ollama").unwrap();
    assert_eq!(ollama.base_url, "http://localhost:11434/v1");
    assert_eq!(ollama.wire_api, WireApi::Chat);
    assert_eq!(ollama.model_info("qwen3:8b").context_window, 8192);
    let openai = config.provider("openai").unwrap();
    assert_eq!(openai.base_url, "https://api.openai.com/v1");
    assert_eq!(openai.env_key.as_deref(), Some("OPENAI_API_KEY"));
    assert_eq!(
        openai.http_headers.get("X-Team").map(String::as_str),
        Some("agents")
    );
    // The row keeps the table's window and efforts; only the output limit changed.
    let gpt5 = openai.model_info("gpt-5");
    assert_eq!(gpt5.max_output_tokens, Some(1000));
    assert_eq!(gpt5.context_window, 272_000);
    assert!(!gpt5.reasoning_efforts.is_empty());
}

#[test]
fn an_empty_env_key_makes_a_preset_keyless_and_a_custom_id_names_itself() {
    let config: ModelConfig = toml::from_str(
        "[model_providers.openai]\nbase_url = \"http://127.0.0.1:8080/v1\"\nenv_key = \"\"\n\
         [model_providers.box]\nbase_url = \"http://box/v1\"\nenv_key = \"BOX_KEY\"\n",
    )
    .unwrap();
    assert_eq!(config.provider("openai").unwrap().env_key, None);
    let custom = config.provider("box").unwrap();
    assert_eq!(custom.name, "box");
    assert_eq!(custom.wire_api, WireApi::Responses);
}

#[test]
fn api_key_comes_from_the_lookup_function() {
    let openai = ProviderConfig::openai();
    assert_eq!(
        openai
            .api_key(&env_of(&[("OPENAI_API_KEY", " sk-test ")]))
            .unwrap(),
        Some("sk-test".to_string())
    );
    assert_eq!(
        openai.api_key(&env_of(&[])).unwrap_err(),
        ModelError::MissingApiKey {
            provider: "OpenAI".to_string(),
            env_key: "OPENAI_API_KEY".to_string()
        }
    );
    assert_eq!(
        openai
            .api_key(&env_of(&[("OPENAI_API_KEY", "")]))
            .unwrap_err(),
        ModelError::MissingApiKey {
            provider: "OpenAI".to_string(),
            env_key: "OPENAI_API_KEY".to_string()
        }
    );
    assert_eq!(
        ProviderConfig::ollama().api_key(&env_of(&[])).unwrap(),
        None
    );
}

#[test]
fn model_info_longest_prefix_then_default() {
    let openai = ProviderConfig::openai();
    assert_eq!(openai.model_info("gpt-5-codex").context_window, 272_000);
    assert_eq!(
        openai.model_info("gpt-5-2025-08-07").context_window,
        272_000
    );
    assert_eq!(
        openai.model_info("gpt-4.1-mini").supports_reasoning,
        Some(false)
    );
    assert_eq!(openai.model_info("mystery"), ModelInfo::default());
    assert_eq!(
        ModelInfo::default().context_window,
        crate::model_info::DEFAULT_CONTEXT_WINDOW
    );
}

#[test]
fn retries_are_capped() {
    let provider = ProviderConfig {
        request_max_retries: Some(10_000),
        stream_max_retries: Some(3),
        ..ProviderConfig::default()
    };
    assert_eq!(provider.request_max_retries(), MAX_RETRIES_CAP);
    assert_eq!(provider.stream_max_retries(), 3);
}

#[test]
fn bad_base_url_is_a_config_error() {
    let provider = ProviderConfig {
        name: "broken".to_string(),
        base_url: "not a url".to_string(),
        ..ProviderConfig::default()
    };
    assert!(matches!(
        provider.endpoint_url(),
        Err(ModelError::Config { .. })
    ));
}

#[test]
fn config_has_a_json_schema() {
    let schema = serde_json::to_value(schemars::schema_for!(ModelConfig)).unwrap();
    let providers = &schema["definitions"]["ProviderEntry"]["properties"];
    for field in [
        "name",
        "base_url",
        "env_key",
        "wire_api",
        "http_headers",
        "env_http_headers",
        "query_params",
        "request_max_retries",
        "stream_max_retries",
        "stream_idle_timeout_ms",
        "models",
        "system_messages",
        "prompt_cache_breakpoints",
    ] {
        assert!(providers.get(field).is_some(), "schema lacks {field}");
    }
}

#[test]
fn chat_shaping_and_efforts_are_configurable_per_provider_and_model() {
    let config: ModelConfig = toml::from_str(
        r#"
[model_providers.vllm]
base_url = "http://gpu-box:8000/v1"
wire_api = "chat"
system_messages = "merge_into_system"

[model_providers.vllm.models."Qwen/Qwen3-32B"]
context_window = 40960
reasoning_efforts = ["low", "medium", "high"]

[model_providers.vllm.models."gpt-oss-120b"]
system_messages = "as_is"
max_tokens_field = "max_completion_tokens"
"#,
    )
    .unwrap();
    let vllm = config.provider("vllm").unwrap();
    let qwen = vllm.model_info("Qwen/Qwen3-32B");
    assert_eq!(
        qwen.reasoning_efforts,
        vec![
            crate::prompt::ReasoningEffort::Low,
            crate::prompt::ReasoningEffort::Medium,
            crate::prompt::ReasoningEffort::High
        ]
    );
    assert_eq!(
        qwen.system_messages,
        Some(SystemMessageMode::MergeIntoSystem)
    );
    let oss = vllm.model_info("gpt-oss-120b");
    assert_eq!(oss.system_messages, Some(SystemMessageMode::AsIs));
    assert_eq!(
        oss.max_tokens_field,
        crate::model_info::MaxTokensField::MaxCompletionTokens
    );
    // An unconfigured OpenAI slug on a chat provider still gets the table's efforts.
    assert_eq!(
        vllm.model_info("openai/gpt-5").reasoning_efforts.last(),
        Some(&crate::prompt::ReasoningEffort::High)
    );
}

#[test]
fn prompt_cache_breakpoints_are_on_unless_a_provider_turns_them_off() {
    let config: ModelConfig = toml::from_str(
        r#"
[model_providers.litellm]
base_url = "http://localhost:4000"
wire_api = "anthropic"
prompt_cache_breakpoints = false

[model_providers.anthropic]
prompt_cache_breakpoints = false
"#,
    )
    .unwrap();
    let litellm = config.provider("litellm").unwrap();
    assert_eq!(litellm.prompt_cache_breakpoints, Some(false));
    assert!(!litellm.prompt_cache_breakpoints());
    let anthropic = config.provider("anthropic").unwrap();
    assert!(!anthropic.prompt_cache_breakpoints());
    assert_eq!(anthropic.base_url, ProviderConfig::anthropic().base_url);
    assert!(ProviderConfig::anthropic().prompt_cache_breakpoints());
    assert!(ProviderConfig::default().prompt_cache_breakpoints());
}

#[test]
fn context_management_under_a_preset_keeps_the_preset_and_merges_key_by_key() {
    let config: ModelConfig = toml::from_str(
        r#"
        [model_providers.anthropic.context_management]
        clear_tool_uses = { trigger = { input_tokens = 100000 }, keep = 3 }
        compaction = { trigger = 150000 }
        "#,
    )
    .unwrap();
    let anthropic = config.provider("anthropic").unwrap();
    assert_eq!(anthropic.base_url, "https://api.anthropic.com");
    assert_eq!(
        anthropic.context_management.compaction.map(|c| c.trigger),
        Some(Some(150_000))
    );
    assert_eq!(
        anthropic
            .context_management
            .clear_tool_uses
            .and_then(|c| c.keep),
        Some(3)
    );
    let openai = config.provider("openai").unwrap();
    assert_eq!(
        openai.context_management,
        ContextManagementConfig::default()
    );
    assert!(openai.compact_endpoint());
}

#[test]
fn a_1m_model_id_has_the_1m_window_over_the_presets_claude_row() {
    let anthropic = ProviderConfig::anthropic();
    let plain = anthropic.model_info("claude-opus-4-6");
    assert!(plain.context_window < 1_000_000, "{plain:?}");
    let one_million = anthropic.model_info("claude-opus-4-6[1m]");
    assert_eq!(one_million.context_window, 1_000_000);
    // The rest of the row is the model's own.
    assert_eq!(one_million.max_output_tokens, plain.max_output_tokens);
    // An entry for the `[1m]` id itself sets another window.
    let mut configured = ProviderConfig::anthropic();
    configured.models.insert(
        "claude-opus-4-6[1m]".to_string(),
        crate::model_info::ModelEntry {
            context_window: Some(500_000),
            ..Default::default()
        },
    );
    assert_eq!(
        configured.model_info("claude-opus-4-6[1m]").context_window,
        500_000
    );
}
