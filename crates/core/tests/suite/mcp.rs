//! MCP servers in a session: tools offered as `mcp__<server>__<tool>` and routed, `@server:uri`
//! mentions read into the `mcp_resources` reminder, servers that fail to start or die reported
//! once with their tools withdrawn. The servers are core's rmcp test server (the
//! `mcp_test_server` example) and, for interop, the reference `server-everything`.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_core::McpConnectionManager;
use agentctx_core::McpServerConfig;
use agentctx_core::McpServerState;
use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_core::SessionOptions;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use pretty_assertions::assert_eq;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

/// The rmcp test server, built by cargo with the tests as an example of this crate.
pub(crate) fn test_server() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/<profile>/deps/all-<hash> -> target/<profile>/examples/mcp_test_server
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("target profile folder");
    let server = profile.join("examples").join("mcp_test_server");
    assert!(
        server.exists(),
        "{} is missing: build it with `cargo build -p agentctx-core --examples`",
        server.display()
    );
    server
}

pub(crate) fn rmcp_server(args: &[&str]) -> McpServerConfig {
    McpServerConfig::stdio(
        test_server().display().to_string(),
        args.iter().map(|arg| (*arg).to_string()),
    )
}

pub(crate) struct McpSession {
    pub session: Session,
    pub events: UnboundedReceiver<SessionEvent>,
    pub model: ScriptedModelClient,
    _cwd: tempfile::TempDir,
    _home: tempfile::TempDir,
}

pub(crate) async fn session_with(servers: BTreeMap<String, McpServerConfig>) -> McpSession {
    let cwd = tempfile::tempdir().expect("cwd");
    let home = tempfile::tempdir().expect("home");
    let manager = McpConnectionManager::start(&servers, cwd.path()).await;
    let model = ScriptedModelClient::new("test-model");
    let options = SessionOptions::new(cwd.path(), home.path(), Arc::new(model.clone()));
    let (mut session, events) = Session::new(options).expect("session");
    session.attach_mcp(Arc::new(manager));
    McpSession {
        session,
        events,
        model,
        _cwd: cwd,
        _home: home,
    }
}

pub(crate) fn tool_names(prompt: &agentctx_model::Prompt<'_>) -> Vec<String> {
    prompt
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .filter(|name| name.starts_with("mcp__"))
        .collect()
}

pub(crate) fn drain(events: &mut UnboundedReceiver<SessionEvent>) -> Vec<SessionEvent> {
    let mut out = Vec::new();
    while let Ok(event) = events.try_recv() {
        out.push(event);
    }
    out
}

pub(crate) fn unavailable(events: &[SessionEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::McpServerUnavailable { server, reason } => {
                Some((server.clone(), reason.clone()))
            }
            _ => None,
        })
        .collect()
}

/// What the model read of each tool call, as `ok: text` or `failed: text`.
pub(crate) fn tool_outputs(events: &[SessionEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::ToolCallCompleted {
                name,
                success,
                output,
                ..
            } => Some(format!(
                "{name} {}: {output}",
                if *success { "ok" } else { "failed" }
            )),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn one(name: &str, config: McpServerConfig) -> BTreeMap<String, McpServerConfig> {
    BTreeMap::from([(name.to_string(), config)])
}

#[tokio::test]
async fn server_tools_are_offered_namespaced_and_a_call_is_routed_and_recorded() {
    let mut s = session_with(one("local", rmcp_server(&[]))).await;
    s.model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "mcp__local__add",
        r#"{"a": 2, "b": 40}"#,
    ));
    s.model.push(ScriptedResponse::text("The sum is 42."));
    s.session
        .run_turn("add 2 and 40", &CancellationToken::new())
        .await
        .expect("turn");

    let prompts = s.model.prompts();
    assert_eq!(
        tool_names(&prompts[0]),
        vec!["mcp__local__echo", "mcp__local__add", "mcp__local__crash"]
    );
    let add = prompts[0]
        .tools
        .iter()
        .find(|tool| tool.name == "mcp__local__add")
        .expect("add offered");
    assert_eq!(add.description, "Adds two integers.");
    assert_eq!(add.parameters["required"], serde_json::json!(["a", "b"]));
    let history = serde_json::to_value(s.session.history()).expect("json");
    let output = history
        .as_array()
        .expect("items")
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .expect("the call's output is recorded");
    assert_eq!(output["call_id"], "call_1");
    assert_eq!(output["output"], "42");
    assert_eq!(unavailable(&drain(&mut s.events)), Vec::new());
}

