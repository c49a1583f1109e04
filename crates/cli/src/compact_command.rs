//! `agentctx compact <SESSION>`: what our compaction makes of a recorded session.
//!
//! Rebuilds the history a Codex rollout or Claude Code transcript had at a chosen point
//! (`agentctx_engine::read_recorded_session`, the reconstruction `Session::resume` uses too),
//! hands it to a context engine with the files the session read
//! (`ContextEngine::observe_recorded_reads`), lets the engine run one of its tiers
//! (`ContextEngine::compact_offline`: micro-compaction, the session-memory tier or full
//! compaction, restoration included) and prints the history the model would see next. The
//! command decides nothing of what the model sees. The summary model comes from
//! `summary_model`; without one the offline summariser writes the summary and the output says
//! why. A model that was named and fails is an error (exit status 1), never a quiet offline
//! summary. See docs/design/compaction.md, "The compact command".

mod summary_model;
mod survival_report;

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use agentctx_compact::OfflineReason;
use agentctx_compact::SummaryPath;
use agentctx_compact::render_history;
use agentctx_context::ContextManager;
use agentctx_core::Config;
use agentctx_core::EnvVars;
use agentctx_core::ModelSelection;
use agentctx_engine::CompactionTier;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::OfflineResult;
use agentctx_engine::OfflineTier;
use agentctx_engine::RecordedSession;
use agentctx_engine::StopPoint;
use agentctx_engine::TieredCompaction;
use agentctx_engine::read_recorded_session;
use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutReader;
use anyhow::Context as _;
use serde::Serialize;

use self::summary_model::SummaryModel;

#[derive(Debug, clap::Args)]
pub(crate) struct CompactArgs {
    /// A Codex rollout or Claude Code transcript (`.jsonl`).
    session: PathBuf,
    /// Compact the history as it was just before the session's N-th recorded compaction.
    #[arg(long, value_name = "N", conflicts_with = "at_line", value_parser = clap::value_parser!(u64).range(1..))]
    at_compaction: Option<u64>,
    /// Compact the history as it was after line L of the file.
    #[arg(long, value_name = "L", value_parser = clap::value_parser!(u64).range(1..))]
    at_line: Option<u64>,
    /// The tier to run; `auto` takes the cheapest that applies: micro, then session memory
    /// (when a summary exists under --home), then full.
    #[arg(long, value_enum, default_value_t = Tier::Auto)]
    tier: Tier,
    /// Summarise without a model (the offline summariser).
    #[arg(long, conflicts_with_all = ["provider", "model"])]
    offline: bool,
    /// The model provider: a `[model_providers.<id>]` of config.toml or a built-in id (openai,
    /// ollama, lmstudio, anthropic) [default: config.toml's `model_provider`, else openai].
    #[arg(long, value_name = "ID")]
    provider: Option<String>,
    /// The summary model [default: config.toml's `model`; none: offline].
    #[arg(long, value_name = "SLUG")]
    model: Option<String>,
    /// Print one JSON object instead of the history.
    #[arg(long)]
    json: bool,
    /// agentctx home: config.toml, session memory, persisted tool results [default: ~/.agentctx]
    #[arg(long, env = "AGENTCTX_HOME", value_name = "DIR")]
    home: Option<PathBuf>,
}

/// A compaction tier, as `--tier` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Tier {
    Auto,
    Micro,
    SessionMemory,
    Full,
}

impl Tier {
    /// The engine's name of the tier.
    fn offline(self) -> OfflineTier {
        match self {
            Self::Auto => OfflineTier::Auto,
            Self::Micro => OfflineTier::Micro,
            Self::SessionMemory => OfflineTier::SessionMemory,
            Self::Full => OfflineTier::Full,
        }
    }

    /// The flag's name of an engine tier.
    fn of(tier: OfflineTier) -> Self {
        match tier {
            OfflineTier::Auto => Self::Auto,
            OfflineTier::Micro => Self::Micro,
            OfflineTier::SessionMemory => Self::SessionMemory,
            OfflineTier::Full => Self::Full,
        }
    }
}

/// A tier that was tried and did not apply.
#[derive(Debug, Clone, Serialize)]
struct NotApplied {
    tier: Tier,
    reason: String,
}

