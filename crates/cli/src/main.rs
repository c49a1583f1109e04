//! `agentctx`: the command line of the agentctx context-engineering layer.
//!
//! Floor 5. Each subcommand lives in its own module named after it and only parses
//! arguments, calls the library crates and prints; no context logic lives here.

use clap::Parser;
use clap::Subcommand;

/// mimalloc rather than the system allocator: it is faster at the small allocations a session's
/// items and records are made of, and frees memory another thread allocated without taking that
/// thread's lock. With glibc's allocator, `agentctx replay` reading ahead on a second thread
/// spent more time waiting on its arena locks than it saved (docs/design/performance.md,
/// "`agentctx replay` through the engine").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod compact_command;
mod config_command;
mod error_report;
mod logging;
mod loop_command;
mod mcp_command;
mod memory_command;
mod replay_command;
mod report_command;
mod run_command;
mod skills_command;

/// Context engineering for coding agents.
#[derive(Debug, Parser)]
#[command(name = "agentctx", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// More log output on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, when set, decides).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compact a recorded session with our tiers and print the history the model sees next.
    Compact(compact_command::CompactArgs),
    /// Show the effective configuration with the source of each value, or its JSON schema.
    Config(config_command::ConfigArgs),
    /// List the configured MCP servers with their state, tools and resources.
    Mcp(mcp_command::McpArgs),
    /// Build, inspect and print the cross-session memory.
    Memory(memory_command::MemoryArgs),
    /// Run a coding-agent loop for N iterations or a duration, committing each iteration.
    Loop(loop_command::LoopArgs),
    /// Replay Codex rollouts or Claude Code transcripts and show what the model saw per turn.
    Replay(replay_command::ReplayArgs),
    /// Write a static HTML report of recorded sessions: an index with costs and what our policy
    /// would have saved, and a page per session with its token timeline and turns.
    Report(report_command::ReportArgs),
    /// Run an agent session: one prompt, or an interactive line mode without one.
    Run(run_command::RunArgs),
    /// List and inspect skills and slash commands.
    Skills(skills_command::SkillsArgs),
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            // The whole cause chain on one line, never a backtrace: the user needs the reason,
            // not our stack.
            #[expect(clippy::print_stderr, reason = "the binary reports its own errors")]
            {
                eprintln!("error: {}", error_report::one_line(&err));
            }
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let rust_log = std::env::var("RUST_LOG").ok();
    // A report works through many sessions: each distinct warning is printed once, counted,
    // after its result line, not once per session.
    let warnings = match cli.command {
        Command::Report(_) => logging::Warnings::Collect,
        _ => logging::Warnings::Print,
    };
    logging::init(cli.verbose, rust_log.as_deref(), warnings);
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "agentctx started");
    match cli.command {
        Command::Compact(args) => compact_command::run(args),
        Command::Config(args) => config_command::run(args),
        Command::Mcp(args) => mcp_command::run(args),
        Command::Memory(args) => memory_command::run(args),
        Command::Loop(args) => loop_command::run(args),
        Command::Replay(args) => replay_command::run(args),
        Command::Report(args) => report_command::run(args),
        Command::Run(args) => run_command::run(args),
        Command::Skills(args) => skills_command::run(args),
    }
}
