use pretty_assertions::assert_eq;

use super::*;

/// A few entries as LiteLLM writes them (fields copied from its
/// `model_prices_and_context_window.json`), plus its `sample_spec` and an embedding model.
const SAMPLE: &str = r#"{
  "sample_spec": {"input_cost_per_token": 0.0, "litellm_provider": "one of https://docs.litellm.ai/docs/providers", "max_input_tokens": "max input tokens, if the provider specifies it", "mode": "one of: chat, embedding"},
  "claude-sonnet-4-5": {"cache_creation_input_token_cost": 3.75e-06, "cache_read_input_token_cost": 3e-07, "input_cost_per_token": 3e-06, "litellm_provider": "anthropic", "max_input_tokens": 200000, "max_output_tokens": 64000, "mode": "chat", "output_cost_per_token": 1.5e-05, "supports_vision": true},
  "Example/Mixed-Case": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "litellm_provider": "example", "mode": "chat"},
  "text-embedding-3-small": {"input_cost_per_token": 2e-08, "litellm_provider": "openai", "max_input_tokens": 8191, "mode": "embedding"},
  "no-cache-price": {"input_cost_per_token": 1e-06, "output_cost_per_token": 4e-06, "litellm_provider": "example", "mode": "chat"},
  "window-only": {"litellm_provider": "example", "max_input_tokens": 32768, "mode": "chat"}
}"#;

fn sample() -> PriceTable {
    PriceTable::load(SAMPLE).unwrap()
}

fn bundled() -> &'static PriceTable {
    PriceTable::bundled().unwrap()
}

/// The key `model` resolves to in the bundled table.
fn slug(model: &str) -> Option<&'static str> {
    bundled().resolve(model).map(|found| found.slug)
}

#[test]
fn load_keeps_chat_models_and_counts_what_it_skips() {
    let table = sample();
    assert_eq!(table.len(), 4);
    // `sample_spec` (string values) and the embedding model.
    assert_eq!(table.skipped_entries(), 2);
    assert_eq!(
        table.lookup("claude-sonnet-4-5"),
        Some(&ModelPrice {
            provider: "anthropic".to_string(),
            input_per_token: Some(3e-6),
            output_per_token: Some(1.5e-5),
            cache_read_per_token: Some(3e-7),
            cache_write_per_token: Some(3.75e-6),
            max_input_tokens: Some(200_000),
            max_output_tokens: Some(64_000),
        })
    );
    assert_eq!(table.lookup("text-embedding-3-small"), None);
}

#[test]
fn text_that_is_not_an_object_is_an_error() {
    assert!(matches!(
        PriceTable::load("[1, 2]"),
        Err(PriceTableError::Json { .. })
    ));
    assert!(matches!(
        PriceTable::load("{\"a\": "),
        Err(PriceTableError::Json { .. })
    ));
}

#[test]
fn the_bundled_table_parses_whole() {
    let table = bundled();
    assert!(table.len() > 1_000, "{} entries", table.len());
    assert_eq!(table.skipped_entries(), 0);
}

#[test]
fn cached_tokens_are_priced_as_cached() {
    let table = sample();
    let sonnet = table.lookup("claude-sonnet-4-5").unwrap();
    let tokens = TokenCounts::from_anthropic(1_000, 100_000, 10_000, 2_000);
    let cost = sonnet.cost(&tokens).unwrap();
    // 1,000 × $3/M + 100,000 × $0.30/M + 10,000 × $3.75/M + 2,000 × $15/M.
    let expected = 0.003 + 0.03 + 0.0375 + 0.03;
    assert!((cost - expected).abs() < 1e-12, "{cost} != {expected}");
}

#[test]
fn without_a_cache_price_cached_tokens_cost_the_input_price() {
    let table = sample();
    let model = table.lookup("no-cache-price").unwrap();
    let cached = model
        .cost(&TokenCounts::from_openai(1_000_000, 1_000_000, 0))
        .unwrap();
    let uncached = model
        .cost(&TokenCounts::from_openai(1_000_000, 0, 0))
        .unwrap();
    assert!((cached - 1.0).abs() < 1e-12, "{cached}");
    assert!((cached - uncached).abs() < 1e-12);
}

#[test]
fn an_unpriced_count_makes_the_cost_unknown_not_zero() {
    let table = sample();
    let model = table.lookup("window-only").unwrap();
    assert_eq!(model.cost(&TokenCounts::default()), Some(0.0));
    assert_eq!(model.cost(&TokenCounts::from_openai(10, 0, 0)), None);
}

