//! `agentctx mcp list`: the MCP servers of `config.toml`, started as a session would start
//! them, with their state, tools and resources (see docs/design/mcp.md).

use std::io::Write;
use std::path::PathBuf;

use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::McpConnectionManager;
use agentctx_core::McpServerState;
use agentctx_core::McpServerStatus;
use agentctx_core::qualified_tool_name;
use anyhow::Context;

#[derive(Debug, clap::Args)]
pub(crate) struct McpArgs {
    #[command(subcommand)]
    command: McpCommand,

    /// agentctx home holding config.toml [default: ~/.agentctx]
    #[arg(long, global = true, env = "AGENTCTX_HOME", value_name = "DIR")]
    home: Option<PathBuf>,

    /// Working directory of stdio servers without their own `cwd` [default: current directory]
    #[arg(long, global = true, value_name = "DIR")]
    cwd: Option<PathBuf>,

    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum McpCommand {
    /// Start every configured server and show its state, tools and resources.
    List,
}

pub(crate) fn run(args: McpArgs) -> anyhow::Result<()> {
    let home = match args.home {
        Some(dir) => dir,
        None => std::env::home_dir()
            .map(|dir| dir.join(".agentctx"))
            .context("no home directory: pass --home or set AGENTCTX_HOME")?,
    };
    let cwd = match args.cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot determine the current directory")?,
    };
    let loaded = Config::load(&home, &EnvVars::from_process_env())?;
    match args.command {
        McpCommand::List => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?;
            let statuses = runtime.block_on(async {
                let manager = McpConnectionManager::start(&loaded.config.mcp_servers, &cwd).await;
                manager.statuses()
            });
            let mut out = std::io::stdout().lock();
            if args.json {
                writeln!(out, "{}", serde_json::to_string_pretty(&statuses)?)?;
            } else {
                write!(out, "{}", render(&statuses, &loaded.path))?;
            }
            Ok(())
        }
    }
}

fn render(statuses: &[McpServerStatus], config: &std::path::Path) -> String {
    if statuses.is_empty() {
        return format!(
            "No MCP servers configured (add [mcp_servers.<name>] to {}).\n",
            config.display()
        );
    }
    let mut out = String::new();
    for status in statuses {
        let state = match &status.state {
            McpServerState::Ready => "ready".to_string(),
            McpServerState::Disabled => "disabled".to_string(),
            McpServerState::Failed { reason } => format!("failed: {reason}"),
        };
        out.push_str(&format!(
            "{} ({}): {state}\n",
            status.name, status.transport
        ));
        for tool in &status.tools {
            let name = qualified_tool_name(&status.name, tool)
                .unwrap_or_else(|| format!("{tool} (name too long, not offered)"));
            out.push_str(&format!("  tool {name}\n"));
        }
        for uri in &status.resources {
            out.push_str(&format!("  resource @{}:{uri}\n", status.name));
        }
    }
    out
}
