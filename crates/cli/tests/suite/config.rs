//! `agentctx config show | schema`, a bad config, the logging switches (`-v`, `RUST_LOG`), and
//! `agentctx replay` judging sessions under config.toml as a live session would.

use std::path::Path;

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::replay::CLAUDE_SAMPLE;
use super::replay::json_lines;
use super::replay::replay;
use super::run_mock::mock_server;

/// `agentctx <args>` with `home` as `AGENTCTX_HOME` and none of the caller's switches, keys or
/// log settings.
fn agentctx(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.env("AGENTCTX_HOME", home)
        .env_remove("RUST_LOG")
        .args(args);
    for (name, _) in std::env::vars_os() {
        let name_text = name.to_string_lossy();
        if (name_text.starts_with("AGENTCTX_") && name_text != "AGENTCTX_HOME")
            || name_text.starts_with("CODEX_")
            || name_text.starts_with("OPENAI_")
            || name_text.starts_with("ANTHROPIC_")
            || name_text.starts_with("OLLAMA_")
        {
            cmd.env_remove(name);
        }
    }
    cmd
}

fn stdout_of(cmd: &mut Command) -> String {
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn line_of<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find(|line| line.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key} in\n{stdout}"))
}

#[test]
fn config_show_names_the_source_of_each_value() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("config.toml");
    std::fs::write(
        &file,
        "model = \"qwen3:8b\"\nmodel_provider = \"ollama\"\n\n[compact]\nauto_compact = false\n",
    )
    .unwrap();

    let stdout = stdout_of(
        agentctx(home.path(), &["config", "show"])
            .env("AGENTCTX_ENABLE_TOKEN_USAGE", "1")
            .env("OLLAMA_HOST", "gpu-box:11500"),
    );

    let file = file.display().to_string();
    assert_eq!(
        stdout.lines().next(),
        Some(format!("# {file} (exists)").as_str())
    );
    assert_eq!(
        line_of(&stdout, "model"),
        format!("model = \"qwen3:8b\"  # {file}:1")
    );
    assert_eq!(
        line_of(&stdout, "compact.auto_compact"),
        format!("compact.auto_compact = false  # {file}:5")
    );
    assert_eq!(
        line_of(&stdout, "system_reminder.enable_token_usage"),
        "system_reminder.enable_token_usage = true  # env AGENTCTX_ENABLE_TOKEN_USAGE"
    );
    assert_eq!(
        line_of(&stdout, "compact.micro_compact"),
        "compact.micro_compact = true  # default"
    );
    // The provider in use, its base URL from the variable Ollama's clients read.
    assert_eq!(line_of(&stdout, "provider"), "provider = \"ollama\"");
    assert_eq!(
        line_of(&stdout, "base_url"),
        "base_url = \"http://gpu-box:11500/v1\"  # env OLLAMA_HOST"
    );
    assert_eq!(
        line_of(&stdout, "api_key_env"),
        "api_key_env = none  # no key needed"
    );
}

#[test]
fn config_show_as_json_never_prints_the_key() {
    let home = tempfile::tempdir().unwrap();
    let output = agentctx(home.path(), &["config", "show", "--json"])
        .env("OPENAI_API_KEY", "sk-secret-value")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(!stdout.contains("sk-secret-value"));
    let show: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(show["file_exists"], false);
    assert_eq!(
        show["provider"],
        serde_json::json!({
            "id": "openai",
            "base_url": "https://api.openai.com/v1",
            "base_url_source": "preset",
            "api_key_env": "OPENAI_API_KEY",
            "api_key_set": true,
        })
    );
    let values = show["values"].as_array().unwrap();
    assert!(
        values
            .iter()
            .all(|value| value["source"] == serde_json::json!({"kind": "default"})),
        "{values:?}"
    );
}

#[test]
fn config_schema_prints_the_committed_schema() {
    let home = tempfile::tempdir().unwrap();
    let stdout = stdout_of(&mut agentctx(home.path(), &["config", "schema"]));
    // The library's schema is the one core commits (its `schema_is_fresh` test keeps the file in
    // step); compared in-process, so the test holds where the crates are vendored apart.
    assert_eq!(stdout, agentctx_core::Config::json_schema().unwrap());
    let schema: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for section in [
        "system_reminder",
        "compact",
        "skills",
        "memory",
        "hooks",
        "loop",
        "mcp_servers",
    ] {
        assert!(
            schema["properties"].get(section).is_some(),
            "the schema has the [{section}] section"
        );
    }
}

