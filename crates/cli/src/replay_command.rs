//! `agentctx replay <FILE|DIR>...`: what the model saw, turn by turn, in recorded sessions.
//!
//! Reads Codex rollouts (current and legacy), Claude Code transcripts and agentctx's own
//! sessions, detected per file, and feeds each through the context engine
//! (`agentctx_engine::replay`), the one pipeline a live session runs: per turn the items, our
//! estimate of the prompt, tool calls, compactions and the token figures the session recorded,
//! the reminders the engine placed before each model request, and per request the engine's
//! usage against what the request recorded and where its tiers triggered, drawn with `--svg`
//! (`svg_timeline`). `--requests DIR` writes every request the engine would send, as the
//! session's provider receives it (`request_bodies`). Corrupt lines are reported on stderr as
//! `<file>:<line>: <reason>` and the replay goes on. The tiers and reminders run under the
//! home's `config.toml` and the environment's switches, loaded as `agentctx run` loads them
//! (`replay_settings`). This file only gathers files, reads the arguments and prints; the
//! engine decides.

mod human_report;
mod json_report;
pub(crate) mod request_bodies;
pub(crate) mod svg_timeline;

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_engine::ReplayError;
use agentctx_engine::replay::DEFAULT_CONTEXT_WINDOW;
use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::RequestSink;
use agentctx_engine::replay::SessionReplay;
use agentctx_engine::replay::replay_file;
use agentctx_reminders::ConfigError;
use agentctx_reminders::SystemReminderConfig;
use agentctx_rollout::RolloutError;
use agentctx_rollout::discover_sessions;
use anyhow::Context as _;

use self::human_report::ReplayTotals;

#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// Rollout files or directories of sessions (searched recursively for `.jsonl` files,
    /// newest first).
    #[arg(required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// Print one JSON object per session, one per line.
    #[arg(long)]
    pub(crate) json: bool,
    /// Do not replay system reminders (faster on huge histories).
    ///
    /// By default each turn shows which reminders the reminder engine would have fired before
    /// each of its model requests, from the state the history shows (todo lists, plan mode, background shells,
    /// skills, recorded token usage). Files are not read on the history's behalf: no file read
    /// in the session is tracked (no `changed_files` from reads), and `@` mentions are read from
    /// the session's working directory as it is now, only when that directory exists here.
    #[arg(long, conflicts_with = "reminders_config")]
    pub(crate) no_reminders: bool,
    /// The reminder settings: a `config.toml` with a `[system_reminder]` table, or that table's
    /// keys alone, in place of the `[system_reminder]` of the home's config.toml (the
    /// environment's switches still apply over it).
    #[arg(long, value_name = "FILE.toml")]
    pub(crate) reminders_config: Option<PathBuf>,
    /// The context window our compaction tiers are judged against when the session records
    /// none (Claude Code transcripts do not; Codex rollouts record `model_context_window`).
    /// Without it: the model table's window for the model the session recorded (a `[1m]`
    /// suffix is 1,000,000), else 200,000.
    #[arg(long, value_name = "TOKENS")]
    pub(crate) context_window: Option<u64>,
    /// Draw the session's token timeline into FILE as SVG: recorded and predicted usage per
    /// request, our thresholds, recorded compactions and where our tiers would trigger. Takes
    /// exactly one session file.
    #[arg(long, value_name = "FILE")]
    pub(crate) svg: Option<PathBuf>,
    /// Write every request the engine would send into DIR (`request-0001.json`, …), as the
    /// session's provider receives it: for a session agentctx recorded, the bodies the live
    /// session sent. Takes exactly one session file. The provider and model are the
    /// `--provider` / `--model` given, else the ones the session recorded, else config.toml's.
    #[arg(long, value_name = "DIR")]
    pub(crate) requests: Option<PathBuf>,
    /// The provider whose wire format `--requests` writes (a `[model_providers.<id>]` of
    /// config.toml or a built-in id).
    #[arg(long, value_name = "ID", requires = "requests")]
    pub(crate) provider: Option<String>,
    /// The model `--requests` names in the bodies.
    #[arg(long, value_name = "SLUG", requires = "requests")]
    pub(crate) model: Option<String>,
    /// agentctx home: config.toml (its `[compact]` and `[system_reminder]`, as a live session
    /// reads them), and the folder micro-compaction's markers name (nothing is written there)
    /// [default: ~/.agentctx].
    #[arg(long, value_name = "DIR", env = "AGENTCTX_HOME")]
    pub(crate) home: Option<PathBuf>,
}

