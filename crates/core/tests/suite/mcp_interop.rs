//! Interop: the same client against the reference MCP server of another implementation,
//! `@modelcontextprotocol/server-everything` (TypeScript SDK), which `cargo xtask tools`
//! installs into `target/tools/npm`. The server is found at `AGENTCTX_MCP_EVERYTHING_BIN` when
//! set, else in this workspace's `target/tools/npm`. Skipped with a printed reason where it is
//! not installed, except when `AGENTCTX_REQUIRE_MCP_INTEROP` is set (this project's CI sets it,
//! so there its absence fails); a fork that vendors the crate without npm still passes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentctx_core::McpConnectionManager;
use agentctx_core::McpServerConfig;
use agentctx_core::McpServerState;
use agentctx_model::ScriptedResponse;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::mcp::session_with;
use super::mcp::tool_names;

fn everything_server() -> Option<PathBuf> {
    let bin = match std::env::var_os("AGENTCTX_MCP_EVERYTHING_BIN") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/tools/npm/node_modules/.bin/mcp-server-everything"),
    };
    if bin.exists() {
        return Some(bin);
    }
    let reason = format!(
        "skipped: {} is not installed (run `cargo xtask tools mcp-server-everything`; it needs npm)",
        bin.display()
    );
    assert!(
        std::env::var_os("AGENTCTX_REQUIRE_MCP_INTEROP").is_none(),
        "AGENTCTX_REQUIRE_MCP_INTEROP is set: {reason}"
    );
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    {
        eprintln!("{reason}");
    }
    None
}

#[tokio::test]
async fn the_reference_server_lists_tools_answers_a_call_and_serves_a_mentioned_resource() {
    let Some(bin) = everything_server() else {
        return;
    };
    let config = McpServerConfig {
        startup_timeout_sec: Some(60.0),
        ..McpServerConfig::stdio(bin.display().to_string(), ["stdio".to_string()])
    };
    let servers = BTreeMap::from([("everything".to_string(), config)]);

    let cwd = tempfile::tempdir().expect("cwd");
    let manager = McpConnectionManager::start(&servers, cwd.path()).await;
    let status = manager.statuses().remove(0);
    assert_eq!(status.state, McpServerState::Ready, "{status:?}");
    assert!(status.tools.iter().any(|tool| tool == "echo"), "{status:?}");
    let uri = status
        .resources
        .first()
        .cloned()
        .expect("the reference server lists resources");
    drop(manager);

    let mut s = session_with(servers).await;
    s.model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "mcp__everything__echo",
        r#"{"message": "interop"}"#,
    ));
    s.model.push(ScriptedResponse::text("done"));
    s.session
        .run_turn(
            &format!("echo, and read @everything:{uri}"),
            &CancellationToken::new(),
        )
        .await
        .expect("turn");

    let prompts = s.model.prompts();
    assert!(tool_names(&prompts[0]).contains(&"mcp__everything__echo".to_string()));
    let first = serde_json::to_string(&prompts[0].input).expect("json");
    // The reminders crate's `mcp_resources` text around the resource's content.
    assert!(
        first.contains("<system-reminder>\\nFull contents of resource:\\n\\n"),
        "{first}"
    );
    let second = serde_json::to_string(&prompts[1].input).expect("json");
    assert!(second.contains("Echo: interop"), "{second}");
}
