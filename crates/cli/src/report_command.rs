//! `agentctx report [PATHS…] [-o DIR]`: a static report of recorded sessions, to look at in a
//! browser (docs/design/report.md).
//!
//! Every session found is replayed through the engine exactly as `agentctx replay` replays it
//! (`agentctx_engine::replay`); the report only lays out what the replay decided. The output is
//! a folder: `index.html` (one sortable, filterable row per session, totals per day and per
//! project), `sessions/<name>.html` per session (its token timeline, its turns, its recorded
//! compactions, our tiers, and each request's body when the body budget allows) and
//! `assets/report.{css,js}`. No network, no CDN: the folder opens from disk.
//!
//! Sessions are replayed by a small pool of threads; each session page is written as soon as
//! its replay finishes and the replay dropped, so memory holds one replay per thread and one
//! index row per session.

mod body_files;
mod html;
mod index_page;
pub(crate) mod our_policy;
mod pricing;
mod session_page;
mod session_row;
mod survival_fold;
mod usage_cells;
mod usage_json;

use std::io::IsTerminal as _;
use std::io::Write as _;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

use agentctx_engine::ReplayError;
use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::replay_file;
use agentctx_model::PriceTable;
use agentctx_rollout::RolloutError;
use anyhow::Context as _;
use indicatif::ProgressBar;
use indicatif::ProgressStyle;

use crate::replay_command::Target;
use crate::replay_command::agentctx_home;
use crate::replay_command::collect_targets;
use crate::replay_command::replay_settings;
use crate::replay_command::request_bodies::BodyClients;

use self::session_row::SessionRow;

/// The report's style sheet, written to `assets/report.css`.
const REPORT_CSS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/report_command/report.css"
));
/// The report's script (sorting, filtering, request bodies), written to `assets/report.js`.
const REPORT_JS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/report_command/report.js"
));

