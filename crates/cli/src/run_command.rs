//! `agentctx run [PROMPT]`: a real agent session in the working directory. One-shot with a
//! prompt, an interactive line mode without one; `--resume <ID|last>` continues a recorded
//! session (with `--model`, another model than the recorded one: the switch is announced and
//! the history compacted first with the recorded model when the new window is smaller). A
//! prompt or line that starts with `/name` is a slash command: a skill, or one of the session's
//! built-ins (`/help` lists them), whose output goes to stdout. Text streams to stdout (tool activity on stderr), or `--json` prints every
//! `SessionEvent` as a JSON line. Ctrl-C cancels the running turn; the rollout stays readable.
//! In line mode a turn that fails is reported on one stderr line and the next prompt is read;
//! the exit status is 1 at the end when any turn failed. See docs/design/core.md, "agentctx
//! run".

mod approver;
mod render;
pub(crate) mod session_flags;

use std::io::BufRead as _;
use std::io::IsTerminal as _;
use std::io::Write as _;

use agentctx_core::InputOutcome;
use agentctx_core::McpConnectionManager;
use agentctx_core::Session;
use agentctx_core::SessionEndReason;
use agentctx_core::SessionEvent;
use agentctx_core::find_session;
use anyhow::Context as _;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use self::render::Renderer;
use self::session_flags::SessionFlags;

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The task; without it, an interactive line mode reads one prompt per line
    prompt: Option<String>,
    #[command(flatten)]
    session: SessionFlags,
    /// Start in plan mode (write tools refuse, except on the plan file)
    #[arg(long)]
    plan: bool,
    /// Print every session event as one JSON line on stdout
    #[arg(long)]
    json: bool,
    /// Continue a recorded session under `<home>/sessions`: its id, or `last`
    #[arg(long, value_name = "ID|last")]
    resume: Option<String>,
}

pub(crate) fn run(args: RunArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(run_async(args));
    // A line read left waiting on stdin must not keep the process alive.
    runtime.shutdown_background();
    result
}

async fn run_async(args: RunArgs) -> anyhow::Result<()> {
    let prepared = args.session.prepare()?;
    let setup = args.session.setup(&prepared, args.plan).await?;
    tracing::info!(
        provider = %setup.choice.provider.id,
        model = %setup.choice.model.slug,
        context_window = setup.choice.model.info.context_window,
        "starting session"
    );
    let (mut session, mut events) = match &args.resume {
        Some(id) => {
            let path = find_session(&prepared.home, id)?;
            Session::resume(setup.options, &path)
                .with_context(|| format!("cannot resume {}", path.display()))?
        }
        None => Session::new(setup.options)?,
    };
    attach_mcp_servers(&mut session, &prepared.loaded.config, &prepared.cwd).await;
    let mut renderer = Renderer::new(args.json);
    let outcome = match &args.prompt {
        Some(prompt) => one_turn(&mut session, &mut events, &mut renderer, prompt).await,
        None => line_mode(&mut session, &mut events, &mut renderer).await,
    };
    session.wait_for_background().await;
    let reason = match &args.prompt {
        Some(_) => SessionEndReason::Other,
        None => SessionEndReason::PromptInputExit,
    };
    session.end(reason).await;
    writeln!(
        std::io::stderr().lock(),
        "session {} saved in {}",
        session.session_id(),
        session.rollout_path().display()
    )?;
    match outcome? {
        Ended::Done => Ok(()),
        Ended::Cancelled => anyhow::bail!(
            "the turn was cancelled; continue it with --resume {}",
            session.session_id()
        ),
        Ended::TurnsFailed { failed, total } => anyhow::bail!(
            "{failed} of {total} turn{} failed (each reported above)",
            if total == 1 { "" } else { "s" }
        ),
    }
}

enum Ended {
    Done,
    Cancelled,
    /// Line mode read every prompt, and some turns failed.
    TurnsFailed {
        failed: usize,
        total: usize,
    },
}

/// Runs what the user typed (a turn, a skill or a built-in command, through
/// `Session::run_input`), rendering its events as they come; Ctrl-C cancels it.
async fn one_turn(
    session: &mut Session,
    events: &mut UnboundedReceiver<SessionEvent>,
    renderer: &mut Renderer,
    prompt: &str,
) -> anyhow::Result<Ended> {
    let (cancel, on_ctrl_c) = cancel_on_ctrl_c();
    let turn = session.run_input(prompt, &cancel);
    tokio::pin!(turn);
    let result = loop {
        tokio::select! {
            biased;
            Some(event) = events.recv() => renderer.render(&event)?,
            result = &mut turn => break result,
        }
    };
    on_ctrl_c.abort();
    while let Ok(event) = events.try_recv() {
        renderer.render(&event)?;
    }
    Ok(match result? {
        InputOutcome::Turn(outcome) if outcome.aborted => Ended::Cancelled,
        InputOutcome::Turn(_) => Ended::Done,
        InputOutcome::Command(text) => {
            renderer.command_output(&text)?;
            Ended::Done
        }
        InputOutcome::Forked { answer, .. } => {
            renderer.command_output(&answer)?;
            Ended::Done
        }
    })
}