/// A file to replay, and whether the user named it (an unreadable named file is an error; an
/// unrecognised file found in a directory is only reported).
pub(crate) struct Target {
    pub(crate) path: PathBuf,
    pub(crate) named: bool,
}

pub(crate) fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let targets = collect_targets(&args.paths)?;
    if targets.is_empty() {
        anyhow::bail!("no session files (*.jsonl) found in the given paths");
    }
    if args.svg.is_some() && targets.len() != 1 {
        anyhow::bail!(
            "--svg draws one session, but the paths hold {} session files: name one file",
            targets.len()
        );
    }
    if args.requests.is_some() && targets.len() != 1 {
        anyhow::bail!(
            "--requests writes one session's requests, but the paths hold {} session files: name one file",
            targets.len()
        );
    }
    let home = agentctx_home(args.home.as_deref())?;
    let ReplaySettings {
        mut options,
        config_file,
    } = replay_settings(
        &home,
        args.no_reminders,
        args.reminders_config.as_deref(),
        args.context_window,
    )?;
    // Only the JSON report shows what each compaction kept.
    options.survival = args.json;
    let mut bodies = match (&args.requests, targets.first()) {
        (Some(dir), Some(target)) => Some(request_bodies::RequestBodies::new(
            dir,
            &target.path,
            &home,
            args.provider.as_deref(),
            args.model.as_deref(),
        )?),
        _ => None,
    };
    // Buffered beyond stdout's own line buffer: a session's JSON report is one line of several
    // megabytes on a long session, which stdout would otherwise write in 1 KiB pieces. Each
    // session's report is flushed when it is complete.
    let mut stdout =
        std::io::BufWriter::with_capacity(REPORT_BUFFER_BYTES, std::io::stdout().lock());
    let mut stderr = std::io::stderr().lock();
    let mut totals = ReplayTotals::default();
    let mut failures = 0usize;
    for target in &targets {
        let sink = bodies.as_mut().map(|bodies| bodies as &mut dyn RequestSink);
        let replay = match replay_file(&target.path, &options, sink) {
            Ok(replay) => replay,
            Err(ReplayError::Rollout(RolloutError::UnrecognizedFormat { .. })) if !target.named => {
                writeln!(
                    stderr,
                    "{}: not a codex rollout or claude code transcript, skipped",
                    target.path.display()
                )?;
                continue;
            }
            Err(err) => {
                writeln!(stderr, "{}: {err}", target.path.display())?;
                failures += 1;
                continue;
            }
        };
        report_skipped(&mut stderr, &replay)?;
        if let Some(svg) = &args.svg {
            std::fs::write(svg, svg_timeline::render(&replay))
                .with_context(|| format!("cannot write {}", svg.display()))?;
        }
        totals.add(&replay);
        let written = if args.json {
            json_report::SessionJson::new(&replay)
                .and_then(|report| serde_json::to_writer(&mut stdout, &report))
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(stdout))
        } else {
            writeln!(stdout, "{}", human_report::session_report(&replay))
        }
        .and_then(|()| stdout.flush());
        if stop_on_closed_pipe(written)? {
            return Ok(());
        }
    }
    if !args.json && totals.sessions > 0 {
        let written = writeln!(stdout, "{}", human_report::totals_line(&totals)).and_then(|()| {
            // Where the compaction and reminder settings came from, when a file was read.
            match &config_file {
                Some(file) => writeln!(stdout, "config: {}", file.display()),
                None => Ok(()),
            }
        });
        if stop_on_closed_pipe(written)? {
            return Ok(());
        }
    }
    if stop_on_closed_pipe(stdout.flush())? {
        return Ok(());
    }
    if failures > 0 {
        anyhow::bail!(
            "{failures} of {} files could not be replayed",
            targets.len()
        );
    }
    Ok(())
}

/// `--home`, else `~/.agentctx`.
pub(crate) fn agentctx_home(home: Option<&Path>) -> anyhow::Result<PathBuf> {
    match home {
        Some(dir) => Ok(dir.to_path_buf()),
        None => std::env::home_dir()
            .map(|dir| dir.join(".agentctx"))
            .context("no home directory: pass --home or set AGENTCTX_HOME"),
    }
}