/// Bytes of request bodies written per session at most, however few the sessions.
const SESSION_BODY_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// Session files or directories (searched recursively for `.jsonl` files): for example
    /// `~/.codex/sessions` and `~/.claude/projects`. Without any: both of those that exist.
    pub(crate) paths: Vec<PathBuf>,
    /// The folder the report is written into (created when missing; files of an earlier
    /// report there are replaced).
    #[arg(short, long, value_name = "DIR", default_value = "agentctx-report")]
    pub(crate) output: PathBuf,
    /// Do not replay system reminders (faster on huge histories).
    #[arg(long, conflicts_with = "reminders_config")]
    pub(crate) no_reminders: bool,
    /// The reminder settings, as for `agentctx replay --reminders-config`.
    #[arg(long, value_name = "FILE.toml")]
    pub(crate) reminders_config: Option<PathBuf>,
    /// The context window for sessions that record none, as for `agentctx replay`.
    #[arg(long, value_name = "TOKENS")]
    pub(crate) context_window: Option<u64>,
    /// Megabytes of request bodies the whole report may write (each session gets an equal
    /// share, at most 4 MB; a session's requests past its share are listed without a body).
    /// 0 writes none.
    #[arg(long, value_name = "MB", default_value_t = 256)]
    pub(crate) bodies_mb: u64,
    /// Sessions replayed at once [default: the machine's cores].
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<usize>,
    /// agentctx home: config.toml (its `[compact]` and `[system_reminder]`, and the provider
    /// whose bodies are shown) [default: ~/.agentctx].
    #[arg(long, value_name = "DIR", env = "AGENTCTX_HOME")]
    pub(crate) home: Option<PathBuf>,
    /// Also print the figures as JSON on stdout, for scripts: per session, per day and in
    /// total (tokens by class, models, cost with each request at its own model).
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn run(args: ReportArgs) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let paths = if args.paths.is_empty() {
        default_paths()?
    } else {
        args.paths.clone()
    };
    let targets = collect_targets(&paths)?;
    if targets.is_empty() {
        anyhow::bail!("no session files (*.jsonl) found in the given paths");
    }
    let home = agentctx_home(args.home.as_deref())?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .clamp(1, targets.len());
    let mut options = replay_settings(
        &home,
        args.no_reminders,
        args.reminders_config.as_deref(),
        args.context_window,
    )?
    .options;
    // With every core replaying a session, a second reading thread per session only competes.
    options.read_ahead = jobs == 1;
    let bodies = if args.bodies_mb == 0 {
        None
    } else {
        Some(BodyClients::load(&home, None, None)?)
    };
    let session_body_bytes = (args.bodies_mb.saturating_mul(1_000_000)
        / u64::try_from(targets.len()).unwrap_or(u64::MAX).max(1))
    .min(SESSION_BODY_BYTES);
    let out = &args.output;
    let sessions_dir = out.join(index_page::SESSIONS_DIR);
    let assets_dir = out.join(html::ASSETS_DIR);
    for dir in [&sessions_dir, &assets_dir] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    write_file(&assets_dir.join("report.css"), REPORT_CSS.as_bytes())?;
    write_file(&assets_dir.join("report.js"), REPORT_JS.as_bytes())?;

    if let Err(err) = PriceTable::bundled() {
        writeln!(
            std::io::stderr().lock(),
            "the bundled price table cannot be read ({err}): costs are left out"
        )?;
    }
    let job = ReportJob {
        targets: &targets,
        options: &options,
        bodies: bodies.as_ref(),
        session_body_bytes,
        sessions_dir: &sessions_dir,
        progress: progress_bar(targets.len()),
        next: AtomicUsize::new(0),
        rows: Mutex::new(Vec::with_capacity(targets.len())),
        failures: AtomicUsize::new(0),
        bytes: AtomicU64::new(0),
        notes: Mutex::new(Notes::default()),
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| job.work());
        }
    });
    job.progress.finish_and_clear();
    let failures = job.failures.load(Ordering::Relaxed);
    let mut rows = job
        .rows
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a report thread panicked"))?;
    // Newest first, as the sessions were found; the table sorts in the browser.
    rows.sort_by_key(|(index, _)| *index);
    let rows: Vec<SessionRow> = rows.into_iter().map(|(_, row)| row).collect();
    let index = out.join("index.html");
    write_file(&index, index_page::render(&rows).as_bytes())?;
    if args.json {
        std::io::stdout()
            .lock()
            .write_all(usage_json::render(&rows)?.as_bytes())?;
    }
    let mut stderr = std::io::stderr().lock();
    if let Ok(notes) = job.notes.into_inner() {
        for line in notes.lines() {
            writeln!(stderr, "{line}")?;
        }
    }
    crate::logging::print_collected(&mut stderr)?;
    let bytes: u64 = job.bytes.load(Ordering::Relaxed);
    write!(
        stderr,
        "{} sessions ({:.1} MB) in {:.1} s",
        rows.len(),
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    )?;
    if let Some(peak) = peak_memory_bytes() {
        write!(stderr, ", peak memory {:.0} MB", peak as f64 / 1e6)?;
    }
    writeln!(stderr, ": {}", index.display())?;
    if failures > 0 {
        anyhow::bail!(
            "{failures} of {} files could not be replayed",
            targets.len()
        );
    }
    Ok(())
}

/// What the threads share: the files, the next one to take, the rows written.
struct ReportJob<'a> {
    targets: &'a [Target],
    options: &'a ReplayOptions,
    bodies: Option<&'a BodyClients>,
    session_body_bytes: u64,
    sessions_dir: &'a Path,
    progress: ProgressBar,
    next: AtomicUsize,
    rows: Mutex<Vec<(usize, SessionRow)>>,
    failures: AtomicUsize,
    /// Bytes of the session files replayed.
    bytes: AtomicU64,
    /// What was skipped, summed up after the sessions instead of a line each.
    notes: Mutex<Notes>,
}

/// Files and lines a report skipped: a line per kind at the end, naming the first of each,
/// however many sessions had one.
#[derive(Debug, Default)]
struct Notes {
    /// Files found in a folder that are not sessions: how many, and the first.
    not_sessions: usize,
    first_not_session: Option<PathBuf>,
    /// Lines that could not be read: how many, in how many files, and the first
    /// (`file:line: reason`).
    skipped_lines: usize,
    files_with_skipped_lines: usize,
    first_skipped_line: Option<String>,
}

