//! Configuration: TOML, environment overrides, critical instruction, schema.

use std::collections::HashMap;

use agentctx_reminders::AttachmentType;
use agentctx_reminders::ConfigError;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::ReminderPlacement;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use pretty_assertions::assert_eq;

const SPEC_TOML: &str = r#"
[system_reminder]
enabled = true
critical_instruction = "Always run tests before committing. Never use .unwrap() in non-test code."
timeout_ms = 1000
enable_token_usage = false

[system_reminder.attachments]
critical_instruction = true
plan_mode = true
todo_reminder = true
changed_files = true
background_task = true
"#;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(key, value)| ((*key).to_string(), (*value).to_string()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

#[test]
fn config_loads_from_toml() {
    let config = SystemReminderConfig::from_toml_document(SPEC_TOML).unwrap();
    let expected = SystemReminderConfig {
        critical_instruction: Some(
            "Always run tests before committing. Never use .unwrap() in non-test code.".to_string(),
        ),
        ..SystemReminderConfig::default()
    };
    assert_eq!(config, expected);

    let custom = SystemReminderConfig::from_toml_document(
        r#"
[system_reminder]
placement = "after_environment_context"
changed_files_token_cap = 1200
timeout_ms = 250
[system_reminder.attachments]
todo_reminder = false
nested_memory = false
"#,
    )
    .unwrap();
    assert_eq!(custom.placement, ReminderPlacement::AfterEnvironmentContext);
    assert_eq!(custom.changed_files_token_cap, 1_200);
    assert_eq!(custom.timeout(), std::time::Duration::from_millis(250));
    assert!(!custom.is_type_enabled(AttachmentType::TodoReminder));
    assert!(!custom.is_type_enabled(AttachmentType::NestedMemory));
    assert!(custom.is_type_enabled(AttachmentType::PlanMode));

    assert_eq!(
        SystemReminderConfig::from_toml_document("model = \"x\"\n").unwrap(),
        SystemReminderConfig::default()
    );
    assert_eq!(
        SystemReminderConfig::from_toml_section("enabled = false\n")
            .unwrap()
            .enabled,
        false
    );
    assert!(matches!(
        SystemReminderConfig::from_toml_document("[system_reminder]\nenabled = \"yes\"\n"),
        Err(ConfigError::Toml(_))
    ));
}

#[test]
fn environment_variables_override_config() {
    let mut config = SystemReminderConfig::from_toml_document(SPEC_TOML).unwrap();
    config
        .apply_env_overrides(&env(&[
            ("CODEX_DISABLE_SYSTEM_REMINDERS", "1"),
            ("CODEX_ENABLE_TOKEN_USAGE", "1"),
            ("CODEX_SYSTEM_REMINDER_TIMEOUT_MS", "2000"),
        ]))
        .unwrap();
    assert!(!config.enabled);
    assert!(config.enable_token_usage);
    assert_eq!(config.timeout_ms, Some(2_000));

    // AGENTCTX_ wins over CODEX_.
    let mut config = SystemReminderConfig::default();
    config
        .apply_env_overrides(&env(&[
            ("AGENTCTX_SYSTEM_REMINDER_TIMEOUT_MS", "300"),
            ("CODEX_SYSTEM_REMINDER_TIMEOUT_MS", "2000"),
            ("AGENTCTX_DISABLE_SYSTEM_REMINDERS", "0"),
            ("CODEX_DISABLE_SYSTEM_REMINDERS", "1"),
            (
                "AGENTCTX_SYSTEM_REMINDER_PLACEMENT",
                "after_environment_context",
            ),
        ]))
        .unwrap();
    assert_eq!(config.timeout_ms, Some(300));
    assert!(config.enabled);
    assert_eq!(config.placement, ReminderPlacement::AfterEnvironmentContext);

    // Nothing set: nothing changes.
    let mut untouched = SystemReminderConfig::default();
    untouched.apply_env_overrides(&env(&[])).unwrap();
    assert_eq!(untouched, SystemReminderConfig::default());
}

