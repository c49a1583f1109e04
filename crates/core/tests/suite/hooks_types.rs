//! The hook types beyond `command` and the decisions that change the session, live: an `http`
//! hook POSTs the input to a local server (wiremock) with its headers, a `prompt` hook is
//! judged by the session's model, an `mcp_tool` hook calls a tool of a connected MCP server,
//! a `SubagentStop` block keeps the subagent going, a `PermissionRequest` hook denies a
//! command, a `PreCompact` hook blocks `/compact` (Claude Code's hooks reference,
//! <https://code.claude.com/docs/en/hooks>).

use std::collections::BTreeMap;
use std::sync::Arc;

use agentctx_core::ApprovalDecision;
use agentctx_core::ApprovalPolicy;
use agentctx_core::FixedApprover;
use agentctx_core::HookCommand;
use agentctx_core::HookMatcher;
use agentctx_core::McpConnectionManager;
use agentctx_core::Session;
use agentctx_core::SessionEndReason;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::header;
use wiremock::matchers::method;
use wiremock::matchers::path;

use super::hooks_events::capture;
use super::hooks_events::captured;
use super::mcp::rmcp_server;
use super::support::dirs;
use super::support::drain;
use super::support::options;
use super::support::warnings;

fn matcher(matcher: Option<&str>, hook: HookCommand) -> Vec<HookMatcher> {
    vec![HookMatcher {
        matcher: matcher.map(str::to_string),
        hooks: vec![hook],
    }]
}

fn texts(prompt: &agentctx_model::Prompt<'_>) -> Vec<String> {
    prompt
        .items()
        .filter_map(ResponseItem::message_text)
        .collect()
}

fn outputs(prompt: &agentctx_model::Prompt<'_>) -> Vec<String> {
    prompt
        .items()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { output, .. } => Some(output.text_content()),
            _ => None,
        })
        .collect()
}