/// Reads one prompt per line until end of input (or `exit`); Ctrl-C cancels the running turn,
/// and at the prompt ends the session. On a terminal, lines typed while a turn runs are queued
/// (see [`typed_during_turn`]); piped input is read one prompt per turn, in order.
async fn line_mode(
    session: &mut Session,
    events: &mut UnboundedReceiver<SessionEvent>,
    renderer: &mut Renderer,
) -> anyhow::Result<Ended> {
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        return interactive_line_mode(session, events, renderer).await;
    }
    let mut turns = TurnCount::default();
    loop {
        if interactive {
            let mut stderr = std::io::stderr().lock();
            stderr.write_all(b"> ")?;
            stderr.flush()?;
        }
        let read = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map(|n| (n, line))
        });
        let (read, line) = tokio::select! {
            read = read => read.context("the input reader stopped")??,
            _ = tokio::signal::ctrl_c() => return Ok(turns.ended()),
        };
        if read == 0 {
            return Ok(turns.ended());
        }
        let prompt = line.trim();
        if prompt.is_empty() {
            continue;
        }
        if prompt == "exit" || prompt == "quit" {
            return Ok(turns.ended());
        }
        // A cancelled turn returns to the prompt; a failed one is reported and the next prompt
        // is read: the rest of the input is not dropped.
        turns.total += 1;
        if let Err(err) = one_turn(session, events, renderer, prompt).await {
            turns.failed += 1;
            writeln!(
                std::io::stderr().lock(),
                "error: turn {} failed: {}",
                turns.total,
                crate::error_report::one_line(&err)
            )?;
        }
    }
}

/// Where a line typed while a turn runs goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypedDuringTurn {
    /// To the model, before its next request (a `queued_commands` reminder).
    Queue(String),
    /// Held, and run after the turn: a slash command or `exit` is for the session, not the model.
    AfterTurn(String),
    /// Nothing (an empty line).
    Skip,
}

/// Routes a line typed while a turn runs.
fn typed_during_turn(line: &str) -> TypedDuringTurn {
    let line = line.trim();
    if line.is_empty() {
        TypedDuringTurn::Skip
    } else if line.starts_with('/') || line == "exit" || line == "quit" {
        TypedDuringTurn::AfterTurn(line.to_string())
    } else {
        TypedDuringTurn::Queue(line.to_string())
    }
}

/// Line mode on a terminal: one thread reads stdin for the whole session, so what the user types
/// while a turn runs is not lost. A prompt typed then goes to the session's command queue and
/// the model sees it before its next request, as Claude Code shows queued messages; one the
/// turn ended before showing, and slash commands typed meanwhile, run next, in order.
async fn interactive_line_mode(
    session: &mut Session,
    events: &mut UnboundedReceiver<SessionEvent>,
    renderer: &mut Renderer,
) -> anyhow::Result<Ended> {
    let (lines_tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let queue = session.command_queue();
    let mut pending: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut turns = TurnCount::default();
    loop {
        let prompt = match pending.pop_front() {
            Some(prompt) => prompt,
            None => {
                {
                    let mut stderr = std::io::stderr().lock();
                    stderr.write_all(b"> ")?;
                    stderr.flush()?;
                }
                let line = tokio::select! {
                    line = lines.recv() => line,
                    _ = tokio::signal::ctrl_c() => return Ok(turns.ended()),
                };
                match line {
                    Some(line) => line.trim().to_string(),
                    None => return Ok(turns.ended()),
                }
            }
        };
        if prompt.is_empty() {
            continue;
        }
        if prompt == "exit" || prompt == "quit" {
            return Ok(turns.ended());
        }
        turns.total += 1;
        let turn = one_turn(session, events, renderer, &prompt);
        tokio::pin!(turn);
        let result = loop {
            tokio::select! {
                result = &mut turn => break result,
                Some(line) = lines.recv() => match typed_during_turn(&line) {
                    TypedDuringTurn::Queue(text) => queue.push(text),
                    TypedDuringTurn::AfterTurn(text) => pending.push_back(text),
                    TypedDuringTurn::Skip => {}
                },
            }
        };
        // What the model was not shown before the turn ended runs next, as one prompt.
        let unseen = queue.take_prompts();
        if !unseen.is_empty() {
            pending.push_front(unseen.join("\n"));
        }
        if let Err(err) = result {
            turns.failed += 1;
            writeln!(
                std::io::stderr().lock(),
                "error: turn {} failed: {}",
                turns.total,
                crate::error_report::one_line(&err)
            )?;
        }
    }
}

/// Turns run and failed in line mode.
#[derive(Debug, Default)]
struct TurnCount {
    total: usize,
    failed: usize,
}

impl TurnCount {
    fn ended(&self) -> Ended {
        match self.failed {
            0 => Ended::Done,
            failed => Ended::TurnsFailed {
                failed,
                total: self.total,
            },
        }
    }
}

/// Starts the `[mcp_servers]` of the configuration and offers their tools to the session. A
/// server that fails to start is reported once by the session (an `McpServerUnavailable` event)
/// and offers nothing; the session goes on without it.
pub(crate) async fn attach_mcp_servers(
    session: &mut Session,
    config: &agentctx_core::Config,
    cwd: &std::path::Path,
) {
    if config.mcp_servers.is_empty() {
        return;
    }
    let manager = McpConnectionManager::start(&config.mcp_servers, cwd).await;
    session.attach_mcp(std::sync::Arc::new(manager));
}

/// A cancellation token that Ctrl-C cancels, and the task watching for it (abort it when the
/// work is done, so a later Ctrl-C is the shell's again).
pub(crate) fn cancel_on_ctrl_c() -> (CancellationToken, tokio::task::JoinHandle<()>) {
    let cancel = CancellationToken::new();
    let watcher = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    (cancel, watcher)
}

#[cfg(test)]
#[path = "run_command_tests.rs"]
mod tests;