/// What the command reports.
#[derive(Debug, Serialize)]
struct CompactReport {
    session: PathBuf,
    session_id: Option<String>,
    /// The last line of the file the history was rebuilt from.
    through_line: usize,
    /// Compactions the session recorded before that point.
    recorded_compactions_before: usize,
    /// With `--at-compaction` and the `auto` tier: the decision the engine takes where the
    /// session compacted (the replay of the session up to there decides it, as a live session
    /// under this configuration would), whose reason the compaction runs with.
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<agentctx_engine::Decision>,
    /// The tier that changed the history; `null` when none applied.
    tier: Option<Tier>,
    tokens_before: u64,
    tokens_after: u64,
    /// The summary text (`null` for micro-compaction or when nothing applied).
    summary: Option<String>,
    /// `model`, `offline`, or `null` when no summary was written.
    summary_path: Option<SummaryPath>,
    /// Why the offline summariser was used.
    offline_reason: Option<String>,
    /// Tiers tried that did not apply, in order.
    not_applied: Vec<NotApplied>,
    /// Tool results micro-compaction wrote under the home.
    persisted_paths: Vec<PathBuf>,
    /// Files whose contents the restoration after a summarising tier put back, newest first.
    restored_files: Vec<PathBuf>,
    /// The full tier ran at the provider (`[compact] mode`): the history holds its opaque
    /// compaction items.
    compacted_at_provider: bool,
    /// Why the full tier ran here although the mode asked for the provider's compaction.
    remote_fallback: Option<String>,
    /// The readable copy of every opaque compaction item of the new history, in order.
    readable_copies: Vec<String>,
    /// What the new history holds of what the session used after the point, and what the
    /// session's own compaction there held (`--at-compaction`): see docs/design/survival.md.
    survival: Option<survival_report::CompactSurvival>,
    /// The new history.
    items: Vec<ResponseItem>,
}

pub(crate) fn run(args: CompactArgs) -> anyhow::Result<()> {
    let home = match &args.home {
        Some(dir) => dir.clone(),
        None => std::env::home_dir()
            .map(|dir| dir.join(".agentctx"))
            .context("no home directory: pass --home or set AGENTCTX_HOME")?,
    };
    let stop = match (args.at_compaction, args.at_line) {
        (Some(n), _) => StopPoint::BeforeCompaction(usize::try_from(n).unwrap_or(usize::MAX)),
        (None, Some(line)) => StopPoint::AfterLine(usize::try_from(line).unwrap_or(usize::MAX)),
        (None, None) => StopPoint::End,
    };
    // The reader's errors name the file and carry the I/O error in their message already; only
    // that message is shown, as the cause chain would repeat it.
    let reader = RolloutReader::open(&args.session).map_err(|err| anyhow::anyhow!("{err}"))?;
    let recorded = read_recorded_session(reader, stop).map_err(|err| anyhow::anyhow!("{err}"))?;
    if let StopPoint::BeforeCompaction(n) = stop
        && let Some(total) = recorded.compactions_in_file
    {
        anyhow::bail!(
            "{} records {total} compaction{}; --at-compaction {n} asks for more",
            args.session.display(),
            if total == 1 { "" } else { "s" }
        );
    }
    report_skipped(&args.session, &recorded)?;
    if recorded.items.is_empty() {
        anyhow::bail!(
            "{}: no conversation items before that point",
            args.session.display()
        );
    }

    // The configuration as every command loads it: config.toml, then the documented
    // `AGENTCTX_` switches of the environment, as in a session.
    let env = EnvVars::from_process_env();
    let loaded = Config::load(&home, &env)?;
    let mut report = compact(&args, &home, &loaded.config, &env, recorded)?;
    report.survival = Some(survival_report::survival(
        &args.session,
        stop,
        &report.items,
    )?);
    let mut stdout = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer(&mut stdout, &report)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        write!(stdout, "{}", human_report(&report))
    };
    match written.and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        // `agentctx compact … | head` closes the pipe early; that is not an error.
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(err).context("cannot write to stdout"),
    }
}

fn report_skipped(session: &Path, recorded: &RecordedSession) -> anyhow::Result<()> {
    let mut stderr = std::io::stderr().lock();
    for skipped in &recorded.skipped {
        writeln!(
            stderr,
            "{}:{}: {}",
            session.display(),
            skipped.line_number,
            skipped.reason
        )?;
    }
    Ok(())
}

