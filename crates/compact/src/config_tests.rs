use pretty_assertions::assert_eq;

use super::*;

#[test]
fn defaults_are_the_documented_constants() {
    let config = CompactConfig::default();
    assert_eq!(config.auto_compact_buffer_tokens, 13_000);
    assert_eq!(config.warning_buffer_tokens, 20_000);
    assert_eq!(config.error_buffer_tokens, 20_000);
    assert_eq!(config.blocking_buffer_tokens, 3_000);
    assert_eq!(config.micro.keep_recent_results, 3);
    assert_eq!(config.micro.min_savings_tokens, 20_000);
    assert_eq!(config.micro.target_tool_result_tokens, 40_000);
    assert_eq!(config.micro.persist_threshold_tokens, 1_000);
    assert_eq!(config.full.max_summary_retries, 2);
    assert_eq!(config.full.user_message_budget_tokens, 20_000);
    assert_eq!(config.session_memory.min_tokens_to_init, 5_000);
    assert_eq!(config.session_memory.min_tokens_between_updates, 5_000);
    assert_eq!(config.session_memory.tool_calls_between_updates, 10);
    assert_eq!(config.session_memory.min_compact_savings_tokens, 10_000);
    assert_eq!(config.restoration.max_files, 5);
    assert_eq!(config.restoration.per_file_limit_tokens, 5_000);
    assert_eq!(config.restoration.total_budget_tokens, 50_000);
    assert_eq!(config.thrash_guard.ineffective_usage_percent, 60);
    assert_eq!(config.thrash_guard.max_consecutive_ineffective, 2);
}

#[test]
fn an_empty_document_gives_the_defaults_and_a_partial_one_keeps_the_rest() {
    let empty: CompactConfig = serde_json::from_str("{}").unwrap();
    assert_eq!(empty, CompactConfig::default());

    let partial: CompactConfig =
        serde_json::from_str(r#"{"auto_compact": false, "micro": {"keep_recent_results": 5}}"#)
            .unwrap();
    let expected = CompactConfig {
        auto_compact: false,
        micro: MicroCompactConfig {
            keep_recent_results: 5,
            ..MicroCompactConfig::default()
        },
        ..CompactConfig::default()
    };
    assert_eq!(partial, expected);
}

#[test]
fn disable_switches_turn_their_tier_off() {
    let mut config = CompactConfig::default();
    config
        .apply_env_vars([
            ("AGENTCTX_DISABLE_AUTO_COMPACT", "1"),
            ("AGENTCTX_DISABLE_MICROCOMPACT", "true"),
        ])
        .unwrap();
    assert!(config.enabled);
    assert!(!config.auto_compact_enabled());
    assert!(!config.micro_compact_enabled());

    let mut all_off = CompactConfig::default();
    all_off
        .apply_env_vars([("AGENTCTX_DISABLE_COMPACT", "yes")])
        .unwrap();
    assert!(!all_off.micro_compact_enabled());
    assert!(!all_off.auto_compact_enabled());
    assert!(!all_off.session_memory_compact_enabled());
}

#[test]
fn a_falsy_disable_switch_leaves_the_configured_value() {
    let mut config = CompactConfig {
        auto_compact: false,
        ..CompactConfig::default()
    };
    config
        .apply_env_vars([("AGENTCTX_DISABLE_AUTO_COMPACT", "0")])
        .unwrap();
    assert!(!config.auto_compact);
}

#[test]
fn numeric_switches_set_their_settings() {
    let mut config = CompactConfig::default();
    config
        .apply_env_vars([
            ("AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE", "70"),
            ("AGENTCTX_BLOCKING_LIMIT_OVERRIDE", "150000"),
            ("AGENTCTX_SESSION_MEMORY_MIN_TOKENS", "12000"),
            ("AGENTCTX_SESSION_MEMORY_MAX_TOKENS", "30000"),
            ("AGENTCTX_EXTRACTION_COOLDOWN", "0"),
            ("AGENTCTX_CONTEXT_RESTORE_MAX_FILES", "2"),
            ("AGENTCTX_CONTEXT_RESTORE_BUDGET", " 8000 "),
        ])
        .unwrap();
    assert_eq!(config.auto_compact_percent_override, Some(70));
    assert_eq!(config.blocking_limit_override, Some(150_000));
    assert_eq!(config.session_memory.min_compact_savings_tokens, 12_000);
    assert_eq!(config.session_memory.max_summary_tokens, 30_000);
    assert_eq!(config.session_memory.extraction_cooldown_secs, 0);
    assert_eq!(config.restoration.max_files, 2);
    assert_eq!(config.restoration.total_budget_tokens, 8_000);
}

#[test]
fn variables_of_other_prefixes_are_ignored() {
    let mut config = CompactConfig::default();
    config
        .apply_env_vars([
            ("DISABLE_COMPACT", "1"),
            ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "nonsense"),
            ("AGENTCTX_SOMETHING_ELSE", "nonsense"),
        ])
        .unwrap();
    assert_eq!(config, CompactConfig::default());
}

#[test]
fn a_bad_value_is_an_error_naming_the_variable() {
    let cases = [
        ("AGENTCTX_DISABLE_COMPACT", "perhaps"),
        ("AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE", "0"),
        ("AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE", "101"),
        ("AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE", "80%"),
        ("AGENTCTX_BLOCKING_LIMIT_OVERRIDE", "0"),
        ("AGENTCTX_CONTEXT_RESTORE_BUDGET", "-1"),
    ];
    for (name, value) in cases {
        let error = CompactConfig::default()
            .apply_env_vars([(name, value)])
            .unwrap_err();
        let CompactConfigError::Env {
            name: reported,
            value: reported_value,
            ..
        } = &error;
        assert_eq!((reported.as_str(), reported_value.as_str()), (name, value));
        assert!(error.to_string().contains(name), "{error}");
    }
}