#[test]
fn bad_environment_values_are_errors_naming_the_variable() {
    let mut config = SystemReminderConfig::default();
    let error = config
        .apply_env_overrides(&env(&[("AGENTCTX_SYSTEM_REMINDER_TIMEOUT_MS", "soon")]))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid value \"soon\" for environment variable AGENTCTX_SYSTEM_REMINDER_TIMEOUT_MS: expected a positive number of milliseconds"
    );
    let error = config
        .apply_env_overrides(&env(&[("CODEX_ENABLE_TOKEN_USAGE", "maybe")]))
        .unwrap_err();
    assert!(
        matches!(
            &error,
            ConfigError::Env { name, value, .. }
                if name == "CODEX_ENABLE_TOKEN_USAGE" && value == "maybe"
        ),
        "{error:?}"
    );
}

#[test]
fn environment_overrides_read_from_a_variable_list_ignore_other_variables() {
    let mut config = SystemReminderConfig::default();
    config
        .apply_env_vars([
            ("PATH", "/usr/bin"),
            ("CODEX_ENABLE_TOKEN_USAGE", "yes"),
            ("AGENTCTX_SYSTEM_REMINDER_TIMEOUT_MS", "250"),
            ("CODEX_SYSTEM_REMINDER_TIMEOUT_MS", "9000"),
        ])
        .unwrap();
    assert_eq!(
        config,
        SystemReminderConfig {
            enable_token_usage: true,
            timeout_ms: Some(250),
            ..SystemReminderConfig::default()
        }
    );
    let error = SystemReminderConfig::default()
        .apply_env_vars([("AGENTCTX_DISABLE_SYSTEM_REMINDERS", "perhaps")])
        .unwrap_err();
    assert!(
        matches!(&error, ConfigError::Env { name, .. } if name == "AGENTCTX_DISABLE_SYSTEM_REMINDERS"),
        "{error:?}"
    );
}

#[tokio::test]
async fn critical_instruction_injected_when_set() {
    let mut config = SystemReminderConfig::default();
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    let unset = GeneratorContext::new("/p").with_config(&config);
    assert!(
        orchestrator
            .generate_all(&unset)
            .await
            .iter()
            .all(|reminder| reminder.attachment_type != AttachmentType::CriticalInstruction)
    );

    config.critical_instruction = Some("Never push to main.".to_string());
    config.placement = ReminderPlacement::AfterEnvironmentContext;
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    for turn in 1..=3 {
        let mut ctx = GeneratorContext::new("/p").with_config(&config);
        ctx.turn_number = turn;
        let critical: Vec<String> = orchestrator
            .generate_all(&ctx)
            .await
            .iter()
            .filter(|reminder| reminder.attachment_type == AttachmentType::CriticalInstruction)
            .map(SystemReminder::wrap_xml)
            .collect();
        assert_eq!(
            critical,
            vec!["<system-reminder>\nNever push to main.\n</system-reminder>".to_string()],
            "turn {turn}"
        );
    }
}

#[tokio::test]
async fn with_tail_placement_the_critical_instruction_is_injected_once_per_change() {
    let mut config = SystemReminderConfig {
        critical_instruction: Some("Never push to main.".to_string()),
        ..SystemReminderConfig::default()
    };
    assert_eq!(config.placement, ReminderPlacement::Tail);
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    let mut fired_on = Vec::new();
    for turn in 1..=4 {
        if turn == 3 {
            config.critical_instruction = Some("Never push to main or release.".to_string());
        }
        let mut ctx = GeneratorContext::new("/p").with_config(&config);
        ctx.turn_number = turn;
        if orchestrator
            .generate_all(&ctx)
            .await
            .iter()
            .any(|reminder| reminder.attachment_type == AttachmentType::CriticalInstruction)
        {
            fired_on.push(turn);
        }
    }
    assert_eq!(fired_on, vec![1, 3]);
}

#[test]
fn the_config_has_a_json_schema_with_every_switch() {
    let schema = schemars::schema_for!(SystemReminderConfig);
    let json = serde_json::to_value(&schema).unwrap();
    let switches = &json["definitions"]["AttachmentSettings"]["properties"];
    for attachment_type in AttachmentType::ALL {
        assert!(
            switches.get(attachment_type.as_str()).is_some(),
            "no switch for {attachment_type}"
        );
    }
    assert!(json["properties"].get("placement").is_some());
}