/// Runs the chosen tier (or the cascade of `auto`) on the recorded history, through the
/// context engine: the command only reports what the engine did.
fn compact(
    args: &CompactArgs,
    home: &Path,
    full_config: &Config,
    env: &EnvVars,
    mut recorded: RecordedSession,
) -> anyhow::Result<CompactReport> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // The summary model is chosen only when full compaction may run.
    let (client, chosen_offline_reason) = if matches!(args.tier, Tier::Auto | Tier::Full) {
        let selection = ModelSelection {
            provider: args.provider.clone(),
            model: args.model.clone(),
            context_window: None,
        };
        match runtime.block_on(summary_model::choose(
            args.offline,
            &selection,
            full_config,
            env,
            home,
        ))? {
            SummaryModel::Client(client) => (Some(client), None),
            SummaryModel::Offline { code, detail } => (None, Some(format!("{code}: {detail}"))),
        }
    } else {
        (None, None)
    };
    let model = client.as_deref().map(|client| client as &dyn ModelClient);

    // At a recorded compaction, `auto` runs the compaction the engine decides there: the replay
    // of the session up to that point (the same engine state a live session would have: its
    // window, thresholds, reads, initial context), then the compaction with the decided reason.
    if let (Some(n), Tier::Auto) = (args.at_compaction, args.tier) {
        let options = agentctx_engine::replay::ReplayOptions {
            home: home.to_path_buf(),
            reminders: Some(full_config.system_reminder.clone()),
            compact: full_config.compact.clone(),
            context_window: model.map(|model| model.context_window().unsigned_abs()),
            ..agentctx_engine::replay::ReplayOptions::default()
        };
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let mut at = agentctx_engine::replay::engine_at_compaction(&args.session, n, &options)?;
        let decision = at.decision;
        let compacted = runtime.block_on(at.compact(model));
        let mut report = new_report(args, &recorded);
        report.decision = decision;
        report.tokens_before = at.engine.context_usage().used_tokens();
        report.tokens_after = report.tokens_before;
        match compacted {
            Ok(compacted) => {
                report.tokens_before = compacted.compaction.tokens_before;
                report_compaction(
                    &mut report,
                    &compacted,
                    client.is_some(),
                    chosen_offline_reason,
                )?;
            }
            Err(reason) => report.not_applied.push(NotApplied {
                tier: Tier::SessionMemory,
                reason,
            }),
        }
        return Ok(with_items(report, at.engine.history()));
    }

    // The window the compaction is fitted to: the summary model's, else the model table's for
    // the model the session recorded, else the default (the engine's one fallback chain).
    let context_window = EngineOptions::window(
        None,
        model.map(ModelClient::context_window),
        recorded
            .last_turn_context
            .as_ref()
            .and_then(|context| context.model.as_deref()),
        agentctx_engine::DEFAULT_CONTEXT_WINDOW,
    );
    let cwd = recorded.cwd.clone().unwrap_or_default();
    let options = EngineOptions::new(
        &cwd,
        home,
        recorded.session_id.clone().unwrap_or_default(),
        full_config.system_reminder.clone(),
        full_config.compact.clone(),
    )
    .with_window(
        context_window,
        model.and_then(|model| model.model_info().max_output_tokens),
    );
    let mut history = ContextManager::new();
    history.replace(std::mem::take(&mut recorded.items));
    let mut engine = ContextEngine::with_history(options, history);
    engine.observe_recorded_reads(&cwd, engine.history());
    let base_instructions = recorded.base_instructions.as_deref().unwrap_or_default();
    let done = runtime
        .block_on(engine.compact_offline(args.tier.offline(), model, base_instructions))
        .context("micro-compaction failed")?;

    let mut report = new_report(args, &recorded);
    report.tokens_before = done.tokens_before;
    report.tokens_after = done.tokens_before;
    report.not_applied = done
        .not_applied
        .iter()
        .map(|skipped| NotApplied {
            tier: Tier::of(skipped.tier),
            reason: skipped.reason.clone(),
        })
        .collect();
    match done.result {
        OfflineResult::Unchanged => {}
        OfflineResult::Micro(micro) => {
            report.tier = Some(Tier::Micro);
            report.tokens_after = micro.tokens_after;
            report.persisted_paths = micro.persisted_paths;
        }
        OfflineResult::Compacted(compacted) => {
            report_compaction(
                &mut report,
                &compacted,
                client.is_some(),
                chosen_offline_reason,
            )?;
        }
    }
    Ok(with_items(report, engine.history()))
}

/// The report of `args` on the history `recorded` rebuilt, before any tier ran.
fn new_report(args: &CompactArgs, recorded: &RecordedSession) -> CompactReport {
    CompactReport {
        session: args.session.clone(),
        session_id: recorded.session_id.clone(),
        through_line: recorded.last_line,
        recorded_compactions_before: recorded.compactions_applied,
        decision: None,
        tier: None,
        tokens_before: 0,
        tokens_after: 0,
        summary: None,
        summary_path: None,
        offline_reason: None,
        not_applied: Vec::new(),
        persisted_paths: Vec::new(),
        restored_files: Vec::new(),
        compacted_at_provider: false,
        remote_fallback: None,
        readable_copies: Vec::new(),
        survival: None,
        items: Vec::new(),
    }
}

