//! The one place the MCP client starts a stdio server's process.
//!
//! Why not the crate's process helper (`crate::process`): rmcp's `TokioChildProcess` must own
//! the child itself: it wires the child's stdin and stdout into the JSON-RPC transport, and on
//! drop it closes stdin, waits, sends SIGTERM and finally kills the child, the shutdown sequence
//! of the MCP stdio transport (docs.rs/rmcp, `transport::TokioChildProcess`). The helper's
//! `run_shell` and `BackgroundShell` capture output for the `shell` tool instead, so this file
//! builds the command and hands it to rmcp, and nothing else in core starts an MCP server.
//! See docs/design/mcp.md, "Transports".

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

use rmcp::transport::TokioChildProcess;
use tokio::io::AsyncBufReadExt;
use tokio::io::BufReader;

/// Spawns `command args` in `cwd` with `env` added, as an rmcp stdio transport. The server's
/// standard error is drained line by line into the log (at debug level, under the server's
/// name) so a chatty server never blocks on a full pipe and never writes over the host's
/// terminal.
pub(crate) fn spawn_stdio_server(
    server: &str,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: &Path,
) -> std::io::Result<TokioChildProcess> {
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).envs(env).current_dir(cwd).kill_on_drop(true);
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(stderr) = stderr {
        let server = server.to_string();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %server, "mcp server stderr: {line}");
            }
        });
    }
    Ok(transport)
}
