use std::path::Path;

use pretty_assertions::assert_eq;

use super::SessionConfigError;
use super::SessionOverrides;
use super::find_session;
use super::session_setup;
use crate::config::Config;
use crate::config::EnvVars;

fn config(text: &str) -> Config {
    Config::from_toml(text, Path::new("config.toml")).unwrap()
}

fn setup_error(config: &Config, env: &[(&str, &str)], overrides: SessionOverrides) -> String {
    let env = EnvVars::from_pairs(env.iter().copied());
    session_setup(config, &env, Path::new("/w"), Path::new("/h"), overrides)
        .unwrap_err()
        .to_string()
}

#[test]
fn openai_takes_its_key_and_base_url_from_the_environment() {
    let env = EnvVars::from_pairs([
        ("OPENAI_API_KEY", "sk-test"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
    ]);
    let setup = session_setup(
        &config("model = \"gpt-5\"\n"),
        &env,
        Path::new("/w"),
        Path::new("/h"),
        SessionOverrides::default(),
    )
    .unwrap();
    assert_eq!(setup.provider.id, "openai");
    assert_eq!(setup.provider.config.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(setup.model, "gpt-5");
    assert_eq!(setup.options.provider_name, "openai");
    assert_eq!(setup.options.model.slug(), "gpt-5");
}

#[test]
fn the_overrides_choose_provider_and_model() {
    let env = EnvVars::from_pairs([("OLLAMA_HOST", ":5000")]);
    let overrides = SessionOverrides {
        provider: Some("ollama".to_string()),
        model: Some("qwen3:8b".to_string()),
        plan_mode: true,
        ..SessionOverrides::default()
    };
    let setup = session_setup(
        &config("model = \"gpt-5\"\n"),
        &env,
        Path::new("/w"),
        Path::new("/h"),
        overrides,
    )
    .unwrap();
    assert_eq!(setup.provider.config.base_url, "http://127.0.0.1:5000/v1");
    assert_eq!(setup.options.model.slug(), "qwen3:8b");
    assert!(setup.options.plan_mode);
}

#[test]
fn a_missing_api_key_is_one_line_naming_the_variable() {
    let message = setup_error(
        &config("model = \"claude-sonnet-4\"\nmodel_provider = \"anthropic\"\n"),
        &[],
        SessionOverrides::default(),
    );
    assert_eq!(
        message,
        "provider `Anthropic` needs an api key: set the environment variable `ANTHROPIC_API_KEY`"
    );
}

#[test]
fn no_model_says_where_to_set_one() {
    let message = setup_error(
        &Config::default(),
        &[("OPENAI_API_KEY", "sk")],
        SessionOverrides::default(),
    );
    assert_eq!(
        message,
        "no model chosen for provider `openai`: pass --model or set `model` in /h/config.toml"
    );
}

#[test]
fn an_unknown_provider_names_the_known_ones() {
    let message = setup_error(
        &config("model = \"m\"\n"),
        &[],
        SessionOverrides {
            provider: Some("nope".to_string()),
            ..SessionOverrides::default()
        },
    );
    assert!(
        message.contains("unknown model provider `nope`"),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1);
}

#[test]
fn sessions_are_found_by_id_or_as_the_newest() {
    let home = tempfile::tempdir().unwrap();
    let day = home.path().join("sessions/2026/01/02");
    std::fs::create_dir_all(&day).unwrap();
    let old = day.join("rollout-2026-01-02T10-00-00-aaaa.jsonl");
    let new = day.join("rollout-2026-01-02T11-00-00-bbbb.jsonl");
    std::fs::write(&old, "").unwrap();
    std::fs::write(&new, "").unwrap();
    assert_eq!(find_session(home.path(), "last").unwrap(), new);
    assert_eq!(find_session(home.path(), "aaaa").unwrap(), old);
    assert!(matches!(
        find_session(home.path(), "cccc"),
        Err(SessionConfigError::NoSuchSession(_))
    ));
    let empty = tempfile::tempdir().unwrap();
    assert!(
        find_session(empty.path(), "last")
            .unwrap_err()
            .to_string()
            .starts_with("no recorded sessions under ")
    );
}

#[test]
fn the_memory_and_hooks_sections_reach_the_session() {
    let env = EnvVars::from_pairs([("OPENAI_API_KEY", "sk-test")]);
    let setup = session_setup(
        &config(
            "model = \"gpt-5\"\n\n[memory]\ngenerate_memories = false\nmax_rollouts_per_startup = 7\n\n[hooks]\nread_project_settings = false\n",
        ),
        &env,
        Path::new("/w"),
        Path::new("/h"),
        SessionOverrides::default(),
    )
    .unwrap();
    assert!(!setup.options.memory.generate_memories);
    assert_eq!(setup.options.memory.max_rollouts_per_startup, 7);
    assert!(!setup.options.hooks.read_project_settings);
}
