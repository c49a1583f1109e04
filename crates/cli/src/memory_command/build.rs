//! `agentctx memory build`: record the sessions under the source folders, extract every
//! eligible one (phase 1, in rounds of claims until none is left), then consolidate (phase 2),
//! with a progress bar on a terminal and the throughput at the end.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use agentctx_memory::CONCURRENCY_LIMIT;
use agentctx_memory::JOB_HEARTBEAT;
use agentctx_memory::MAX_ROLLOUTS_PER_STARTUP_LIMIT;
use agentctx_memory::MemoryConfig;
use agentctx_memory::Phase1Report;
use agentctx_memory::Phase2Outcome;
use agentctx_memory::StateDb;
use agentctx_memory::memory_root;
use agentctx_memory::run_phase1;
use agentctx_memory::run_phase2;
use agentctx_memory::sync_threads;
use indicatif::ProgressBar;
use indicatif::ProgressStyle;

use super::extractor_choice;
use super::runtime;

#[derive(Debug, clap::Args)]
pub(crate) struct BuildArgs {
    /// A folder of sessions (Codex rollouts or Claude Code transcripts, at any depth); repeat
    /// for several. Default: ~/.codex/sessions (or $CODEX_HOME/sessions), ~/.claude/projects and
    /// `<home>/sessions`, each only if present.
    #[arg(long = "from", value_name = "DIR")]
    from: Vec<PathBuf>,
    /// Extract and consolidate without a model.
    #[arg(long, conflicts_with_all = ["provider", "model"])]
    offline: bool,
    /// Model provider id (from config.toml's model_providers, or a built-in one).
    #[arg(long)]
    provider: Option<String>,
    /// Model slug.
    #[arg(long)]
    model: Option<String>,
    /// Sessions written more recently than this many hours are left for later.
    #[arg(long, value_name = "HOURS", default_value_t = agentctx_memory::DEFAULT_MIN_ROLLOUT_IDLE_HOURS)]
    min_idle_hours: i64,
    /// Sessions last written longer ago than this many days are left out.
    #[arg(long, value_name = "DAYS", default_value_t = agentctx_memory::DEFAULT_MAX_ROLLOUT_AGE_DAYS)]
    max_age_days: i64,
    /// How long a claim is held before another process may take the job over.
    #[arg(long, value_name = "SECONDS", default_value_t = agentctx_memory::JOB_LEASE_SECONDS, value_parser = clap::value_parser!(i64).range(1..))]
    lease_seconds: i64,
}

fn default_sources(home: &Path) -> Vec<PathBuf> {
    let user_home = std::env::home_dir();
    let codex_sessions = std::env::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| user_home.as_ref().map(|h| h.join(".codex")))
        .map(|codex| codex.join("sessions"));
    let claude = user_home.map(|h| h.join(".claude").join("projects"));
    [codex_sessions, claude, Some(home.join("sessions"))]
        .into_iter()
        .flatten()
        .filter(|dir| dir.is_dir())
        .collect()
}

pub(crate) fn run(home: &Path, args: BuildArgs) -> anyhow::Result<()> {
    let sources = if args.from.is_empty() {
        default_sources(home)
    } else {
        args.from.clone()
    };
    for source in &sources {
        if !source.exists() {
            anyhow::bail!("{} does not exist", source.display());
        }
    }
    let choice = extractor_choice::choose(
        home,
        args.offline,
        args.provider.as_deref(),
        args.model.as_deref(),
    )?;
    let mut config =
        MemoryConfig::new(home).with_max_rollouts_per_startup(MAX_ROLLOUTS_PER_STARTUP_LIMIT);
    config.min_rollout_idle_hours = args.min_idle_hours;
    config.max_rollout_age_days = args.max_age_days;
    config.stage1_lease_seconds = args.lease_seconds;
    config.phase2_lease_seconds = args.lease_seconds;
    // The heartbeat must come well inside the lease.
    let lease = Duration::from_secs(u64::try_from(args.lease_seconds).unwrap_or(1));
    config.phase2_heartbeat = JOB_HEARTBEAT.min(lease / 3).max(Duration::from_millis(100));

    let mut out = std::io::stdout().lock();
    if sources.is_empty() {
        writeln!(out, "no session folders found (pass --from DIR)")?;
    }
    for source in &sources {
        writeln!(out, "sessions: {}", source.display())?;
    }
    if let Some(reason) = &choice.offline_reason {
        writeln!(out, "offline: {reason}")?;
    }
    let started = Instant::now();
    let (sync, phase1, phase2) = runtime()?.block_on(async {
        let db = StateDb::open(home).await?;
        let result = build(&db, &config, &sources, &choice).await;
        db.close().await;
        result
    })?;
    let elapsed = started.elapsed().as_secs_f64();
    let processed = phase1.succeeded_with_output + phase1.succeeded_no_output + phase1.failed;
    writeln!(
        out,
        "threads: {} found, {} new or changed, {} unreadable",
        sync.found, sync.updated, sync.unreadable
    )?;
    writeln!(
        out,
        "phase 1: {} claimed, {} remembered, {} with nothing to remember, {} failed (retried later), {} taken over",
        phase1.claimed,
        phase1.succeeded_with_output,
        phase1.succeeded_no_output,
        phase1.failed,
        phase1.lost
    )?;
    writeln!(out, "phase 2: {}", describe_phase2(&phase2))?;
    let rate = if elapsed > 0.0 {
        processed as f64 / elapsed
    } else {
        0.0
    };
    writeln!(
        out,
        "processed {processed} sessions in {elapsed:.2} s ({rate:.1} sessions/s)"
    )?;
    writeln!(out, "memory folder: {}", memory_root(home).display())?;
    report_failures(&phase1)
}