#[tokio::test]
async fn a_tool_error_reaches_the_model_as_a_failed_call() {
    let mut s = session_with(one("local", rmcp_server(&[]))).await;
    s.model.push(
        ScriptedResponse::new()
            .with_function_call("call_1", "mcp__local__add", r#"{"a": "two"}"#)
            .with_function_call("call_2", "mcp__local__echo", "[1, 2]")
            .with_function_call("call_3", "mcp__local__echo", "{not json"),
    );
    s.model.push(ScriptedResponse::text("ok"));
    s.session
        .run_turn("add", &CancellationToken::new())
        .await
        .expect("turn");
    insta::assert_snapshot!(tool_outputs(&drain(&mut s.events)), @"
    mcp__local__add failed: add needs integers `a` and `b`
    mcp__local__echo failed: Error: invalid arguments for mcp__local__echo: expected a JSON object
    mcp__local__echo failed: Error: invalid arguments for mcp__local__echo: key must be a string at line 1 column 2
    ");
}

#[tokio::test]
async fn an_at_mention_reads_the_resource_into_the_mcp_resources_reminder() {
    let mut s = session_with(one("local", rmcp_server(&[]))).await;
    s.model.push(ScriptedResponse::text("Read it."));
    s.session
        .run_turn(
            "what does @local:test://greeting say?",
            &CancellationToken::new(),
        )
        .await
        .expect("turn");
    let prompt = serde_json::to_string(&s.model.prompts()[0].input).expect("json");
    // The reminders crate's `mcp_resources` text around the resource's content.
    assert!(
        prompt.contains(
            "<system-reminder>\\nFull contents of resource:\\n\\nHello from the rmcp test server.\\n\\nDo NOT read this resource again"
        ),
        "resource text in the prompt: {prompt}"
    );
}

#[tokio::test]
async fn a_server_that_fails_to_start_is_reported_once_and_offers_no_tools() {
    let servers = BTreeMap::from([
        ("good".to_string(), rmcp_server(&[])),
        ("bad".to_string(), rmcp_server(&["--fail"])),
    ]);
    let mut s = session_with(servers).await;
    s.model.push(ScriptedResponse::text("one"));
    s.model.push(ScriptedResponse::text("two"));
    for input in ["first", "second"] {
        s.session
            .run_turn(input, &CancellationToken::new())
            .await
            .expect("turn");
    }
    let reports = unavailable(&drain(&mut s.events));
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].0, "bad");
    for prompt in s.model.prompts() {
        assert_eq!(
            tool_names(&prompt),
            vec!["mcp__good__echo", "mcp__good__add", "mcp__good__crash"]
        );
    }
}

#[tokio::test]
async fn a_server_that_dies_mid_session_is_reported_once_and_its_tools_withdrawn() {
    let mut s = session_with(one("local", rmcp_server(&[]))).await;
    s.model
        .push(ScriptedResponse::new().with_function_call("call_1", "mcp__local__crash", "{}"));
    s.model.push(ScriptedResponse::text("It died."));
    s.model.push(ScriptedResponse::text("Still here."));
    s.session
        .run_turn("crash it", &CancellationToken::new())
        .await
        .expect("the turn survives the server's death");
    s.session
        .run_turn("and now?", &CancellationToken::new())
        .await
        .expect("next turn");

    let prompts = s.model.prompts();
    assert_eq!(prompts.len(), 3);
    assert_eq!(tool_names(&prompts[0]).len(), 3);
    assert_eq!(tool_names(&prompts[1]), Vec::<String>::new());
    assert_eq!(tool_names(&prompts[2]), Vec::<String>::new());
    let events = drain(&mut s.events);
    let reports = unavailable(&events);
    assert_eq!(
        reports,
        vec![("local".to_string(), "the server exited".to_string())]
    );
    insta::assert_snapshot!(tool_outputs(&events), @"mcp__local__crash failed: Error: MCP server `local`: Transport closed");
}

#[tokio::test]
async fn the_manager_lists_states_tools_and_resources() {
    let servers = BTreeMap::from([
        ("good".to_string(), rmcp_server(&[])),
        ("bad".to_string(), rmcp_server(&["--fail"])),
        (
            "off".to_string(),
            McpServerConfig {
                enabled: false,
                ..McpServerConfig::http("http://127.0.0.1:9/mcp")
            },
        ),
    ]);
    let cwd = tempfile::tempdir().expect("cwd");
    let manager = McpConnectionManager::start(&servers, cwd.path()).await;
    let statuses = manager.statuses();
    let names: Vec<&str> = statuses.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["bad", "good", "off"]);
    assert!(matches!(statuses[0].state, McpServerState::Failed { .. }));
    assert_eq!(statuses[1].state, McpServerState::Ready);
    assert_eq!(statuses[1].tools, vec!["echo", "add", "crash"]);
    assert_eq!(statuses[1].resources, vec!["test://greeting"]);
    assert_eq!(statuses[2].state, McpServerState::Disabled);
}
