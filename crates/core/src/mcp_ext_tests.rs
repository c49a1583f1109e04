use std::time::Duration;

use pretty_assertions::assert_eq;
use rmcp::model::CallToolResult;
use rmcp::model::ContentBlock;

use super::server_config::DEFAULT_STARTUP_TIMEOUT;
use super::*;

#[test]
fn qualified_names_follow_codex_and_stay_within_the_provider_alphabet() {
    assert_eq!(
        qualified_tool_name("docs", "search").as_deref(),
        Some("mcp__docs__search")
    );
    assert_eq!(
        qualified_tool_name("my.server", "do it").as_deref(),
        Some("mcp__my_server__do_it")
    );
    assert_eq!(qualified_tool_name("s", &"x".repeat(60)), None);
}

#[test]
fn a_tool_result_renders_its_blocks_and_its_error_flag() {
    let ok = CallToolResult::success(vec![
        ContentBlock::text("first"),
        ContentBlock::image("AAAA", "image/png"),
    ]);
    assert_eq!(
        render_call_result(&ok),
        ToolOutput::ok("first\n[image: image/png]")
    );
    let failed = CallToolResult::error(vec![ContentBlock::text("no such file")]);
    assert_eq!(
        render_call_result(&failed),
        ToolOutput::error("no such file")
    );
}

#[test]
fn a_server_names_exactly_one_transport_and_sane_timeouts() {
    let stdio = McpServerConfig::stdio("srv", vec!["--flag".to_string()]);
    assert_eq!(
        stdio.transport("a"),
        Ok(McpTransport::Stdio {
            command: "srv".to_string(),
            args: vec!["--flag".to_string()],
        })
    );
    assert_eq!(stdio.startup_timeout("a"), Ok(DEFAULT_STARTUP_TIMEOUT));
    let both = McpServerConfig {
        url: Some("http://localhost/mcp".to_string()),
        ..stdio.clone()
    };
    assert_eq!(
        both.transport("a"),
        Err(McpConfigError::BothTransports {
            server: "a".to_string()
        })
    );
    let neither = McpServerConfig::default();
    assert!(matches!(
        neither.transport("a"),
        Err(McpConfigError::NoTransport { .. })
    ));
    let fractional = McpServerConfig {
        tool_timeout_sec: Some(1.5),
        ..stdio.clone()
    };
    assert_eq!(
        fractional.tool_timeout("a"),
        Ok(Duration::from_millis(1500))
    );
    let negative = McpServerConfig {
        tool_timeout_sec: Some(-1.0),
        ..stdio
    };
    assert!(matches!(
        negative.tool_timeout("a"),
        Err(McpConfigError::BadTimeout { .. })
    ));
}

#[tokio::test]
async fn a_failed_server_is_reported_once_and_its_tools_withdrawn() {
    let mut servers = std::collections::BTreeMap::new();
    servers.insert(
        "broken".to_string(),
        McpServerConfig::stdio("/nonexistent/agentctx-mcp-server", Vec::new()),
    );
    let cwd = tempfile::tempdir().expect("tempdir");
    let manager = McpConnectionManager::start(&servers, cwd.path()).await;
    let statuses = manager.statuses();
    assert_eq!(statuses.len(), 1);
    assert!(matches!(statuses[0].state, McpServerState::Failed { .. }));
    let (events, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let mut registry = ToolRegistry::new();
    withdraw_failed(&manager, &mut registry, &events);
    withdraw_failed(&manager, &mut registry, &events);
    let first = receiver.try_recv().expect("one report");
    assert!(matches!(
        first,
        SessionEvent::McpServerUnavailable { ref server, .. } if server == "broken"
    ));
    assert!(receiver.try_recv().is_err(), "reported once");
}

#[test]
fn mcp_servers_tables_read_with_codex_keys() {
    let text = r#"
[mcp_servers.docs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { API_KEY = "k" }
startup_timeout_sec = 20
tool_timeout_sec = 2.5

[mcp_servers.remote]
url = "http://127.0.0.1:8080/mcp"
enabled = false
"#;
    let config = crate::config::Config::from_toml(text, std::path::Path::new("config.toml"))
        .expect("parses");
    let docs = &config.mcp_servers["docs"];
    assert_eq!(docs.command.as_deref(), Some("npx"));
    assert_eq!(docs.args.len(), 2);
    assert_eq!(docs.env.get("API_KEY").map(String::as_str), Some("k"));
    assert_eq!(docs.startup_timeout("docs"), Ok(Duration::from_secs(20)));
    assert_eq!(docs.tool_timeout("docs"), Ok(Duration::from_millis(2500)));
    assert!(docs.enabled);
    let remote = &config.mcp_servers["remote"];
    assert_eq!(
        remote.transport("remote"),
        Ok(McpTransport::StreamableHttp {
            url: "http://127.0.0.1:8080/mcp".to_string()
        })
    );
    assert!(!remote.enabled);

    let bad = "[mcp_servers.docs]\ncommand = 3\n";
    let error = crate::config::Config::from_toml(bad, std::path::Path::new("config.toml"))
        .expect_err("a number is no command");
    assert!(
        error
            .to_string()
            .starts_with("config.toml:2:11: `mcp_servers.docs.command`"),
        "{error}"
    );
}