#[test]
fn a_bad_config_names_the_file_the_line_and_the_key() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("config.toml");
    std::fs::write(
        &file,
        "model = \"gpt-5\"\n\n[system_reminder]\nenabled = \"maybe\"\n",
    )
    .unwrap();

    let output = agentctx(home.path(), &["config", "show"]).output().unwrap();

    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "error: {}:4:11: `system_reminder.enabled`: invalid type: string \"maybe\", expected a boolean\n",
            file.display()
        )
    );
}

#[test]
fn a_missing_provider_is_an_error_naming_it() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "model_provider = \"nowhere\"\n",
    )
    .unwrap();
    let output = agentctx(home.path(), &["config", "show"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("unknown model provider `nowhere`"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn v_raises_the_log_level_and_logs_go_to_stderr() {
    let home = tempfile::tempdir().unwrap();
    let quiet = agentctx(home.path(), &["config", "show"]).output().unwrap();
    assert!(quiet.stderr.is_empty(), "{quiet:?}");

    let info = agentctx(home.path(), &["-v", "config", "show"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(info.stderr).unwrap();
    assert!(
        stderr.contains(" INFO ") && stderr.contains("agentctx started"),
        "{stderr}"
    );
    assert!(!stderr.contains("DEBUG"), "{stderr}");
    // stdout holds the command's output only.
    assert_eq!(info.stdout, quiet.stdout);

    let debug = agentctx(home.path(), &["config", "show", "-vv"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(debug.stderr).unwrap();
    assert!(
        stderr.contains("DEBUG") && stderr.contains("configuration loaded"),
        "{stderr}"
    );

    // RUST_LOG decides when set.
    let off = agentctx(home.path(), &["-vv", "config", "show"])
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    assert!(off.stderr.is_empty(), "{off:?}");
    let from_env = agentctx(home.path(), &["config", "show"])
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    assert!(
        String::from_utf8(from_env.stderr)
            .unwrap()
            .contains("DEBUG")
    );
}

/// The lines after `# model in use`.
fn model_section(stdout: &str) -> &str {
    let start = stdout.find("# model in use\n").expect("no model section");
    &stdout[start..]
}

#[test]
fn a_model_window_under_a_preset_keeps_its_url_and_config_show_names_the_source() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "model = \"qwen3:8b\"\nmodel_provider = \"ollama\"\nmodel_max_output_tokens = 2048\n\n\
         [model_providers.ollama.models.\"qwen3\"]\ncontext_window = 8192\n",
    )
    .unwrap();
    let stdout = stdout_of(&mut agentctx(home.path(), &["config", "show"]));
    assert_eq!(
        line_of(&stdout, "base_url"),
        "base_url = \"http://localhost:11434/v1\"  # preset"
    );
    let model = model_section(&stdout);
    assert_eq!(line_of(model, "model"), "model = \"qwen3:8b\"");
    assert_eq!(
        line_of(model, "context_window"),
        "context_window = 8192  # provider model entry"
    );
    assert_eq!(
        line_of(model, "max_output_tokens"),
        "max_output_tokens = 2048  # config top level"
    );
}

#[test]
fn config_show_asks_a_local_server_for_an_unknown_window() {
    let (_runtime, server) = mock_server(
        wiremock::Mock::given(wiremock::matchers::method("GET"))
            .and(wiremock::matchers::path("/props"))
            .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(
                serde_json::json!({"default_generation_settings": {"n_ctx": 4096}}),
            )),
    );
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "model = \"smollm2\"\nmodel_provider = \"llama\"\n\n[model_providers.llama]\n\
             base_url = \"{}/v1\"\nwire_api = \"chat\"\n",
            server.uri()
        ),
    )
    .unwrap();
    let show: Value = serde_json::from_str(&stdout_of(&mut agentctx(
        home.path(),
        &["config", "show", "--json"],
    )))
    .unwrap();
    assert_eq!(
        show["model"],
        serde_json::json!({
            "slug": "smollm2",
            "context_window": 4096,
            "context_window_source": format!("server probe {}/props", server.uri()),
            "max_output_tokens": null,
            "max_output_tokens_source": null,
        })
    );
    // Without a model there is nothing to show or ask.
    let empty = tempfile::tempdir().unwrap();
    let stdout = stdout_of(&mut agentctx(empty.path(), &["config", "show"]));
    assert_eq!(
        line_of(model_section(&stdout), "model"),
        "model = none  # no model configured"
    );
}

/// `agentctx replay --json --home <home> <args> CLAUDE_SAMPLE`: the session's report.
fn replay_json(home: &Path, args: &[&str]) -> Value {
    let output = replay(&["--json", "--home", home.to_str().unwrap()])
        .args(args)
        .arg(CLAUDE_SAMPLE)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    json_lines(&output.stdout).remove(0)
}

#[test]
fn replay_judges_sessions_under_the_compact_section_of_config_toml() {
    let empty = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("config.toml");
    std::fs::write(&file, "[compact]\nauto_compact_percent_override = 50\n").unwrap();

    // What `config show` says the file sets.
    let show: Value = serde_json::from_str(&stdout_of(&mut agentctx(
        home.path(),
        &["config", "show", "--json"],
    )))
    .unwrap();
    let percent = show["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|value| value["key"] == "compact.auto_compact_percent_override")
        .unwrap();
    assert_eq!(
        percent["source"],
        serde_json::json!({"kind": "file", "path": file, "line": 2})
    );
    let percent = percent["value"].as_u64().unwrap();

    // The Claude Code sample records no window: 200,000, less 20,000 reserved for output. By
    // default auto-compaction triggers 13,000 tokens below that; under the file, at 50% of it
    // (the warning never comes after the trigger).
    let defaults = replay_json(empty.path(), &[])["thresholds"].clone();
    assert_eq!(
        defaults,
        serde_json::json!({
            "window": 200_000,
            "effective_window": 180_000,
            "warning": 160_000,
            "auto_compact": 167_000,
            "blocking": 177_000,
        })
    );
    let configured = replay_json(home.path(), &[])["thresholds"].clone();
    assert_eq!(
        configured["auto_compact"].as_u64().unwrap(),
        defaults["effective_window"].as_u64().unwrap() * percent / 100
    );
    assert_eq!(
        configured,
        serde_json::json!({
            "window": 200_000,
            "effective_window": 180_000,
            "warning": 90_000,
            "auto_compact": 90_000,
            "blocking": 177_000,
        })
    );

    // `AGENTCTX_HOME` finds the file as `--home` does, and the environment's switch wins over
    // it, as in a session.
    let output = replay(&["--json", CLAUDE_SAMPLE])
        .env("AGENTCTX_HOME", home.path())
        .env("AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE", "40")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        json_lines(&output.stdout)[0]["thresholds"]["auto_compact"],
        72_000
    );

    // The human output names the file the settings came from, and only when there is one.
    let human = |home: &Path| {
        let output = replay(&["--home", home.to_str().unwrap(), CLAUDE_SAMPLE])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let stdout = human(home.path());
    assert_eq!(
        stdout.lines().last(),
        Some(format!("config: {}", file.display()).as_str()),
        "{stdout}"
    );
    let stdout = human(empty.path());
    assert!(
        stdout.lines().last().unwrap().starts_with("total: "),
        "{stdout}"
    );
    assert!(!stdout.contains("config: "), "{stdout}");
}

#[test]
fn replay_takes_the_reminder_settings_of_config_toml_unless_a_reminders_config_is_named() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[system_reminder]\nenable_token_usage = true\n\n[system_reminder.attachments]\n\
         todo_reminder = false\ntool_result = false\n",
    )
    .unwrap();
    // Every one of the sample's 43 requests has usage to report.
    assert_eq!(
        replay_json(home.path(), &[])["reminder_counts"],
        serde_json::json!({"token_usage": 43})
    );

    // `--reminders-config` replaces the section.
    let other = tempfile::tempdir().unwrap();
    let reminders = other.path().join("reminders.toml");
    std::fs::write(
        &reminders,
        "enable_token_usage = false\n\n[attachments]\ntodo_reminder = false\ntool_result = false\n",
    )
    .unwrap();
    assert_eq!(
        replay_json(
            home.path(),
            &["--reminders-config", reminders.to_str().unwrap()]
        )["reminder_counts"],
        serde_json::json!({})
    );

    // `--no-reminders` replays none.
    assert!(
        replay_json(home.path(), &["--no-reminders"])
            .get("reminder_counts")
            .is_none()
    );
}

#[test]
fn a_bad_config_fails_replay_with_the_error_run_gives() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("config.toml");
    std::fs::write(
        &file,
        "[compact]\nauto_compact_percent_override = \"half\"\n",
    )
    .unwrap();
    let expected = format!(
        "error: {}:2:33: `compact.auto_compact_percent_override`: invalid type: string \"half\", expected u8\n",
        file.display()
    );

    let output = replay(&["--home", home.path().to_str().unwrap(), CLAUDE_SAMPLE])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    assert_eq!(String::from_utf8(output.stderr).unwrap(), expected);

    // `agentctx run` stops at the same file, line and key, before any model is asked.
    let cwd = tempfile::tempdir().unwrap();
    let output = agentctx(
        home.path(),
        &[
            "run",
            "--yes",
            "--cwd",
            cwd.path().to_str().unwrap(),
            "hello",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(String::from_utf8(output.stderr).unwrap(), expected);
}