/// A live session in which a tool fails, the session ends, and an `http` hook on
/// `PostToolUseFailure` and `SessionEnd` receives the same documented JSON as a `command`
/// hook, with its headers.
#[tokio::test]
async fn session_end_post_tool_use_failure_and_an_http_hook_fire_with_the_documented_input() {
    let dirs = dirs();
    let server = MockServer::start().await;
    // `$HOME` is listed in `allowedEnvVars`, `$PATH` is not.
    let home = std::env::var("HOME").unwrap_or_default();
    Mock::given(method("POST"))
        .and(path("/hooks"))
        .and(header("authorization", format!("Bearer {home}").as_str()))
        .and(header("x-unlisted", "[]"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let http = HookCommand {
        kind: "http".to_string(),
        url: Some(format!("{}/hooks", server.uri())),
        headers: BTreeMap::from([
            ("Authorization".to_string(), "Bearer $HOME".to_string()),
            ("X-Unlisted".to_string(), "[${PATH}]".to_string()),
        ]),
        allowed_env_vars: vec!["HOME".to_string()],
        timeout: Some(5),
        ..HookCommand::default()
    };
    let log = dirs.home.join("hooks.jsonl");
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "read_file",
        r#"{"path": "missing.txt"}"#,
    ));
    model.push(ScriptedResponse::text("It does not exist."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    for event in ["PostToolUseFailure", "SessionEnd"] {
        let mut matchers = vec![capture(&log)];
        matchers.extend(matcher(None, http.clone()));
        options.hooks.events.insert(event.to_string(), matchers);
    }
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("read missing.txt", &CancellationToken::new())
        .await
        .unwrap();
    session.end(SessionEndReason::Other).await;

    assert_eq!(warnings(drain(&mut events)), Vec::<String>::new());
    let commands = captured(&log, &dirs, &session);
    let posted: Vec<Value> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| {
            assert_eq!(
                request.headers.get("content-type").unwrap(),
                "application/json"
            );
            let text = String::from_utf8(request.body.clone()).unwrap();
            let text = text
                .replace(
                    &session.rollout_path().display().to_string(),
                    "[transcript]",
                )
                .replace(session.session_id(), "[session]")
                .replace(&dirs.cwd.display().to_string(), "[cwd]");
            serde_json::from_str(&text).unwrap()
        })
        .collect();
    assert_eq!(posted, commands);
    insta::assert_json_snapshot!("http_hook_posts", posted);
}

/// A non-2xx answer is a non-blocking error: the user is told, the call runs.
#[tokio::test]
async fn an_http_hook_answering_500_does_not_block() {
    let dirs = dirs();
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_json(
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}),
        ))
        .mount(&server)
        .await;
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "read_file",
        r#"{"path": "a.txt"}"#,
    ));
    model.push(ScriptedResponse::text("Read."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let url = format!("{}/deny", server.uri());
    options.hooks.events.insert(
        "PreToolUse".to_string(),
        matcher(
            Some("Read"),
            HookCommand {
                kind: "http".to_string(),
                url: Some(url.clone()),
                ..HookCommand::default()
            },
        ),
    );
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("read a.txt", &CancellationToken::new())
        .await
        .unwrap();
    assert!(outputs(&model.prompts()[1])[0].contains("alpha"));
    assert_eq!(
        warnings(drain(&mut events)),
        vec![format!("PreToolUse hook `{url}` failed: HTTP status 500")]
    );
}

/// A `prompt` hook on `Stop`: the session's model judges the input (`$ARGUMENTS`), answers
/// `{"ok": false, "reason": ...}` and the model goes on with the reason, then `{"ok": true}`.
#[tokio::test]
async fn a_prompt_hook_is_judged_by_the_sessions_model() {
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Done."));
    model.push(ScriptedResponse::text(
        r#"{"ok": false, "reason": "The tests were not run."}"#,
    ));
    model.push(ScriptedResponse::text("Tests pass. Done."));
    model.push(ScriptedResponse::text(r#"{"ok": true}"#));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options.hooks.events.insert(
        "Stop".to_string(),
        matcher(
            None,
            HookCommand {
                kind: "prompt".to_string(),
                prompt: Some("Should the agent stop? $ARGUMENTS".to_string()),
                ..HookCommand::default()
            },
        ),
    );
    let (mut session, _events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("fix it", &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(outcome.last_message.as_deref(), Some("Tests pass. Done."));
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 4);
    let judged = texts(&prompts[1]).join("\n");
    assert!(judged.starts_with("Should the agent stop? {"), "{judged}");
    assert!(judged.contains(r#""hook_event_name":"Stop""#), "{judged}");
    assert!(
        judged.contains(r#""last_assistant_message":"Done.""#),
        "{judged}"
    );
    assert!(
        texts(&prompts[2])
            .iter()
            .any(|text| text.contains("The tests were not run.")),
        "{:#?}",
        texts(&prompts[2])
    );
    assert!(
        texts(&prompts[3])
            .join("\n")
            .contains(r#""stop_hook_active":true"#)
    );
}

/// An `mcp_tool` hook on `UserPromptSubmit` calls `echo` on the connected server with the
/// input's `${prompt}`; the tool's text is the hook's output, which for this event reaches the
/// model as context. A tool of a server that is not configured is a non-blocking error.
#[tokio::test]
async fn an_mcp_tool_hook_calls_a_connected_servers_tool() {
    let dirs = dirs();
    let servers = BTreeMap::from([("web".to_string(), rmcp_server(&[]))]);
    let manager = McpConnectionManager::start(&servers, &dirs.cwd).await;
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Hi."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let tool = |server: &str| HookCommand {
        kind: "mcp_tool".to_string(),
        server: Some(server.to_string()),
        tool: Some("echo".to_string()),
        input: Some(json!({"text": "checked ${prompt} in ${hook_event_name}"})),
        ..HookCommand::default()
    };
    options.hooks.events.insert(
        "UserPromptSubmit".to_string(),
        vec![HookMatcher {
            matcher: None,
            hooks: vec![tool("web"), tool("absent")],
        }],
    );
    let (mut session, mut events) = Session::new(options).unwrap();
    session.attach_mcp(Arc::new(manager));
    session
        .run_turn("hello there", &CancellationToken::new())
        .await
        .unwrap();

    let first = texts(&model.prompts()[0]).join("\n");
    assert!(
        first.contains("echo: checked hello there in UserPromptSubmit"),
        "{first}"
    );
    let warnings = warnings(drain(&mut events));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("UserPromptSubmit hook `absent/echo` failed: absent/echo:"),
        "{warnings:?}"
    );
}

/// `SubagentStop` with `decision: "block"` keeps the subagent running with the reason as its
/// next instruction; its input has the subagent's `agent_id`, `agent_type`, and
/// `stop_hook_active` true the second time.
#[tokio::test]
async fn a_subagent_stop_block_keeps_the_subagent_going_with_the_reason() {
    let dirs = dirs();
    let log = dirs.home.join("hooks.jsonl");
    let hook = format!(
        r#"input=$(cat); echo "$input" >> '{}'
if echo "$input" | grep -q '"stop_hook_active":false'; then
  echo '{{"decision": "block", "reason": "Also look under benches/."}}'
fi"#,
        log.display()
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_task",
        "task",
        r#"{"agent": "Explore", "prompt": "Find the tests"}"#,
    ));
    model.push(ScriptedResponse::text("Tests are in tests/."));
    model.push(ScriptedResponse::text("Tests are in tests/ and benches/."));
    model.push(ScriptedResponse::text("Found them."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options.hooks.events.insert(
        "SubagentStop".to_string(),
        matcher(Some("Explore"), HookCommand::shell(hook)),
    );
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("find the tests", &CancellationToken::new())
        .await
        .unwrap();

    let prompts = model.prompts();
    assert!(
        texts(&prompts[2])
            .iter()
            .any(|text| text.contains("Also look under benches/.")),
        "{:#?}",
        texts(&prompts[2])
    );
    assert_eq!(
        outputs(&prompts[3]),
        vec!["Tests are in tests/ and benches/.".to_string()]
    );
    let inputs = captured(&log, &dirs, &session);
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0]["agent_type"], "Explore");
    assert_eq!(inputs[0]["stop_hook_active"], false);
    assert_eq!(inputs[1]["stop_hook_active"], true);
    assert_eq!(
        inputs[1]["last_assistant_message"],
        "Tests are in tests/ and benches/."
    );
}

/// A `PermissionRequest` hook denies a shell command before the user is asked (the approver
/// would approve), its `message` in what the model reads; with no decision the `Notification`
/// hook hears `permission_prompt`.
#[tokio::test]
async fn a_permission_request_hook_denies_before_the_user_is_asked() {
    let dirs = dirs();
    let log = dirs.home.join("hooks.jsonl");
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "shell",
        r#"{"command": "rm -rf build"}"#,
    ));
    model.push(ScriptedResponse::new().with_function_call(
        "call_2",
        "shell",
        r#"{"command": "echo fine"}"#,
    ));
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options.approval = ApprovalPolicy::OnRequest;
    options.approver = Some(Arc::new(FixedApprover(ApprovalDecision::Approved)));
    let deny = r#"input=$(cat)
if echo "$input" | grep -q 'rm -rf'; then
  echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no rm -rf"}}}'
fi"#;
    options.hooks.events.insert(
        "PermissionRequest".to_string(),
        matcher(Some("Bash"), HookCommand::shell(deny)),
    );
    options
        .hooks
        .events
        .insert("Notification".to_string(), vec![capture(&log)]);
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("clean up", &CancellationToken::new())
        .await
        .unwrap();

    let prompts = model.prompts();
    assert_eq!(
        outputs(&prompts[1]),
        vec![
            "Error: the user did not approve running `rm -rf build`\nReason: no rm -rf".to_string()
        ]
    );
    assert!(
        outputs(&prompts[2])[1].contains("fine"),
        "{:?}",
        outputs(&prompts[2])
    );
    assert!(
        warnings(drain(&mut events))
            .contains(&"a PermissionRequest hook denied Bash: no rm -rf".to_string())
    );
    let notifications = captured(&log, &dirs, &session);
    assert_eq!(notifications.len(), 1);
    assert_eq!(notifications[0]["notification_type"], "permission_prompt");
}

/// A `PreCompact` hook blocks the user's `/compact` (trigger `manual`, its instructions in
/// `custom_instructions`): nothing is summarised.
#[tokio::test]
async fn a_pre_compact_hook_blocks_a_manual_compaction() {
    let dirs = dirs();
    let log = dirs.home.join("hooks.jsonl");
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Hi."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let block = format!(
        r#"cat >> '{}'; echo >> '{}'; echo 'Not during the release.' >&2; exit 2"#,
        log.display(),
        log.display()
    );
    options.hooks.events.insert(
        "PreCompact".to_string(),
        matcher(Some("manual"), HookCommand::shell(block)),
    );
    let (mut session, mut events) = Session::new(options).unwrap();
    let cancel = CancellationToken::new();
    session.run_turn("hello", &cancel).await.unwrap();
    let before = session.history().len();
    session
        .run_input("/compact keep it short", &cancel)
        .await
        .unwrap();

    assert_eq!(session.history().len(), before);
    assert_eq!(model.prompts().len(), 1);
    let inputs = captured(&log, &dirs, &session);
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0]["trigger"], "manual");
    assert_eq!(inputs[0]["custom_instructions"], "keep it short");
    assert!(warnings(drain(&mut events)).contains(
        &"a PreCompact hook blocked the compaction: Not during the release.".to_string()
    ));
}
