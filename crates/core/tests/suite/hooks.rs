//! `hooks_ext.rs` with real shell scripts in temporary folders: Claude Code's hook contract
//! end to end through a session.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_core::HookCommand;
use agentctx_core::HookMatcher;
use agentctx_core::Session;
use agentctx_core::SessionOptions;
use agentctx_model::Prompt;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Dirs;
use super::support::dirs;
use super::support::drain;
use super::support::options;
use super::support::warnings;

/// An executable script `name` under `dir` with `body` after the shebang.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/bash\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn hook(matcher: Option<&str>, command: &str, timeout: Option<u64>) -> HookMatcher {
    HookMatcher {
        matcher: matcher.map(str::to_string),
        hooks: vec![HookCommand {
            kind: "command".to_string(),
            command: command.to_string(),
            timeout,
            ..HookCommand::default()
        }],
    }
}

fn session_options(dirs: &Dirs, model: &ScriptedModelClient) -> SessionOptions {
    let mut options = options(dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options
}

fn with_hooks(options: &mut SessionOptions, event: &str, matchers: Vec<HookMatcher>) {
    options.hooks.events.insert(event.to_string(), matchers);
}

fn texts(prompt: &Prompt<'_>) -> Vec<String> {
    prompt
        .items()
        .filter_map(ResponseItem::message_text)
        .collect()
}

fn outputs(prompt: &Prompt<'_>) -> Vec<String> {
    prompt
        .items()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { output, .. } => Some(output.text_content()),
            _ => None,
        })
        .collect()
}

fn reminder_with<'a>(texts: &'a [String], needle: &str) -> &'a str {
    texts
        .iter()
        .find(|text| text.contains(needle))
        .unwrap_or_else(|| panic!("no text with {needle:?} in {texts:#?}"))
}

#[tokio::test]
async fn a_blocking_pre_tool_use_hook_stops_a_write_and_the_model_reads_why() {
    let dirs = dirs();
    let input_file = dirs.home.join("pre_tool_use.json");
    let guard = script(
        &dirs.home,
        "guard.sh",
        &format!(
            "cat > '{}'\necho 'secret.txt is protected; write elsewhere' >&2\nexit 2",
            input_file.display()
        ),
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "c1",
        "write_file",
        json!({"path": "secret.txt", "content": "hunter2"}).to_string(),
    ));
    model.push(ScriptedResponse::text("I will not write it."));
    let mut options = session_options(&dirs, &model);
    with_hooks(
        &mut options,
        "PreToolUse",
        vec![hook(
            Some("Edit|Write"),
            &guard.display().to_string(),
            Some(5),
        )],
    );
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("write the secret", &CancellationToken::new())
        .await
        .unwrap();

    assert!(!dirs.cwd.join("secret.txt").exists());
    let prompts = model.prompts();
    assert_eq!(
        outputs(&prompts[1]),
        vec![
            "Error: a PreToolUse hook blocked this call: secret.txt is protected; write elsewhere"
                .to_string()
        ]
    );
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(&input_file).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Write");
    assert_eq!(input["agentctx_tool_name"], "write_file");
    assert_eq!(input["tool_input"]["file_path"], "secret.txt");
    assert_eq!(input["session_id"], session.session_id());
    assert_eq!(
        input["transcript_path"],
        session.rollout_path().display().to_string()
    );
    assert_eq!(input["cwd"], dirs.cwd.display().to_string());
}

#[tokio::test]
async fn post_tool_use_additional_context_reaches_the_next_request() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let post = script(
        &dirs.home,
        "post.sh",
        r#"cat > /dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "a.txt is generated; edit a.src instead."}}'"#,
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "c1",
        "read_file",
        json!({"path": "a.txt"}).to_string(),
    ));
    model.push(ScriptedResponse::text("Read it."));
    let mut options = session_options(&dirs, &model);
    with_hooks(
        &mut options,
        "PostToolUse",
        vec![hook(Some("Read"), &post.display().to_string(), None)],
    );
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("read a.txt", &CancellationToken::new())
        .await
        .unwrap();

    let prompts = model.prompts();
    assert!(
        !texts(&prompts[0])
            .iter()
            .any(|text| text.contains("additional context"))
    );
    let second = texts(&prompts[1]);
    insta::assert_snapshot!(
        "post_tool_use_additional_context",
        reminder_with(&second, "hook additional context")
    );
}

