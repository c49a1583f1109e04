use pretty_assertions::assert_eq;

use super::*;
use crate::model_info::DEFAULT_CONTEXT_WINDOW;
use crate::provider_env::BaseUrlSource;

fn no_env(_: &str) -> Option<String> {
    None
}

fn resolve(toml_text: &str, slug: &str) -> (ResolvedProvider, ResolvedModel) {
    let config: ModelConfig = toml::from_str(toml_text).unwrap();
    let provider = config.resolve_provider(&no_env).unwrap();
    let model = config.resolve_model(&provider, slug);
    (provider, model)
}

#[test]
fn a_window_under_a_preset_keeps_the_preset_url_and_names_its_source() {
    let (provider, model) = resolve(
        "model_provider = \"ollama\"\n[model_providers.ollama.models.\"qwen3\"]\ncontext_window = 8192\n",
        "qwen3:8b",
    );
    assert_eq!(provider.config.base_url, "http://localhost:11434/v1");
    assert_eq!(provider.config.wire_api, crate::WireApi::Chat);
    assert_eq!(provider.base_url_source, BaseUrlSource::Preset);
    assert_eq!(model.info.context_window, 8192);
    assert_eq!(model.context_window_source, LimitSource::ProviderModel);
    assert_eq!(model.max_output_tokens_source, None);
    assert!(!model.window_is_unknown());
}

#[test]
fn the_top_level_keys_win_over_the_entry_and_the_table() {
    let (_, model) = resolve(
        "model_context_window = 4096\nmodel_max_output_tokens = 512\n\
         [model_providers.openai.models.\"gpt-5\"]\ncontext_window = 9999\n",
        "gpt-5",
    );
    assert_eq!(model.info.context_window, 4096);
    assert_eq!(model.context_window_source, LimitSource::ConfigTopLevel);
    assert_eq!(model.info.max_output_tokens, Some(512));
    assert_eq!(
        model.max_output_tokens_source,
        Some(LimitSource::ConfigTopLevel)
    );
}

#[test]
fn a_partial_entry_keeps_the_rest_of_the_table_row() {
    let (_, model) = resolve(
        "[model_providers.openai.models.\"gpt-5\"]\ncontext_window = 100000\n",
        "gpt-5",
    );
    assert_eq!(model.info.context_window, 100_000);
    assert_eq!(model.context_window_source, LimitSource::ProviderModel);
    // The output limit and efforts still come from the preset's row.
    assert_eq!(model.info.max_output_tokens, Some(128_000));
    assert_eq!(
        model.max_output_tokens_source,
        Some(LimitSource::ModelTable)
    );
    assert!(!model.info.reasoning_efforts.is_empty());
}

#[test]
fn table_and_default_sources() {
    let (_, known) = resolve("", "gpt-5");
    assert_eq!(known.context_window_source, LimitSource::ModelTable);
    let (_, unknown) = resolve("model_provider = \"lmstudio\"\n", "qwen3-coder");
    assert_eq!(unknown.info.context_window, DEFAULT_CONTEXT_WINDOW);
    assert_eq!(unknown.context_window_source, LimitSource::Default);
    assert!(unknown.window_is_unknown());
    // A chat provider serving a model of the table gets the table's window.
    let (_, routed) = resolve(
        "model_provider = \"router\"\n[model_providers.router]\nbase_url = \"http://router/v1\"\nwire_api = \"chat\"\n",
        "openai/gpt-4.1",
    );
    assert_eq!(routed.context_window_source, LimitSource::ModelTable);
    assert_eq!(routed.info.context_window, 1_047_576);
}

#[test]
fn a_flag_overrides_everything() {
    let (_, mut model) = resolve("model_context_window = 4096\n", "gpt-5");
    model.set_context_window(2048, LimitSource::Flag);
    assert_eq!(model.info.context_window, 2048);
    assert_eq!(model.context_window_source.to_string(), "flag");
}
