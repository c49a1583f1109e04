//! `agentctx loop --iters N | --duration D [--allow-dirty] PROMPT`, or `agentctx loop --resume`:
//! the loop driver over a real session (the core's `loop_driver_ext::SessionLoopAgent`) in the
//! working directory's git repository. `--resume` continues the loop saved in the repository
//! (after a crash, Ctrl-C, or a budget raised since) with its own condition and prompt. Prints a line per iteration, then the `LoopResult`. Exit status: 0 when the
//! outcome is `completed`; 1 for every other outcome (a budget exhausted, no progress, too many
//! failures, a failed commit with `on_commit_failure = "stop"`, cancelled by Ctrl-C,
//! interrupted) and when the loop cannot start (not a git work tree, a dirty tree, an
//! unfinished saved loop). See docs/design/core.md, "agentctx loop".

use std::io::Write as _;
use std::sync::Arc;

use agentctx_core::ModelSelection;
use agentctx_core::Session;
use agentctx_core::SessionLoopAgent;
use agentctx_core::resolve_model;
use agentctx_loop_driver::LoopCondition;
use agentctx_loop_driver::LoopDriver;
use agentctx_loop_driver::LoopProgressEvent;
use agentctx_model::ModelClient;
use anyhow::Context as _;

use crate::run_command::session_flags::SessionFlags;

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("condition").required(true).args(["iters", "duration", "resume"])))]
pub(crate) struct LoopArgs {
    /// The task every iteration works on
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    prompt: Option<String>,
    /// Run this many iterations
    #[arg(long, value_name = "N")]
    iters: Option<String>,
    /// Run for this long: 90s, 30m, 2h
    #[arg(long, value_name = "D")]
    duration: Option<String>,
    /// Start with uncommitted changes; those paths are left out of every loop commit
    #[arg(long)]
    allow_dirty: bool,
    /// Continue the loop saved in this repository where it stopped, with its own condition and
    /// prompt
    #[arg(long)]
    resume: bool,
    #[command(flatten)]
    session: SessionFlags,
}

pub(crate) fn run(args: LoopArgs) -> anyhow::Result<()> {
    let condition = match args.resume {
        true => None,
        false => Some(parse_condition(&args)?),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(run_async(args, condition))
}

fn parse_condition(args: &LoopArgs) -> anyhow::Result<LoopCondition> {
    let (flag, text) = match (&args.iters, &args.duration) {
        (Some(iters), _) => ("--iters", iters.as_str()),
        (None, Some(duration)) => ("--duration", duration.as_str()),
        (None, None) => anyhow::bail!("pass --iters N or --duration D"),
    };
    // `--iters` takes a count only; `--duration` a time with its unit.
    if flag == "--iters" && !text.chars().all(|c| c.is_ascii_digit()) {
        anyhow::bail!("--iters {text}: expected a whole number of iterations");
    }
    if flag == "--duration" && text.chars().all(|c| c.is_ascii_digit()) {
        anyhow::bail!("--duration {text}: give a unit, e.g. 90s, 30m or 2h");
    }
    // Zero is refused by the parser: a loop needs at least one iteration or second.
    text.parse::<LoopCondition>()
        .with_context(|| format!("{flag} {text}"))
}

async fn run_async(args: LoopArgs, condition: Option<LoopCondition>) -> anyhow::Result<()> {
    let prepared = args.session.prepare()?;
    let setup = args.session.setup(&prepared, false).await?;
    let config = prepared.loaded.config.loop_driver.clone();
    let model: Arc<dyn ModelClient> = Arc::clone(&setup.options.model);
    // The commit-message model is resolved like the session's, on the same provider.
    let commit_model = match &config.context_passing.commit_message_model {
        Some(slug) => {
            let selection = ModelSelection {
                provider: Some(setup.choice.provider.id.clone()),
                model: Some(slug.clone()),
                context_window: None,
            };
            let choice = resolve_model(
                &prepared.loaded.config,
                &prepared.env,
                &prepared.home,
                &selection,
            )
            .await
            .context("loop.context_passing.commit_message_model")?;
            Some(Arc::new(
                choice
                    .client(&prepared.env)
                    .context("loop.context_passing.commit_message_model")?,
            ))
        }
        None => None,
    };
    let (mut session, mut events) = Session::new(setup.options)?;
    crate::run_command::attach_mcp_servers(&mut session, &prepared.loaded.config, &prepared.cwd)
        .await;
    let rollout = session.rollout_path().to_path_buf();
    // The loop reports per iteration; the session's own events are only logged.
    let drain = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            tracing::debug!(?event, "session event");
        }
    });
    let agent = Arc::new(SessionLoopAgent::new(session));
    let mut driver = LoopDriver::new(config, agent.clone(), model, &prepared.cwd)
        .allow_dirty(args.allow_dirty)
        .on_progress(print_progress);
    if let Some(commit_model) = commit_model {
        driver = driver.with_commit_message_model(commit_model);
    }
    let (cancel, on_ctrl_c) = crate::run_command::cancel_on_ctrl_c();
    let result = match (condition, &args.prompt) {
        (Some(condition), Some(prompt)) => driver.run(condition, prompt, cancel).await,
        _ => driver.resume(cancel).await,
    };
    on_ctrl_c.abort();
    {
        let shared = agent.session();
        let mut session = shared.lock().await;
        session.wait_for_background().await;
        session.end(agentctx_core::SessionEndReason::Other).await;
    }
    drop(driver);
    drop(agent);
    drain.abort();
    let result = result?;
    let mut stdout = std::io::stdout().lock();
    write!(stdout, "{result}")?;
    writeln!(stdout, "session rollout: {}", rollout.display())?;
    stdout.flush()?;
    if result.outcome.is_success() {
        Ok(())
    } else {
        // The report is printed; the status line says why the exit status is not 0.
        anyhow::bail!("the loop did not complete: {}", result.outcome)
    }
}

/// The running token count, or that it is unknown: a server that reports no usage leaves it at
/// zero, and "0 tokens" would claim the work was free.
fn tokens_so_far(total_tokens: i64) -> String {
    if total_tokens > 0 {
        format!("{total_tokens} tokens so far")
    } else {
        "token usage unknown (the server reported none)".to_string()
    }
}

fn print_progress(event: &LoopProgressEvent) {
    let mut stdout = std::io::stdout().lock();
    let _ = match event {
        LoopProgressEvent::IterationStarted { iteration } => {
            writeln!(stdout, "iteration {} started", iteration + 1)
        }
        LoopProgressEvent::IterationFinished { record, progress } => {
            let status = if record.success { "ok" } else { "failed" };
            writeln!(
                stdout,
                "iteration {} {status}: {} | {} | {}",
                record.iteration + 1,
                record.commit_status(),
                record.files_display(),
                tokens_so_far(progress.total_tokens)
            )
        }
        LoopProgressEvent::Finished { outcome } => writeln!(stdout, "loop finished: {outcome}"),
    };
    let _ = stdout.flush();
}
