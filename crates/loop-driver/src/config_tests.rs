use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;

use super::CommitFailurePolicy;
use super::LoopConfig;
use super::TokenPrices;

#[test]
fn an_empty_table_is_the_default() {
    let config: LoopConfig = toml::from_str("").unwrap();
    assert_eq!(config, LoopConfig::default());
    assert!(config.context_passing.enabled);
    assert!(config.context_passing.auto_commit);
    assert!(config.context_passing.generate_summary);
    assert_eq!(config.context_passing.summary_max_tokens, 500);
    assert_eq!(config.no_progress_iterations, 3);
    assert_eq!(config.max_consecutive_failures, 3);
}

#[test]
fn reads_the_context_passing_table_budgets_and_prices() {
    let config: LoopConfig = toml::from_str(
        r#"
        no_progress_iterations = 2
        on_commit_failure = "stop"

        [context_passing]
        enabled = true
        auto_commit = false
        generate_summary = false
        summary_max_tokens = 200
        commit_message_model = "haiku"

        [budget]
        max_iterations = 10
        max_total_tokens = 100000
        max_cost_usd = 2.5

        [prices]
        input_per_million = 3.0
        output_per_million = 15.0
        "#,
    )
    .unwrap();
    assert_eq!(config.no_progress_iterations, 2);
    assert_eq!(config.on_commit_failure, CommitFailurePolicy::Stop);
    assert!(!config.context_passing.auto_commit);
    assert_eq!(
        config.context_passing.commit_message_model.as_deref(),
        Some("haiku")
    );
    assert_eq!(config.budget.max_iterations, Some(10));
    assert_eq!(config.budget.max_cost_usd, Some(2.5));
    assert_eq!(config.prices.unwrap().output_per_million, 15.0);
}

#[test]
fn an_unknown_key_is_an_error() {
    assert!(toml::from_str::<LoopConfig>("[context_passing]\nenable = true\n").is_err());
}

#[test]
fn cost_prices_cached_input_separately() {
    let prices = TokenPrices {
        input_per_million: 2.0,
        cached_input_per_million: Some(0.5),
        output_per_million: 10.0,
    };
    let usage = TokenUsage {
        input_tokens: 1_000_000,
        cached_input_tokens: 400_000,
        output_tokens: 100_000,
        reasoning_output_tokens: 0,
        total_tokens: 1_100_000,
    };
    // 600k * 2 + 400k * 0.5 + 100k * 10, per million.
    assert_eq!(prices.cost_usd(&usage), 2.4);
}