/// What a summarising tier did, into `report`. `named_model`: a summary model was named, so
/// its failure is the command's, not a reason to go offline.
fn report_compaction(
    report: &mut CompactReport,
    compacted: &TieredCompaction,
    named_model: bool,
    chosen_offline_reason: Option<String>,
) -> anyhow::Result<()> {
    let summary_path = match compacted.compaction.tier {
        CompactionTier::Mask | CompactionTier::SessionMemory | CompactionTier::Remote => None,
        CompactionTier::FullModel | CompactionTier::PartialModel => Some(SummaryPath::Model),
        CompactionTier::FullOffline | CompactionTier::PartialOffline => Some(SummaryPath::Offline),
    };
    if summary_path == Some(SummaryPath::Offline) {
        report.offline_reason = match &compacted.offline_reason {
            Some(OfflineReason::ModelFailed { last_error }) if named_model => {
                anyhow::bail!("the summary model failed: {last_error}")
            }
            _ if chosen_offline_reason.is_some() => chosen_offline_reason,
            Some(reason) => Some(offline_reason_text(reason)),
            None => None,
        };
    }
    if let Some(reason) = &compacted.session_memory_skipped
        && !report
            .not_applied
            .iter()
            .any(|skipped| skipped.tier == Tier::SessionMemory)
    {
        report.not_applied.push(NotApplied {
            tier: Tier::SessionMemory,
            reason: reason.clone(),
        });
    }
    report.tier = Some(match compacted.compaction.tier {
        // `agentctx compact` names its tiers; the stages of the token budget (mask, partial)
        // run only where the engine decided on the budget, never here.
        CompactionTier::Mask => Tier::Micro,
        CompactionTier::SessionMemory => Tier::SessionMemory,
        CompactionTier::FullModel
        | CompactionTier::FullOffline
        | CompactionTier::PartialModel
        | CompactionTier::PartialOffline
        | CompactionTier::Remote => Tier::Full,
    });
    report.compacted_at_provider = compacted.compaction.tier == CompactionTier::Remote;
    report.remote_fallback = compacted.compaction.remote_fallback.clone();
    report.summary = Some(compacted.summary_body().to_string());
    report.summary_path = summary_path;
    report.tokens_after = compacted.compaction.tokens_after;
    report.restored_files = compacted
        .compaction
        .restored_files
        .iter()
        .map(|(path, _)| path.clone())
        .collect();
    Ok(())
}

/// `report` with the new history and the readable copies of its opaque items.
fn with_items(mut report: CompactReport, history: &[ResponseItem]) -> CompactReport {
    report.items = history.to_vec();
    report.readable_copies = report
        .items
        .iter()
        .filter_map(|item| item.readable_copy().map(str::to_string))
        .collect();
    report
}

/// Why the offline summariser wrote the summary, as the output names it.
fn offline_reason_text(reason: &OfflineReason) -> String {
    match reason {
        OfflineReason::NoModel => "no_provider_configured".to_string(),
        OfflineReason::ModelFailed { last_error } => format!("model_failed: {last_error}"),
        OfflineReason::PromptTooLarge => {
            "prompt_too_large: even the newest item does not fit the model's window".to_string()
        }
    }
}

/// The human output: what was done, then the history the model sees next.
fn human_report(report: &CompactReport) -> String {
    let mut out = format!(
        "{} through line {} ({} recorded compaction{} before)\n",
        report.session.display(),
        report.through_line,
        report.recorded_compactions_before,
        if report.recorded_compactions_before == 1 {
            ""
        } else {
            "s"
        },
    );
    for skipped in &report.not_applied {
        out.push_str(&format!(
            "{} does not apply: {}\n",
            tier_name(skipped.tier),
            skipped.reason
        ));
    }
    match report.tier {
        Some(tier) => out.push_str(&format!("tier: {}\n", tier_name(tier))),
        None => out.push_str("no tier applied: history unchanged\n"),
    }
    match (report.summary_path, &report.offline_reason) {
        (Some(SummaryPath::Offline), Some(reason)) => {
            out.push_str(&format!("summary: offline summariser ({reason})\n"));
        }
        (Some(SummaryPath::Offline), None) => out.push_str("summary: offline summariser\n"),
        (Some(SummaryPath::Model), _) => out.push_str("summary: written by the model\n"),
        (None, _) if report.compacted_at_provider => {
            out.push_str("summary: compacted at the provider (readable copy kept)\n");
        }
        (None, _) => {}
    }
    if let Some(reason) = &report.remote_fallback {
        out.push_str(&format!(
            "compacted here instead of at the provider: {reason}\n"
        ));
    }
    if !report.restored_files.is_empty() {
        let files: Vec<String> = report
            .restored_files
            .iter()
            .map(|path| path.display().to_string())
            .collect();
        out.push_str(&format!("restored files: {}\n", files.join(", ")));
    }
    if let Some(survival) = &report.survival {
        out.push_str(&survival_report::human_line(survival));
    }
    out.push_str(&format!(
        "tokens: {} -> {}\n\nnext prompt ({} items):\n{}\n",
        report.tokens_before,
        report.tokens_after,
        report.items.len(),
        render_history(&report.items)
    ));
    out
}

fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::Auto => "auto",
        Tier::Micro => "micro",
        Tier::SessionMemory => "session-memory",
        Tier::Full => "full",
    }
}