#[tokio::test]
async fn user_prompt_submit_and_session_start_output_reach_the_model() {
    let dirs = dirs();
    let prompt_file = dirs.home.join("prompt.json");
    let on_prompt = script(
        &dirs.home,
        "on_prompt.sh",
        &format!(
            "cat > '{}'\necho 'Current branch: main (2 files changed)'",
            prompt_file.display()
        ),
    );
    let on_start = script(
        &dirs.home,
        "on_start.sh",
        "cat > /dev/null\necho \"Project at $CLAUDE_PROJECT_DIR\"",
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Hi."));
    let mut options = session_options(&dirs, &model);
    with_hooks(
        &mut options,
        "UserPromptSubmit",
        vec![hook(None, &on_prompt.display().to_string(), None)],
    );
    with_hooks(
        &mut options,
        "SessionStart",
        vec![hook(Some("startup"), &on_start.display().to_string(), None)],
    );
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("what changed?", &CancellationToken::new())
        .await
        .unwrap();

    let first = texts(&model.prompts()[0]);
    let cwd = dirs.cwd.display().to_string();
    insta::assert_snapshot!(
        "user_prompt_submit_success",
        reminder_with(&first, "UserPromptSubmit hook success").replace(&cwd, "<cwd>")
    );
    assert!(
        reminder_with(&first, "SessionStart hook success").contains(&format!("Project at {cwd}"))
    );
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(&prompt_file).unwrap()).unwrap();
    assert_eq!(input["prompt"], "what changed?");
    assert_eq!(input["hook_event_name"], "UserPromptSubmit");
}

