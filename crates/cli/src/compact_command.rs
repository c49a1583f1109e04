//! `agentctx compact <SESSION>`: what our compaction makes of a recorded session.
//!
//! Rebuilds the history a Codex rollout or Claude Code transcript had at a chosen point
//! (`agentctx_engine::read_recorded_session`, the reconstruction `Session::resume` uses too),
//! runs one of our tiers on it (`agentctx-compact`) and prints the history the model would see
//! next. The summary model comes from `summary_model`; without one the offline summariser writes
//! the summary and the output says why. A model that was named and fails is an error (exit
//! status 1), never a quiet offline summary. See docs/design/compaction.md, "The compact
//! command".

mod summary_model;

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use agentctx_compact::CompactConfig;
use agentctx_compact::CompactionMode;
use agentctx_compact::FullCompactRequest;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::MicroCompactResult;
use agentctx_compact::MicroCompactSkip;
use agentctx_compact::NotApplicable;
use agentctx_compact::OfflineReason;
use agentctx_compact::RestorationInput;
use agentctx_compact::SessionMemoryCompaction;
use agentctx_compact::SessionMemoryStore;
use agentctx_compact::SummaryPath;
use agentctx_compact::full_compact;
use agentctx_compact::micro_compact;
use agentctx_compact::render_history;
use agentctx_compact::restore_context;
use agentctx_compact::try_session_memory_compact;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::HistoryDigest;
use agentctx_context::TokenEstimator;
use agentctx_core::config::Config;
use agentctx_core::config::EnvVars;
use agentctx_core::session_config::ModelSelection;
use agentctx_engine::RecordedSession;
use agentctx_engine::StopPoint;
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
    let report = compact(&args, &home, &loaded.config, &env, recorded)?;
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

/// Runs the chosen tier (or the cascade of `auto`) on the recorded history.
fn compact(
    args: &CompactArgs,
    home: &Path,
    full_config: &Config,
    env: &EnvVars,
    recorded: RecordedSession,
) -> anyhow::Result<CompactReport> {
    let config = &full_config.compact;
    let estimator = ApproxTokenEstimator;
    let tokens_before = estimator.estimate_items(&recorded.items);
    let mut report = CompactReport {
        session: args.session.clone(),
        session_id: recorded.session_id.clone(),
        through_line: recorded.last_line,
        recorded_compactions_before: recorded.compactions_applied,
        tier: None,
        tokens_before,
        tokens_after: tokens_before,
        summary: None,
        summary_path: None,
        offline_reason: None,
        not_applied: Vec::new(),
        persisted_paths: Vec::new(),
        items: recorded.items.clone(),
    };

    if matches!(args.tier, Tier::Auto | Tier::Micro) {
        let mut items = recorded.items.clone();
        match micro_compact(&mut items, config, CompactionMode::Normal, home, &estimator)
            .context("micro-compaction failed")?
        {
            MicroCompactResult::Applied(outcome) => {
                report.tier = Some(Tier::Micro);
                report.tokens_after = estimator.estimate_items(&items);
                report.persisted_paths = outcome.persisted_paths;
                report.items = items;
                return Ok(report);
            }
            MicroCompactResult::Skipped(skip) => report.not_applied.push(NotApplied {
                tier: Tier::Micro,
                reason: micro_skip_reason(skip),
            }),
        }
    }

    if matches!(args.tier, Tier::Auto | Tier::SessionMemory) {
        match session_memory(home, config, &recorded, &estimator) {
            Ok((mut items, summary)) => {
                items.extend(restore_todos(&recorded.items, config));
                report.tier = Some(Tier::SessionMemory);
                report.tokens_after = estimator.estimate_items(&items);
                report.summary = Some(summary);
                report.items = items;
                return Ok(report);
            }
            Err(reason) => report.not_applied.push(NotApplied {
                tier: Tier::SessionMemory,
                reason,
            }),
        }
    }

    if matches!(args.tier, Tier::Auto | Tier::Full) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        let selection = ModelSelection {
            provider: args.provider.clone(),
            model: args.model.clone(),
            context_window: None,
        };
        let chosen = runtime.block_on(summary_model::choose(
            args.offline,
            &selection,
            full_config,
            env,
            home,
        ))?;
        let (client, mut offline_reason) = match chosen {
            SummaryModel::Client(client) => (Some(client), None),
            SummaryModel::Offline { code, detail } => (None, Some(format!("{code}: {detail}"))),
        };
        let request = FullCompactRequest {
            history: &recorded.items,
            initial_context: Vec::new(),
            // The recorded point is between requests; the next turn re-sends the initial
            // context in full, so none goes into the compacted history.
            injection: InitialContextInjection::DoNotInject,
            base_instructions: recorded.base_instructions.as_deref().unwrap_or_default(),
            prompt_override: None,
            reserved_output_tokens: config.max_reserved_output_tokens,
            session_id: recorded.session_id.clone(),
        };
        let model = client.as_deref().map(|client| client as &dyn ModelClient);
        let mut outcome = runtime.block_on(full_compact(model, request, &config.full, &estimator));
        // The model was named: its failure is the command's, not a reason to go offline.
        if let Some(OfflineReason::ModelFailed { last_error }) = &outcome.offline_reason
            && client.is_some()
        {
            anyhow::bail!("the summary model failed: {last_error}");
        }
        let restored = restore_todos(&recorded.items, config);
        outcome.history.extend(restored);
        outcome.tokens_after = estimator.estimate_items(&outcome.history);
        if offline_reason.is_none() {
            offline_reason = outcome.offline_reason.as_ref().map(|reason| match reason {
                OfflineReason::NoModel => "no_provider_configured".to_string(),
                OfflineReason::ModelFailed { last_error } => {
                    format!("model_failed: {last_error}")
                }
                OfflineReason::PromptTooLarge => {
                    "prompt_too_large: even the newest item does not fit the model's window"
                        .to_string()
                }
            });
        }
        report.tier = Some(Tier::Full);
        report.tokens_after = outcome.tokens_after;
        report.summary = Some(outcome.summary);
        report.summary_path = Some(outcome.path);
        report.offline_reason = offline_reason.filter(|_| outcome.path == SummaryPath::Offline);
        report.items = outcome.history;
    }
    Ok(report)
}