/// What `replay` and `report` judge sessions under, and where it came from.
pub(crate) struct ReplaySettings {
    pub(crate) options: ReplayOptions,
    /// The `config.toml` read; `None` when the home holds none (defaults and the environment).
    pub(crate) config_file: Option<PathBuf>,
}

/// The replay's settings from the configuration and the flags `replay` and `report` share. The
/// configuration is loaded as every command loads it (`config.toml` under `home`, then the
/// documented `AGENTCTX_` switches of the environment), so `[compact]` and `[system_reminder]`
/// are those a live session under the same home runs with. `reminders_config` replaces
/// `[system_reminder]`, with the environment's switches over it; `no_reminders` replays none.
pub(crate) fn replay_settings(
    home: &Path,
    no_reminders: bool,
    reminders_config: Option<&Path>,
    context_window: Option<u64>,
) -> anyhow::Result<ReplaySettings> {
    let env = EnvVars::from_process_env();
    let loaded = Config::load(home, &env)?;
    tracing::debug!(
        file = %loaded.path.display(),
        exists = loaded.file_exists,
        "configuration loaded"
    );
    let reminders = match (no_reminders, reminders_config) {
        (true, _) => None,
        (false, Some(path)) => {
            let mut config = load_reminder_config(path)?;
            // The documented `AGENTCTX_` / `CODEX_` switches apply over the file.
            config
                .apply_env_vars(env.iter())
                .context("invalid reminder setting in the environment")?;
            Some(config)
        }
        (false, None) => Some(loaded.config.system_reminder),
    };
    Ok(ReplaySettings {
        options: ReplayOptions {
            home: home.to_path_buf(),
            reminders,
            compact: loaded.config.compact,
            context_window,
            default_window: DEFAULT_CONTEXT_WINDOW,
            // The binary's allocator (mimalloc) frees across threads cheaply.
            read_ahead: true,
            // What each compaction kept of what the session used after it.
            survival: true,
        },
        config_file: loaded.file_exists.then_some(loaded.path),
    })
}

/// Reads `--reminders-config`: a whole `config.toml` (its `[system_reminder]` table) or the
/// table's keys alone.
fn load_reminder_config(path: &Path) -> anyhow::Result<SystemReminderConfig> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("invalid toml in {}", path.display()))?;
    let config = if table.contains_key("system_reminder") {
        SystemReminderConfig::from_toml_document(&text)
    } else {
        SystemReminderConfig::from_toml_section(&text)
    };
    // For a TOML error the context below already says what the reminders crate's wording
    // ("invalid system reminder config") would: the TOML error itself is the cause. (Causes
    // printed twice are dropped for every error by `error_report`.)
    config
        .map_err(|err| match err {
            ConfigError::Toml(toml) => anyhow::Error::new(toml),
            other => anyhow::Error::new(other),
        })
        .with_context(|| format!("invalid reminder settings in {}", path.display()))
}

/// The session files under `paths`: each directory searched for `.jsonl` files (newest first),
/// each file taken as named.
pub(crate) fn collect_targets(paths: &[PathBuf]) -> anyhow::Result<Vec<Target>> {
    let mut targets = Vec::new();
    for path in paths {
        if path.is_dir() {
            let sessions = discover_sessions(path)
                .with_context(|| format!("cannot list sessions under {}", path.display()))?;
            targets.extend(sessions.into_iter().map(|session| Target {
                path: session.path,
                named: false,
            }));
        } else {
            targets.push(Target {
                path: path.clone(),
                named: true,
            });
        }
    }
    Ok(targets)
}

/// Reports `replay`'s unreadable lines as `<file>:<line>: <reason>`.
pub(crate) fn report_skipped(
    stderr: &mut impl Write,
    replay: &SessionReplay,
) -> std::io::Result<()> {
    for skipped in &replay.skipped {
        writeln!(
            stderr,
            "{}:{}: {}",
            replay.file.display(),
            skipped.line_number,
            skipped.reason
        )?;
    }
    Ok(())
}

/// The buffer between a report and stdout.
const REPORT_BUFFER_BYTES: usize = 64 * 1024;

/// `Ok(true)` when stdout was closed by its reader (`agentctx replay … | head`): stop quietly.
fn stop_on_closed_pipe(result: std::io::Result<()>) -> anyhow::Result<bool> {
    match result {
        Ok(()) => Ok(false),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(true),
        Err(err) => Err(err).context("cannot write to stdout"),
    }
}