#[tokio::test]
async fn a_blocking_user_prompt_submit_hook_stops_the_turn_before_the_model() {
    let dirs = dirs();
    let guard = script(
        &dirs.home,
        "guard.sh",
        "cat > /dev/null\necho 'prompts may not mention passwords' >&2\nexit 2",
    );
    let model = ScriptedModelClient::new("test-model");
    let mut options = session_options(&dirs, &model);
    with_hooks(
        &mut options,
        "UserPromptSubmit",
        vec![hook(None, &guard.display().to_string(), None)],
    );
    let (mut session, mut events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("print the password", &CancellationToken::new())
        .await
        .unwrap();

    assert!(outcome.aborted);
    assert_eq!(outcome.requests, 0);
    assert!(model.prompts().is_empty());
    assert_eq!(
        warnings(drain(&mut events)),
        vec!["UserPromptSubmit hook blocked: prompts may not mention passwords".to_string()]
    );
}

#[tokio::test(start_paused = true)]
async fn a_hook_that_hangs_is_killed_at_its_timeout_and_the_turn_goes_on() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let hang = script(&dirs.home, "hang.sh", "sleep 600");
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "c1",
        "read_file",
        json!({"path": "a.txt"}).to_string(),
    ));
    model.push(ScriptedResponse::text("Done."));
    let mut options = session_options(&dirs, &model);
    with_hooks(
        &mut options,
        "PreToolUse",
        vec![hook(None, &hang.display().to_string(), Some(3))],
    );
    let (mut session, mut events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("read a.txt", &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(outcome.last_message.as_deref(), Some("Done."));
    assert!(outputs(&model.prompts()[1])[0].contains("alpha"));
    assert_eq!(
        warnings(drain(&mut events)),
        vec![format!(
            "PreToolUse hook `{}` timed out and was killed",
            hang.display()
        )]
    );
}

#[tokio::test]
async fn failing_crashing_noisy_and_unexecutable_hooks_never_break_the_turn() {
    let dirs = dirs();
    let fails = script(
        &dirs.home,
        "fails.sh",
        "cat > /dev/null\necho 'lint config missing' >&2\nexit 1",
    );
    let crashes = script(&dirs.home, "crashes.sh", "cat > /dev/null\nkill -SEGV $$");
    let noisy = script(
        &dirs.home,
        "noisy.sh",
        "head -c 5000000 /dev/zero | tr '\\0' 'a'\nexit 0",
    );
    let not_executable = dirs.home.join("plain.sh");
    std::fs::write(&not_executable, "#!/bin/bash\nexit 2\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "c1",
        "write_file",
        json!({"path": "out.txt", "content": "ok\n"}).to_string(),
    ));
    model.push(ScriptedResponse::text("Wrote it."));
    let mut options = session_options(&dirs, &model);
    with_hooks(
        &mut options,
        "PreToolUse",
        vec![
            hook(Some("write_file"), &fails.display().to_string(), None),
            hook(Some("write_file"), &crashes.display().to_string(), None),
            hook(
                Some("write_file"),
                &not_executable.display().to_string(),
                None,
            ),
        ],
    );
    with_hooks(
        &mut options,
        "PostToolUse",
        vec![hook(None, &noisy.display().to_string(), None)],
    );
    let (mut session, mut events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("write out.txt", &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(outcome.last_message.as_deref(), Some("Wrote it."));
    assert_eq!(
        std::fs::read_to_string(dirs.cwd.join("out.txt")).unwrap(),
        "ok\n"
    );
    let mut warnings = warnings(drain(&mut events));
    warnings.sort();
    let home = dirs.home.display().to_string();
    let warnings: Vec<String> = warnings
        .into_iter()
        .map(|warning| warning.replace(&home, "<home>"))
        .collect();
    insta::assert_debug_snapshot!("failing_hook_warnings", warnings);
    // The noisy hook's megabytes reach neither the model nor the history.
    let second = texts(&model.prompts()[1]);
    assert!(second.iter().all(|text| text.len() < 20_000));
}

#[tokio::test]
async fn a_stop_hook_keeps_the_model_working_once_with_its_reason() {
    let dirs = dirs();
    let stop = script(
        &dirs.home,
        "stop.sh",
        r#"input=$(cat)
if echo "$input" | grep -q '"stop_hook_active":false'; then
  echo 'Run the tests before you finish.' >&2
  exit 2
fi
exit 0"#,
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Done."));
    model.push(ScriptedResponse::text("Tests pass. Done."));
    let mut options = session_options(&dirs, &model);
    with_hooks(
        &mut options,
        "Stop",
        vec![hook(None, &stop.display().to_string(), None)],
    );
    let (mut session, _events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("fix it", &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(outcome.requests, 2);
    assert_eq!(outcome.last_message.as_deref(), Some("Tests pass. Done."));
    let second = texts(&model.prompts()[1]);
    assert!(
        reminder_with(&second, "Stop hook blocking error")
            .contains("Run the tests before you finish.")
    );
}

#[tokio::test]
async fn an_unchanged_claude_code_project_settings_json_works() {
    let dirs = dirs();
    let hooks_dir = dirs.cwd.join(".claude").join("hooks");
    std::fs::create_dir_all(&hooks_dir).unwrap();
    script(
        &hooks_dir,
        "block-rm.sh",
        r#"input=$(cat)
if echo "$input" | grep -q '"command":"rm '; then
  echo "Blocked: rm commands are not allowed" >&2
  exit 2
fi
exit 0"#,
    );
    // As a Claude Code project commits it: other keys, other events, other hook types.
    std::fs::write(
        dirs.cwd.join(".claude").join("settings.json"),
        r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": { "allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"] },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh", "timeout": 10 }
        ]
      }
    ],
    "Notification": [
      { "hooks": [ { "type": "command", "command": "notify-send 'Claude Code' 'Awaiting your input'" } ] }
    ]
  }
}
"#,
    )
    .unwrap();
    std::fs::write(
        dirs.cwd.join(".claude").join("settings.local.json"),
        r#"{ "hooks": { "UserPromptSubmit": [ { "hooks": [ { "type": "command", "command": "cat > /dev/null; echo 'local note'" } ] } ] } }"#,
    )
    .unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "c1",
        "shell",
        json!({"command": "rm -rf build"}).to_string(),
    ));
    model.push(ScriptedResponse::text("Not removed."));
    std::fs::create_dir_all(dirs.cwd.join("build")).unwrap();
    let options = session_options(&dirs, &model);
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("clean up", &CancellationToken::new())
        .await
        .unwrap();

    assert!(dirs.cwd.join("build").exists());
    let prompts = model.prompts();
    assert_eq!(
        outputs(&prompts[1]),
        vec![
            "Error: a PreToolUse hook blocked this call: Blocked: rm commands are not allowed"
                .to_string()
        ]
    );
    assert!(
        reminder_with(&texts(&prompts[0]), "UserPromptSubmit hook success").contains("local note")
    );
}

#[tokio::test]
async fn hooks_off_in_config_run_nothing() {
    let dirs = dirs();
    let marker = dirs.home.join("ran");
    let touch = format!("cat > /dev/null; touch '{}'", marker.display());
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Hi."));
    let mut options = session_options(&dirs, &model);
    options.hooks.events = BTreeMap::from([(
        "UserPromptSubmit".to_string(),
        vec![hook(None, &touch, None)],
    )]);
    options.hooks.enabled = false;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("hello", &CancellationToken::new())
        .await
        .unwrap();
    assert!(!marker.exists());
}

#[test]
fn the_hooks_section_of_config_toml_has_claude_codes_shape() {
    let config = agentctx_core::Config::from_toml(
        r#"
[hooks]
read_project_settings = false

[[hooks.PreToolUse]]
matcher = "write_file|edit_file"
hooks = [{ type = "command", command = "./check.sh", timeout = 5 }]
"#,
        Path::new("config.toml"),
    )
    .unwrap();
    assert!(!config.hooks.read_project_settings);
    assert_eq!(
        config.hooks.events["PreToolUse"],
        vec![hook(Some("write_file|edit_file"), "./check.sh", Some(5))]
    );
}