#[cfg(unix)]
#[test]
fn a_value_that_is_not_utf8_is_an_error() {
    use std::os::unix::ffi::OsStringExt;

    let value = OsString::from_vec(vec![0x66, 0xff]);
    let error = CompactConfig::default()
        .apply_env_vars([(OsString::from("AGENTCTX_DISABLE_COMPACT"), value)])
        .unwrap_err();
    assert!(error.to_string().contains("AGENTCTX_DISABLE_COMPACT"));
}

#[test]
fn the_first_bad_variable_reported_does_not_depend_on_the_order_given() {
    let forward = CompactConfig::default()
        .apply_env_vars([
            ("AGENTCTX_DISABLE_MICROCOMPACT", "x"),
            ("AGENTCTX_DISABLE_COMPACT", "y"),
        ])
        .unwrap_err();
    let backward = CompactConfig::default()
        .apply_env_vars([
            ("AGENTCTX_DISABLE_COMPACT", "y"),
            ("AGENTCTX_DISABLE_MICROCOMPACT", "x"),
        ])
        .unwrap_err();
    assert_eq!(forward, backward);
}

#[test]
fn budgets_scale_with_a_small_window_and_keep_their_figures_on_a_large_one() {
    let config = CompactConfig::default();
    // 200K (effective 180,000) and 128K (effective 108,000) keep every figure but the
    // restoration budget, which 128K cuts to three tenths of its effective window.
    assert_eq!(config.scaled_to(180_000), config);
    let at_128k = config.scaled_to(108_000);
    assert_eq!(at_128k.restoration.total_budget_tokens, 32_400);
    assert_eq!(
        CompactConfig {
            restoration: ContextRestorationConfig {
                total_budget_tokens: 50_000,
                ..at_128k.restoration.clone()
            },
            ..at_128k
        },
        config
    );

    // 4,096 (effective 3,072): every budget is its share of the window.
    let small = config.scaled_to(3_072);
    let budgets = [
        small.auto_compact_buffer_tokens,
        small.warning_buffer_tokens,
        small.blocking_buffer_tokens,
        small.full.user_message_budget_tokens,
        small.restoration.total_budget_tokens,
        small.restoration.per_file_limit_tokens,
        small.micro.min_savings_tokens,
        small.micro.target_tool_result_tokens,
        small.session_memory.min_compact_savings_tokens,
        small.session_memory.max_summary_tokens,
        small.staged.keep_recent_tokens,
    ];
    assert_eq!(
        budgets,
        [384, 614, 96, 614, 921, 307, 614, 1_228, 307, 1_228, 1_152]
    );
    // Scaling twice changes nothing.
    assert_eq!(small.scaled_to(3_072), small);
}

#[test]
fn the_mode_is_local_unless_the_table_says_otherwise() {
    assert_eq!(CompactConfig::default().mode, CompactMode::Local);
    let remote: CompactConfig = serde_json::from_str(r#"{"mode": "remote"}"#).unwrap();
    assert_eq!(remote.mode, CompactMode::Remote);
    let auto: CompactConfig = serde_json::from_str(r#"{"mode": "auto"}"#).unwrap();
    assert_eq!(auto.mode, CompactMode::Auto);
    assert!(serde_json::from_str::<CompactConfig>(r#"{"mode": "server"}"#).is_err());
}

#[test]
fn the_token_budget_reads_auto_off_or_tokens_from_the_file_and_the_environment() {
    assert!(CompactConfig::default().auto_compact_tokens.is_auto());
    assert!(CompactConfig::default().micro.cost_aware);
    for (json, expected) in [
        (
            r#"{"auto_compact_tokens": "auto"}"#,
            AutoCompactTokens::default(),
        ),
        (
            r#"{"auto_compact_tokens": "off"}"#,
            AutoCompactTokens::Keyword(BudgetKeyword::Off),
        ),
        (
            r#"{"auto_compact_tokens": 350000}"#,
            AutoCompactTokens::Tokens(350_000),
        ),
    ] {
        let config: CompactConfig = serde_json::from_str(json).unwrap();
        assert_eq!(config.auto_compact_tokens, expected, "{json}");
        // What `config show` prints is what the file says.
        let shown = serde_json::to_value(config.auto_compact_tokens).unwrap();
        let written: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(Some(&shown), written.get("auto_compact_tokens"));
    }
    assert!(serde_json::from_str::<CompactConfig>(r#"{"auto_compact_tokens": "soon"}"#).is_err());

    let mut config = CompactConfig::default();
    config
        .apply_env_vars([("AGENTCTX_AUTO_COMPACT_TOKENS", "400000")])
        .unwrap();
    assert_eq!(config.auto_compact_tokens.tokens(), Some(400_000));
    config
        .apply_env_vars([("AGENTCTX_AUTO_COMPACT_TOKENS", "OFF")])
        .unwrap();
    assert_eq!(
        config.auto_compact_tokens,
        AutoCompactTokens::Keyword(BudgetKeyword::Off)
    );
    let error = config
        .apply_env_vars([("AGENTCTX_AUTO_COMPACT_TOKENS", "0")])
        .unwrap_err();
    assert!(error.to_string().contains("AGENTCTX_AUTO_COMPACT_TOKENS"));
}