#[test]
fn openai_counts_take_the_cached_part_out_of_the_input() {
    let usage = agentctx_protocol::TokenUsage {
        input_tokens: 12_000,
        cached_input_tokens: 9_000,
        output_tokens: 500,
        ..Default::default()
    };
    let tokens = TokenCounts::from_usage(&usage);
    assert_eq!(
        tokens,
        TokenCounts {
            input: 3_000,
            cached_input: 9_000,
            cache_write: 0,
            output: 500,
        }
    );
    assert_eq!(tokens.total_input(), 12_000);
    let mut sum = tokens;
    sum += tokens;
    assert_eq!(sum.total_input(), 24_000);
}

#[test]
fn names_are_compared_in_lowercase() {
    let table = sample();
    assert!(table.lookup("example/mixed-case").is_some());
    assert!(table.lookup("  CLAUDE-Sonnet-4-5 ").is_some());
}

/// Model names as real sessions record them: the Codex rollout and the Claude Code transcript
/// under examples/sessions, the rollout crate's Claude Code fixtures
/// (`crates/rollout/tests/fixtures/claude_1x.jsonl`, `claude_2x.jsonl`) and the interop suite.
#[test]
fn recorded_model_names_resolve_to_their_entries() {
    // examples/sessions: Claude Code's dated id and Codex's slug.
    assert_eq!(
        slug("claude-sonnet-4-5-20250929"),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(slug("gpt-5.1-codex"), Some("gpt-5.1-codex"));
    // Rollout fixtures: current ids, a 1M-window id, a dated Haiku.
    assert_eq!(slug("claude-opus-4-7"), Some("claude-opus-4-7"));
    assert_eq!(slug("claude-opus-4-6[1m]"), Some("claude-opus-4-6"));
    assert_eq!(
        slug("claude-haiku-4-5-20251001"),
        Some("claude-haiku-4-5-20251001")
    );
    assert_eq!(slug("gpt-5.5"), Some("gpt-5.5"));
    // Interop fixtures.
    assert_eq!(slug("gpt-5"), Some("gpt-5"));
    assert_eq!(slug("gpt-5-codex"), Some("gpt-5-codex"));
    assert_eq!(slug("claude-sonnet-4-5"), Some("claude-sonnet-4-5"));
    // The shapes the report meets besides: a dated Opus, the 1M suffix in any case, router
    // prefixes, an OpenAI dated snapshot.
    assert_eq!(
        slug("claude-opus-4-5-20251101"),
        Some("claude-opus-4-5-20251101")
    );
    assert_eq!(slug("claude-sonnet-4-5[1M]"), Some("claude-sonnet-4-5"));
    assert_eq!(slug("openai/gpt-5"), Some("gpt-5"));
    assert_eq!(
        slug("anthropic/claude-sonnet-4-5-20250929"),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(slug("gpt-5-2025-08-07"), Some("gpt-5-2025-08-07"));
}

#[test]
fn a_dated_snapshot_the_table_lists_only_by_alias_finds_the_alias() {
    let table = sample();
    assert_eq!(
        table.resolve("claude-sonnet-4-5-20991231").map(|m| m.slug),
        Some("claude-sonnet-4-5")
    );
    assert_eq!(
        table
            .resolve("anthropic/claude-sonnet-4-5-2099-12-31[1m]")
            .map(|m| m.slug),
        Some("claude-sonnet-4-5")
    );
}

#[test]
fn local_and_retired_models_resolve_to_nothing() {
    // Local models (interop's Ollama and vLLM slugs) have no first-party price; LiteLLM lists
    // Qwen3-32B only under hosting providers, whose prices are theirs.
    assert_eq!(slug("qwen3:8b"), None);
    assert_eq!(slug("qwen3-32b"), None);
    assert_eq!(slug("Qwen/Qwen3-32B"), None);
    // LiteLLM dropped Claude Opus 4 (retired) from its Anthropic entries; a Bedrock id is not
    // taken in its place.
    assert_eq!(slug("claude-opus-4-20250514"), None);
    assert_eq!(slug("<synthetic>"), None);
    assert_eq!(slug(""), None);
}

#[test]
fn date_suffixes() {
    assert_eq!(
        without_date_suffix("claude-opus-4-5-20251101"),
        Some("claude-opus-4-5")
    );
    assert_eq!(without_date_suffix("gpt-5-2025-08-07"), Some("gpt-5"));
    assert_eq!(without_date_suffix("gpt-5"), None);
    assert_eq!(without_date_suffix("claude-opus-4-5"), None);
    assert_eq!(without_date_suffix("model-2025-8-07"), None);
    assert_eq!(without_date_suffix("20251101"), None);
}

/// The LiteLLM release the vendored table was filtered from. A refresh to another release
/// changes the README's version line and fails [`the_vendored_table_is_the_pinned_release`]
/// until the figures below are read again from the new file.
const PINNED_LITELLM: &str = "1.110.2";

/// The vendored README, whose version line `cargo xtask prices` writes.
const DATA_README: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/litellm/README.md"
));