/// A build that learnt from no session because every one failed is an error (the first
/// failure's reason says why: a server down, a model refusing the request); some failures
/// among successes are a warning, as the failed sessions are tried again on a later build.
fn report_failures(phase1: &Phase1Report) -> anyhow::Result<()> {
    if phase1.failed == 0 {
        return Ok(());
    }
    let first = phase1
        .first_error
        .as_deref()
        .unwrap_or("no reason recorded");
    let done = phase1.succeeded_with_output + phase1.succeeded_no_output;
    if done == 0 {
        anyhow::bail!(
            "every one of the {} sessions failed (each is tried again after the retry delay); the first error: {first}",
            phase1.failed
        );
    }
    writeln!(
        std::io::stderr().lock(),
        "warning: {} of {} sessions failed (tried again after the retry delay); the first error: {first}",
        phase1.failed,
        phase1.failed + done
    )?;
    Ok(())
}

async fn build(
    db: &StateDb,
    config: &MemoryConfig,
    sources: &[PathBuf],
    choice: &extractor_choice::Choice,
) -> anyhow::Result<(agentctx_memory::SyncReport, Phase1Report, Phase2Outcome)> {
    let spinner = ProgressBar::new_spinner();
    spinner.set_message("scanning sessions");
    spinner.enable_steady_tick(Duration::from_millis(120));
    let sync = sync_threads(db, sources).await?;
    spinner.finish_and_clear();
    let bar = ProgressBar::new(u64::try_from(sync.found).unwrap_or(0));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} sessions {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut total = Phase1Report::default();
    loop {
        let round = run_phase1(db, config, &choice.extractor).await?;
        if round.claimed == 0 {
            break;
        }
        bar.inc(u64::try_from(round.claimed).unwrap_or(0));
        total.claimed += round.claimed;
        total.succeeded_with_output += round.succeeded_with_output;
        total.succeeded_no_output += round.succeeded_no_output;
        total.failed += round.failed;
        if total.first_error.is_none() {
            total.first_error = round.first_error;
        }
        total.lost += round.lost;
        // Everything claimed in a round is finished before the next, so a round smaller than
        // the claim limit means nothing eligible is left.
        if round.claimed < config.max_rollouts_per_startup.max(CONCURRENCY_LIMIT) {
            break;
        }
    }
    bar.set_message("consolidating");
    let phase2 = run_phase2(db, config, choice.consolidator.as_ref()).await?;
    bar.finish_and_clear();
    Ok((sync, total, phase2))
}

fn describe_phase2(outcome: &Phase2Outcome) -> String {
    match outcome {
        Phase2Outcome::SkippedNotDirty => "nothing new to consolidate".to_string(),
        Phase2Outcome::SkippedRunning => "another process is consolidating".to_string(),
        Phase2Outcome::SkippedRetryBackoff => {
            "the last consolidation failed; retried after the delay".to_string()
        }
        Phase2Outcome::NoInput => "no memories yet".to_string(),
        Phase2Outcome::Consolidated {
            mode,
            new_outputs,
            watermark,
        } => format!(
            "consolidated ({}) {new_outputs} new memories, watermark {watermark}",
            mode.as_str()
        ),
        Phase2Outcome::Failed(reason) => format!("consolidation failed: {reason}"),
        Phase2Outcome::LostOwnership => {
            "lost the consolidation lease to another process".to_string()
        }
    }
}