/// What is restored after a summarising tier: the todo list the session last wrote, when an
/// item is open. The files it read are not restored, as their contents then are not in the
/// recording (the tool outputs are, but may be partial); neither is a plan file.
fn restore_todos(history: &[ResponseItem], config: &CompactConfig) -> Vec<ResponseItem> {
    let digest = HistoryDigest::from_items(history);
    restore_context(
        &RestorationInput {
            todos: &digest.todos,
            ..RestorationInput::default()
        },
        &config.restoration,
    )
    .items
}

/// The session-memory tier: the new history and the summary, or why it does not apply.
fn session_memory(
    home: &Path,
    config: &CompactConfig,
    recorded: &RecordedSession,
    estimator: &dyn TokenEstimator,
) -> Result<(Vec<ResponseItem>, String), String> {
    let session_id = recorded
        .session_id
        .as_deref()
        .ok_or_else(|| "the session records no id".to_string())?;
    let store = SessionMemoryStore::new(home, session_id).map_err(|err| err.to_string())?;
    let summary = match store.read_summary() {
        Ok(Some(summary)) => summary,
        Ok(None) => {
            return Err(format!(
                "no session-memory summary under {}",
                store.dir().display()
            ));
        }
        Err(err) => return Err(err.to_string()),
    };
    match try_session_memory_compact(
        &store,
        config,
        &recorded.items,
        &[],
        InitialContextInjection::DoNotInject,
        estimator,
    ) {
        SessionMemoryCompaction::Applied(compacted) => Ok((compacted.history, summary)),
        SessionMemoryCompaction::NotApplicable(reason) => Err(session_memory_reason(&reason)),
    }
}

/// Why the session-memory tier did not apply, in words (never the variant's debug form).
fn session_memory_reason(reason: &NotApplicable) -> String {
    match reason {
        NotApplicable::Disabled => "session-memory compaction is switched off".to_string(),
        NotApplicable::NoSummary => "no session-memory summary has been written".to_string(),
        NotApplicable::InvalidSummary => {
            "the session-memory summary holds nothing usable".to_string()
        }
        NotApplicable::NoMetadata => "the session-memory summary has no metadata".to_string(),
        NotApplicable::CorruptMetadata { reason } => {
            format!("the session-memory metadata cannot be read: {reason}")
        }
        NotApplicable::Unreadable { reason } => {
            format!("a session-memory file cannot be read: {reason}")
        }
        NotApplicable::SummaryTooLarge {
            summary_tokens,
            max_tokens,
        } => format!("the summary has {summary_tokens} tokens, over the maximum of {max_tokens}"),
        NotApplicable::LastSummarizedNotFound { last_summarized_id } => format!(
            "the last summarised item {last_summarized_id} is not in the history (the summary is stale)"
        ),
        NotApplicable::NothingToRemove => {
            "the summary covers nothing still in the history".to_string()
        }
        NotApplicable::InsufficientSavings {
            saved_tokens,
            min_tokens,
        } => format!("it would save only {saved_tokens} tokens (minimum {min_tokens})"),
    }
}

fn micro_skip_reason(skip: MicroCompactSkip) -> String {
    match skip {
        MicroCompactSkip::Disabled => "micro-compaction is switched off".to_string(),
        MicroCompactSkip::NothingToClear => "no tool result may be cleared".to_string(),
        MicroCompactSkip::BelowMinimumSavings { would_save } => {
            format!("clearing would save only {would_save} tokens")
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
        (None, _) => {}
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
