use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use agentctx_model::LimitSource;
use agentctx_model::ModelClient as _;

use super::ModelSelection;
use super::SessionConfigError;
use super::SessionOverrides;
use super::find_session;
use super::plans_dir;
use super::resolve_model;
use super::session_setup;
use crate::config::Config;
use crate::config::EnvVars;

fn config(text: &str) -> Config {
    Config::from_toml(text, Path::new("config.toml")).unwrap()
}

async fn setup_error(config: &Config, env: &[(&str, &str)], overrides: SessionOverrides) -> String {
    let env = EnvVars::from_pairs(env.iter().copied());
    session_setup(config, &env, Path::new("/w"), Path::new("/h"), overrides)
        .await
        .unwrap_err()
        .to_string()
}

#[tokio::test]
async fn openai_takes_its_key_and_base_url_from_the_environment() {
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
    .await
    .unwrap();
    assert_eq!(setup.choice.provider.id, "openai");
    assert_eq!(
        setup.choice.provider.config.base_url,
        "http://127.0.0.1:9/v1"
    );
    assert_eq!(setup.choice.model.slug, "gpt-5");
    assert_eq!(
        setup.choice.model.context_window_source,
        LimitSource::ModelTable
    );
    assert_eq!(setup.options.provider_name, "openai");
    assert_eq!(setup.options.model.slug(), "gpt-5");
}

#[tokio::test]
async fn the_overrides_choose_provider_and_model() {
    let env = EnvVars::from_pairs([("OLLAMA_HOST", ":5000")]);
    let overrides = SessionOverrides {
        selection: ModelSelection {
            provider: Some("ollama".to_string()),
            model: Some("qwen3:8b".to_string()),
            context_window: Some(8192),
        },
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
    .await
    .unwrap();
    assert_eq!(
        setup.choice.provider.config.base_url,
        "http://127.0.0.1:5000/v1"
    );
    assert_eq!(setup.options.model.slug(), "qwen3:8b");
    // The flag's window reaches the client; no server was asked.
    assert_eq!(setup.options.model.context_window(), 8192);
    assert_eq!(setup.choice.model.context_window_source, LimitSource::Flag);
    assert!(setup.options.plan_mode);
}

#[tokio::test]
async fn a_missing_api_key_is_one_line_naming_the_variable() {
    let message = setup_error(
        &config("model = \"claude-sonnet-4\"\nmodel_provider = \"anthropic\"\n"),
        &[],
        SessionOverrides::default(),
    )
    .await;
    assert_eq!(
        message,
        "provider `Anthropic` needs an api key: set the environment variable `ANTHROPIC_API_KEY`"
    );
}

#[tokio::test]
async fn no_model_says_where_to_set_one() {
    let message = setup_error(
        &Config::default(),
        &[("OPENAI_API_KEY", "sk")],
        SessionOverrides::default(),
    )
    .await;
    assert_eq!(
        message,
        "no model chosen for provider `openai`: pass --model or set `model` in /h/config.toml"
    );
}

#[tokio::test]
async fn an_unknown_provider_names_the_known_ones() {
    let message = setup_error(
        &config("model = \"m\"\n"),
        &[],
        SessionOverrides {
            selection: ModelSelection {
                provider: Some("nope".to_string()),
                ..ModelSelection::default()
            },
            ..SessionOverrides::default()
        },
    )
    .await;
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

#[tokio::test]
async fn the_memory_and_hooks_sections_reach_the_session() {
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
    .await
    .unwrap();
    assert!(!setup.options.memory.generate_memories);
    assert_eq!(setup.options.memory.max_rollouts_per_startup, 7);
    assert!(!setup.options.hooks.read_project_settings);
}

#[tokio::test]
async fn a_chat_server_is_asked_for_an_unknown_window_and_the_top_level_key_wins_over_it() {
    use wiremock::Mock;
    use wiremock::MockServer;
    use wiremock::ResponseTemplate;
    use wiremock::matchers::method;
    use wiremock::matchers::path;

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/props"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(serde_json::json!({"default_generation_settings": {"n_ctx": 4096}})),
        )
        .mount(&server)
        .await;
    let text = format!(
        "model = \"smollm2\"\nmodel_provider = \"llama\"\n\
         [model_providers.llama]\nbase_url = \"{}/v1\"\nwire_api = \"chat\"\n",
        server.uri()
    );
    let env = EnvVars::new();
    let choice = resolve_model(
        &config(&text),
        &env,
        Path::new("/h"),
        &ModelSelection::default(),
    )
    .await
    .unwrap();
    assert_eq!(choice.model.info.context_window, 4096);
    assert_eq!(
        choice.model.context_window_source,
        LimitSource::ServerProbe {
            url: format!("{}/props", server.uri())
        }
    );
    assert_eq!(choice.client(&env).unwrap().context_window(), 4096);
    // Set at the top level, the window is not asked for.
    let requests_before = server.received_requests().await.unwrap().len();
    let choice = resolve_model(
        &config(&format!("model_context_window = 2048\n{text}")),
        &env,
        Path::new("/h"),
        &ModelSelection::default(),
    )
    .await
    .unwrap();
    assert_eq!(choice.model.info.context_window, 2048);
    assert_eq!(
        choice.model.context_window_source,
        LimitSource::ConfigTopLevel
    );
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        requests_before
    );
}

#[test]
fn a_model_is_named_by_a_flag_or_the_configuration() {
    assert!(!ModelSelection::default().names_a_model(&Config::default()));
    assert!(ModelSelection::default().names_a_model(&config("model = \"m\"\n")));
    let flag = ModelSelection {
        model: Some("m".to_string()),
        ..ModelSelection::default()
    };
    assert!(flag.names_a_model(&Config::default()));
}

#[test]
fn plans_go_where_the_loop_looks_for_them() {
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("repo");
    let sub = repo.join("crates/a");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let home = root.path().join("home");
    let defaults = Config::default();
    // The loop's first plan folder, from the top of the work tree, wherever the session runs.
    assert_eq!(
        plans_dir(&defaults, &sub, &home),
        repo.join(".agentctx/plans")
    );
    // Outside a repository, from the working directory.
    let plain = root.path().join("plain");
    assert_eq!(
        plans_dir(&defaults, &plain, &home),
        plain.join(".agentctx/plans")
    );
    let mut absolute = Config::default();
    absolute.loop_driver.plan_dirs = vec![PathBuf::from("/srv/plans")];
    assert_eq!(
        plans_dir(&absolute, &sub, &home),
        PathBuf::from("/srv/plans")
    );
    let mut none = Config::default();
    none.loop_driver.plan_dirs.clear();
    assert_eq!(plans_dir(&none, &sub, &home), home.join("plans"));
}
