//! `agentctx memory`: build the cross-session memory from recorded sessions, report its state,
//! and print its files. All state lives under `AGENTCTX_HOME` (`state.sqlite`, `memories/`).
//! See docs/design/memory.md, "The memory command".

mod build;
mod extractor_choice;

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use agentctx_memory::MEMORY_FILE;
use agentctx_memory::MEMORY_SUMMARY_FILE;
use agentctx_memory::ROLLOUT_SUMMARIES_DIR;
use agentctx_memory::StateDb;
use agentctx_memory::memory_root;
use anyhow::Context as _;

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryArgs {
    /// agentctx home: state.sqlite and memories/ [default: ~/.agentctx]
    #[arg(long, global = true, env = "AGENTCTX_HOME", value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(subcommand)]
    command: MemoryCommand,
}

#[derive(Debug, clap::Subcommand)]
enum MemoryCommand {
    /// Learn from recorded sessions: extract each eligible session (phase 1), then consolidate
    /// the memory folder (phase 2).
    Build(build::BuildArgs),
    /// Threads seen, jobs by state, the last consolidation and its watermark.
    Status,
    /// Print a file of the memory folder (memory_summary.md by default).
    Show(ShowArgs),
}

#[derive(Debug, clap::Args)]
struct ShowArgs {
    /// Print memory_summary.md (the default).
    #[arg(long, conflicts_with_all = ["memory", "rollout"])]
    summary: bool,
    /// Print MEMORY.md.
    #[arg(long, conflicts_with = "rollout")]
    memory: bool,
    /// Print the rollout summary whose file name contains SLUG.
    #[arg(long, value_name = "SLUG")]
    rollout: Option<String>,
}

pub(crate) fn run(args: MemoryArgs) -> anyhow::Result<()> {
    let home = match args.home {
        Some(home) => home,
        None => std::env::home_dir()
            .map(|dir| dir.join(".agentctx"))
            .context("no home directory: pass --home or set AGENTCTX_HOME")?,
    };
    match args.command {
        MemoryCommand::Build(build_args) => build::run(&home, build_args),
        MemoryCommand::Status => status(&home),
        MemoryCommand::Show(show_args) => show(&home, &show_args),
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn status(home: &Path) -> anyhow::Result<()> {
    let status = runtime()?.block_on(async {
        let db = StateDb::open(home).await?;
        let status = db.status().await;
        db.close().await;
        status
    })?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "state: {}",
        home.join(agentctx_memory::STATE_DB_FILE).display()
    )?;
    writeln!(out, "memories: {}", memory_root(home).display())?;
    writeln!(out, "threads seen: {}", status.threads)?;
    writeln!(out, "stage-1 outputs: {}", status.outputs)?;
    let jobs: Vec<String> = status
        .stage1_jobs
        .iter()
        .map(|(state, count)| format!("{state}={count}"))
        .collect();
    let jobs = if jobs.is_empty() {
        "none".to_string()
    } else {
        jobs.join(" ")
    };
    writeln!(out, "stage-1 jobs: {jobs}")?;
    match &status.global_job {
        Some(job) => {
            let last = job
                .finished_at
                .filter(|_| job.completions > 0)
                .map(format_time)
                .unwrap_or_else(|| "never".to_string());
            writeln!(
                out,
                "consolidation: {} (runs: {})",
                job.status, job.completions
            )?;
            writeln!(out, "last consolidation: {last}")?;
            writeln!(
                out,
                "watermark: {} consolidated of {} stored",
                job.last_success_watermark.unwrap_or(0),
                job.input_watermark.unwrap_or(0)
            )?;
            if let Some(error) = &job.last_error {
                writeln!(out, "last consolidation error: {error}")?;
            }
        }
        None => {
            writeln!(out, "consolidation: never")?;
            writeln!(out, "last consolidation: never")?;
            writeln!(out, "watermark: 0 consolidated of 0 stored")?;
        }
    }
    Ok(())
}

fn format_time(seconds: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp(seconds, 0)
        .map(|time| time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_else(|| seconds.to_string())
}

fn show(home: &Path, args: &ShowArgs) -> anyhow::Result<()> {
    let root = memory_root(home);
    let path = match (&args.rollout, args.memory) {
        (Some(slug), _) => find_rollout(&root, slug)?,
        (None, true) => root.join(MEMORY_FILE),
        (None, false) => root.join(MEMORY_SUMMARY_FILE),
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => anyhow::bail!(
            "{} does not exist yet: run `agentctx memory build`",
            path.display()
        ),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

fn find_rollout(root: &Path, slug: &str) -> anyhow::Result<PathBuf> {
    let dir = root.join(ROLLOUT_SUMMARIES_DIR);
    let mut matches: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension().is_some_and(|ext| ext == "md")
                    && path
                        .file_stem()
                        .is_some_and(|stem| stem.to_string_lossy().contains(slug))
            })
            .collect(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", dir.display())),
    };
    matches.sort();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        [] => anyhow::bail!("no rollout summary in {} matches `{slug}`", dir.display()),
        many => {
            let exact = many
                .iter()
                .find(|path| path.file_stem().is_some_and(|stem| stem == slug));
            match exact {
                Some(path) => Ok(path.clone()),
                None => {
                    let names: Vec<String> = many
                        .iter()
                        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                        .collect();
                    anyhow::bail!(
                        "`{slug}` matches several rollout summaries: {}",
                        names.join(", ")
                    )
                }
            }
        }
    }
}
