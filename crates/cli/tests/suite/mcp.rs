//! `agentctx mcp list` over a `config.toml` in a temporary home: a server that fails to start,
//! a disabled one and, when core's examples are built (every workspace test run builds them),
//! core's rmcp test server with its tools and resource.

use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;

fn mcp_list(home: &Path, json: bool) -> std::process::Output {
    let mut cmd = Command::cargo_bin("agentctx").expect("binary");
    cmd.env_remove("AGENTCTX_HOME")
        .env_remove("RUST_LOG")
        .args(["mcp", "list", "--home"])
        .arg(home)
        .arg("--cwd")
        .arg(home);
    if json {
        cmd.arg("--json");
    }
    cmd.output().expect("runs")
}

/// Core's rmcp test server (`crates/core/examples/mcp_test_server/`), next to this test
/// binary's folder.
fn rmcp_test_server() -> Option<PathBuf> {
    let exe = std::env::current_exe().expect("test binary path");
    let server = exe
        .parent()
        .and_then(Path::parent)
        .map(|profile| profile.join("examples").join("mcp_test_server"))?;
    if server.exists() {
        return Some(server);
    }
    let reason = format!(
        "skipped: {} is not built (`cargo build -p agentctx-core --examples`)",
        server.display()
    );
    assert!(std::env::var_os("CI").is_none(), "under CI: {reason}");
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    {
        eprintln!("{reason}");
    }
    None
}

#[test]
fn list_without_servers_says_where_to_add_them() {
    let home = tempfile::tempdir().expect("home");
    let output = mcp_list(home.path(), false);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout)
        .replace(&home.path().display().to_string(), "<home>");
    insta::assert_snapshot!(text, @"No MCP servers configured (add [mcp_servers.<name>] to <home>/config.toml).");
}

#[test]
fn list_shows_failed_and_disabled_servers() {
    let home = tempfile::tempdir().expect("home");
    std::fs::write(
        home.path().join("config.toml"),
        r#"
[mcp_servers.missing]
command = "/nonexistent/agentctx-test-mcp-server"
args = ["--stdio"]

[mcp_servers.remote]
url = "http://127.0.0.1:9/mcp"
enabled = false
"#,
    )
    .expect("config");
    let output = mcp_list(home.path(), false);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn list_shows_a_ready_servers_tools_and_resources() {
    let Some(server) = rmcp_test_server() else {
        return;
    };
    let home = tempfile::tempdir().expect("home");
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[mcp_servers.local]\ncommand = {:?}\nstartup_timeout_sec = 30\n",
            server.display().to_string()
        ),
    )
    .expect("config");
    let output = mcp_list(home.path(), false);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout)
        .replace(&server.display().to_string(), "<mcp_test_server>");
    insta::assert_snapshot!(text);

    let json = mcp_list(home.path(), true);
    let statuses: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(statuses[0]["state"], "ready");
    assert_eq!(
        statuses[0]["tools"],
        serde_json::json!(["echo", "add", "crash"])
    );
}
