use std::path::Path;

use pretty_assertions::assert_eq;

use super::Config;
use super::ConfigError;

fn invalid(text: &str) -> (Option<usize>, Option<String>, String) {
    match Config::from_toml(text, Path::new("/home/u/.agentctx/config.toml")) {
        Err(ConfigError::Invalid {
            line, key, message, ..
        }) => (line, key, message),
        other => panic!("expected an invalid config, got {other:?}"),
    }
}

#[test]
fn a_wrong_type_in_a_section_names_its_line_and_key() {
    let (line, key, message) =
        invalid("[compact]\nenabled = true\n\n[system_reminder]\nenabled = \"maybe\"\n");
    assert_eq!(line, Some(5));
    assert_eq!(key.as_deref(), Some("system_reminder.enabled"));
    assert!(message.contains("expected a boolean"), "{message}");
}

#[test]
fn a_wrong_type_in_a_top_level_model_key_is_located_too() {
    // `model` is read through `flatten`, which drops positions on its own.
    let (line, key, _) = invalid("\n\nmodel = 5\n");
    assert_eq!(line, Some(3));
    assert_eq!(key.as_deref(), Some("model"));
}

#[test]
fn a_syntax_error_has_a_line_and_no_key() {
    let (line, key, _) = invalid("[compact\n");
    assert_eq!(line, Some(1));
    assert_eq!(key, None);
}

#[test]
fn the_message_reads_file_line_column_key() {
    let err = Config::from_toml(
        "[skills]\nusage_half_life_days = \"long\"\n",
        Path::new("/h/config.toml"),
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("/h/config.toml:2:24: `skills.usage_half_life_days`: "),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[test]
fn the_sections_are_each_crates_own_struct() {
    let config = Config::from_toml(
        "model = \"qwen3:8b\"\nmodel_provider = \"ollama\"\n\n[compact]\nauto_compact = false\n\n[skills]\ndisabled = [\"review\"]\n",
        Path::new("config.toml"),
    )
    .unwrap();
    assert_eq!(config.model.model.as_deref(), Some("qwen3:8b"));
    assert_eq!(config.model.provider_id(), "ollama");
    assert!(!config.compact.auto_compact);
    assert_eq!(config.skills.disabled, vec!["review".to_string()]);
    assert_eq!(config.system_reminder, Default::default());
}

#[test]
fn the_loop_section_is_the_loop_drivers_own_struct() {
    let config = Config::from_toml(
        "[loop]\nno_progress_iterations = 5\n\n[loop.budget]\nmax_total_tokens = 1000\n",
        Path::new("config.toml"),
    )
    .unwrap();
    assert_eq!(config.loop_driver.no_progress_iterations, 5);
    assert_eq!(config.loop_driver.budget.max_total_tokens, Some(1000));
    assert_eq!(
        config.loop_driver.max_consecutive_failures,
        agentctx_loop_driver::LoopConfig::default().max_consecutive_failures
    );
}

#[test]
fn an_unknown_key_in_the_loop_section_names_its_line_and_key() {
    // `LoopConfig` denies unknown fields; the error must still be located like any other.
    let (line, key, message) = invalid("model = \"m\"\n\n[loop]\nno_progres_iterations = 5\n");
    assert_eq!(line, Some(4));
    assert_eq!(key.as_deref(), Some("loop.no_progres_iterations"));
    assert!(message.contains("unknown field"), "{message}");
}

#[test]
fn a_wrong_type_in_the_loop_budget_names_its_line_and_key() {
    let (line, key, _) = invalid("[loop.budget]\nmax_total_tokens = \"many\"\n");
    assert_eq!(line, Some(2));
    assert_eq!(key.as_deref(), Some("loop.budget.max_total_tokens"));
}

#[test]
fn a_providers_compact_mode_wins_over_the_compact_table_for_that_provider() {
    let text = r#"
[compact]
mode = "auto"

[model_providers.openai]
compact_mode = "remote"

[model_providers.local]
base_url = "http://localhost:8000/v1"
compact_mode = "local"
"#;
    let config = Config::from_toml(text, Path::new("config.toml")).unwrap();
    use agentctx_protocol::CompactMode;
    assert_eq!(config.compact.mode, CompactMode::Auto);
    assert_eq!(
        config.compact_for_provider("openai").mode,
        CompactMode::Remote
    );
    assert_eq!(
        config.compact_for_provider("local").mode,
        CompactMode::Local
    );
    // A provider that says nothing takes `[compact] mode`.
    assert_eq!(
        config.compact_for_provider("anthropic").mode,
        CompactMode::Auto
    );
}