impl Notes {
    /// The summary lines (none when nothing was skipped).
    fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(first) = &self.first_not_session {
            lines.push(format!(
                "{} skipped: not a codex rollout or claude code transcript (the first: {})",
                plural(self.not_sessions, "file"),
                first.display()
            ));
        }
        if let Some(first) = &self.first_skipped_line {
            lines.push(format!(
                "{} could not be read and {} skipped, in {} (the first: {first})",
                plural(self.skipped_lines, "line"),
                if self.skipped_lines == 1 {
                    "was"
                } else {
                    "were"
                },
                plural(self.files_with_skipped_lines, "file"),
            ));
        }
        lines
    }
}

/// `1 file`, `3 files`.
fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

impl ReportJob<'_> {
    /// Takes files until none is left: each replayed, its page written, its row kept.
    fn work(&self) {
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(target) = self.targets.get(index) else {
                return;
            };
            match self.session(index, target) {
                Ok(Some(row)) => {
                    if let Ok(mut rows) = self.rows.lock() {
                        rows.push((index, row));
                    }
                }
                Ok(None) => {}
                Err(err) => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    self.say(&format!(
                        "{}: {}",
                        target.path.display(),
                        crate::error_report::one_line(&err)
                    ));
                }
            }
            self.progress.inc(1);
        }
    }

    /// One file: `None` when it is not a session and was only found in a folder.
    fn session(&self, index: usize, target: &Target) -> anyhow::Result<Option<SessionRow>> {
        let name = session_row::page_name(index, &target.path);
        let mut sink = body_files::BodyFiles::new(
            self.sessions_dir.join(&name),
            self.bodies,
            &target.path,
            self.session_body_bytes,
        );
        let replay = match replay_file(&target.path, self.options, sink.as_sink()) {
            Ok(replay) => replay,
            Err(ReplayError::Rollout(RolloutError::UnrecognizedFormat { .. })) if !target.named => {
                if let Ok(mut notes) = self.notes.lock() {
                    notes.not_sessions += 1;
                    notes
                        .first_not_session
                        .get_or_insert_with(|| target.path.clone());
                }
                return Ok(None);
            }
            Err(err) => return Err(err.into()),
        };
        if let Some(first) = replay.skipped.first()
            && let Ok(mut notes) = self.notes.lock()
        {
            notes.skipped_lines += replay.skipped.len();
            notes.files_with_skipped_lines += 1;
            notes.first_skipped_line.get_or_insert_with(|| {
                format!(
                    "{}:{}: {}",
                    replay.file.display(),
                    first.line_number,
                    first.reason
                )
            });
        }
        self.bytes.fetch_add(replay.bytes, Ordering::Relaxed);
        let bodies = sink.finish();
        let row = SessionRow::new(&replay, &name, PriceTable::bundled().ok());
        let page = session_page::render(&replay, &row, &bodies);
        drop(replay);
        let path = self.sessions_dir.join(format!("{name}.html"));
        write_file(&path, page.as_bytes())?;
        Ok(Some(row))
    }

    /// A line on stderr, above the progress bar.
    fn say(&self, line: &str) {
        self.progress.suspend(|| {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        });
    }
}

/// `~/.codex/sessions` and `~/.claude/projects`, those that exist.
fn default_paths() -> anyhow::Result<Vec<PathBuf>> {
    let home = std::env::home_dir().context("no home directory: name the session folders")?;
    let found: Vec<PathBuf> = [".codex/sessions", ".claude/projects"]
        .into_iter()
        .map(|dir| home.join(dir))
        .filter(|dir| dir.is_dir())
        .collect();
    if found.is_empty() {
        anyhow::bail!(
            "neither ~/.codex/sessions nor ~/.claude/projects exists: name the session files or folders"
        );
    }
    Ok(found)
}

/// A bar on a terminal; nothing when stderr is not one.
fn progress_bar(sessions: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(u64::try_from(sessions).unwrap_or(u64::MAX));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} sessions {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// The process's peak resident memory (Linux's `VmHWM`), where the system tells it.
fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