#[test]
fn the_vendored_table_is_the_pinned_release() {
    let version = DATA_README
        .lines()
        .find_map(|line| line.strip_prefix("- version: litellm "))
        .map(str::trim);
    assert_eq!(version, Some(PINNED_LITELLM));
}

/// Figures read from `litellm/model_prices_and_context_window_backup.json` in the wheel
/// `litellm-1.110.2-cp310-abi3-manylinux_2_28_x86_64.whl` (the README's sha256), by hand: the
/// vendored copy must hold them unchanged.
#[test]
fn sampled_entries_match_the_litellm_release() {
    let table = bundled();
    let opus = table.resolve("claude-opus-4-6").unwrap();
    assert_eq!(
        opus.price,
        &ModelPrice {
            provider: "anthropic".to_string(),
            input_per_token: Some(5e-6),
            output_per_token: Some(2.5e-5),
            cache_read_per_token: Some(5e-7),
            cache_write_per_token: Some(6.25e-6),
            max_input_tokens: Some(1_000_000),
            max_output_tokens: Some(128_000),
        }
    );
    // Its `provider_specific_entry` is `{"us": 1.1}`: no fast-mode multiplier in this release.
    assert_eq!(opus.rules.cache_write_1h_per_token, Some(1e-5));
    assert_eq!(opus.rules.fast_multiplier, None);
    assert!(opus.rules.long_context.is_empty());

    let haiku = table.resolve("claude-haiku-4-5").unwrap();
    assert_eq!(
        haiku.price,
        &ModelPrice {
            provider: "anthropic".to_string(),
            input_per_token: Some(1e-6),
            output_per_token: Some(5e-6),
            cache_read_per_token: Some(1e-7),
            cache_write_per_token: Some(1.25e-6),
            max_input_tokens: Some(200_000),
            max_output_tokens: Some(64_000),
        }
    );
    assert_eq!(haiku.rules.cache_write_1h_per_token, Some(2e-6));

    let fast = table.resolve("claude-opus-4-8").unwrap();
    assert_eq!(fast.rules.fast_multiplier, Some(2.0));
    assert_eq!(fast.price.input_per_token, Some(5e-6));

    let codex = table.resolve("gpt-5.1-codex").unwrap();
    assert_eq!(
        codex.price,
        &ModelPrice {
            provider: "openai".to_string(),
            input_per_token: Some(1.25e-6),
            output_per_token: Some(1e-5),
            cache_read_per_token: Some(1.25e-7),
            cache_write_per_token: None,
            max_input_tokens: Some(400_000),
            max_output_tokens: Some(128_000),
        }
    );
    assert!(codex.rules.is_empty());

    let long = table.resolve("gpt-5.4").unwrap();
    assert_eq!(
        long.rules.long_context,
        vec![crate::LongContextTier {
            threshold: 272_000,
            input_per_token: Some(5e-6),
            output_per_token: Some(2.25e-5),
            cache_read_per_token: Some(5e-7),
            cache_write_per_token: None,
            cache_write_1h_per_token: None,
        }]
    );

    let bedrock = table
        .resolve("anthropic.claude-sonnet-4-5-20250929-v1:0")
        .unwrap();
    assert_eq!(
        bedrock.rules.long_context,
        vec![crate::LongContextTier {
            threshold: 200_000,
            input_per_token: Some(6e-6),
            output_per_token: Some(2.25e-5),
            cache_read_per_token: Some(6e-7),
            cache_write_per_token: Some(7.5e-6),
            cache_write_1h_per_token: Some(1.2e-5),
        }]
    );
}
