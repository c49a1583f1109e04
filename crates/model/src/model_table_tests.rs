use pretty_assertions::assert_eq;

use super::*;

fn efforts(slug: &str) -> Vec<ReasoningEffort> {
    known_model(slug)
        .map(|info| info.reasoning_efforts)
        .unwrap_or_default()
}

#[test]
fn efforts_per_model_match_the_vendor_lists() {
    assert_eq!(efforts("gpt-5"), vec![Minimal, Low, Medium, High]);
    assert_eq!(efforts("gpt-5-codex"), vec![Low, Medium, High]);
    assert_eq!(efforts("o3"), vec![Low, Medium, High]);
    assert_eq!(efforts("o4-mini"), vec![Low, Medium, High]);
    assert_eq!(efforts("gpt-5.1-codex-max"), vec![Low, Medium, High, XHigh]);
    assert_eq!(efforts("gpt-5.2"), vec![Low, Medium, High, XHigh]);
    assert_eq!(efforts("gpt-4.1"), Vec::new());
}

#[test]
fn dated_snapshots_and_router_prefixes_find_their_row() {
    assert_eq!(efforts("gpt-5-2025-08-07"), efforts("gpt-5"));
    assert_eq!(
        efforts("openai/gpt-5.1-codex-max"),
        efforts("gpt-5.1-codex-max")
    );
    // The longest row wins: gpt-5.1-codex-mini is not gpt-5.1-codex.
    assert_eq!(efforts("gpt-5.1-codex-mini"), vec![Medium, High]);
    assert_eq!(known_model("qwen3:8b"), None);
}

#[test]
fn openai_reasoning_models_take_max_completion_tokens() {
    let field = |slug: &str| known_model(slug).map(|info| info.max_tokens_field);
    assert_eq!(field("o3"), Some(MaxTokensField::MaxCompletionTokens));
    assert_eq!(field("gpt-5"), Some(MaxTokensField::MaxCompletionTokens));
    assert_eq!(field("gpt-4.1"), Some(MaxTokensField::MaxTokens));
    assert_eq!(field("claude-sonnet-4-5"), Some(MaxTokensField::MaxTokens));
}

#[test]
fn windows_and_output_limits() {
    let limits =
        |slug: &str| known_model(slug).map(|info| (info.context_window, info.max_output_tokens));
    assert_eq!(limits("gpt-5"), Some((272_000, Some(128_000))));
    assert_eq!(limits("o3"), Some((200_000, Some(100_000))));
    assert_eq!(limits("gpt-4.1"), Some((1_047_576, Some(32_768))));
    assert_eq!(
        limits("claude-opus-4-1-20250805"),
        Some((200_000, Some(32_000)))
    );
    assert_eq!(
        limits("claude-sonnet-4-5-20250929"),
        Some((200_000, Some(64_000)))
    );
}

#[test]
fn a_one_million_suffix_is_the_one_million_window() {
    // Claude Code's id of a model with the 1M context on; the row without the suffix keeps its
    // output limit.
    let sonnet = known_model("claude-sonnet-4-5[1m]");
    assert_eq!(
        sonnet.map(|info| (info.context_window, info.max_output_tokens)),
        Some((1_000_000, Some(64_000)))
    );
    // A model the table has no row for still gets the window the suffix names.
    assert_eq!(known_context_window("claude-opus-4-6[1m]"), Some(1_000_000));
    assert_eq!(
        known_context_window("anthropic/claude-opus-4-6[1M]"),
        Some(1_000_000)
    );
    // Without the suffix, the row's window.
    assert_eq!(
        known_context_window("claude-sonnet-4-5-20250929"),
        Some(200_000)
    );
}

#[test]
fn models_without_a_row_take_litellms_limits() {
    // No row here matches these; LiteLLM's table (data/litellm) states their limits:
    // `claude-opus-4-6` 1,000,000 in / 128,000 out (as Anthropic's model page,
    // https://platform.claude.com/docs/en/models/opus-4-6/overview), `gpt-4o` 128,000 / 16,384.
    let limits =
        |slug: &str| known_model(slug).map(|info| (info.context_window, info.max_output_tokens));
    assert_eq!(limits("claude-opus-4-6"), Some((1_000_000, Some(128_000))));
    assert_eq!(limits("gpt-4o"), Some((128_000, Some(16_384))));
    assert_eq!(
        limits("openai/gpt-4o-2024-08-06"),
        Some((128_000, Some(16_384)))
    );
    // Only the limits: nothing is assumed about efforts or the output-limit field.
    let opus = known_model("claude-opus-4-6").unwrap();
    assert_eq!(opus.reasoning_efforts, Vec::new());
    assert_eq!(opus.supports_reasoning, None);
    // A row wins over LiteLLM, prefix matches included: LiteLLM lists `gpt-5.5` with its whole
    // window (1,050,000), the `gpt-5` row keeps the 272,000-token input share.
    assert_eq!(known_context_window("gpt-5.5"), Some(272_000));
    // A model neither table knows.
    assert_eq!(known_model("qwen3:8b"), None);
}
