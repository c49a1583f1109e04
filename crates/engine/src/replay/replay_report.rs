//! What a replay is given and what it reports: [`ReplayOptions`], [`RequestSink`],
//! [`SessionReplay`] with its [`ReplayTurn`]s.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentctx_compact::CompactConfig;
use agentctx_model::Prompt;
use agentctx_reminders::SystemReminderConfig;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::SkippedLine;
use serde::Serialize;

use super::request_usage::PredictionError;
use super::request_usage::RequestUsage;
use super::request_usage::UsageThresholds;
use crate::reminder_pipeline::FiredReminder;

pub use crate::engine_options::DEFAULT_CONTEXT_WINDOW;

/// What a replay needs besides the session.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The agentctx home: micro-compaction's markers name the files under it (nothing is
    /// written).
    pub home: PathBuf,
    /// The reminder settings (`None`: reminders are not replayed).
    pub reminders: Option<SystemReminderConfig>,
    /// The compaction settings the tiers are judged under.
    pub compact: CompactConfig,
    /// The window given for sessions that record none (`--context-window`): it comes before
    /// the model table.
    pub context_window: Option<u64>,
    /// The window when the session records none, none was given, and the model table does not
    /// know the session's model.
    pub default_window: u64,
    /// Read and type the file on a second thread while the engine replays it, when the machine
    /// has more than one core. The replay is the same either way. It pays with an allocator
    /// that frees memory another thread allocated without contention (the agentctx binary's
    /// mimalloc, which turns it on); with glibc's, the engine's thread freeing the records the
    /// reader allocated waits on the reader's arena lock, and the replay is slower than on one
    /// thread. Off by default.
    pub read_ahead: bool,
    /// Check the survival probes of every compaction, the session's and ours
    /// ([`SessionReplay::compaction_survival`], docs/design/survival.md). Costs a copy of the
    /// recorded history since the session's last compaction and a few passes over it per
    /// compaction. Off by default; `agentctx replay --json` and `agentctx report` turn it on.
    pub survival: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            home: PathBuf::from(".agentctx"),
            reminders: Some(SystemReminderConfig::default()),
            compact: CompactConfig::default(),
            context_window: None,
            default_window: DEFAULT_CONTEXT_WINDOW,
            read_ahead: false,
            survival: false,
        }
    }
}

/// Told of every request the engine would send (`agentctx replay --requests`).
pub trait RequestSink {
    /// The `request`-th (1-based) request of the main thread, as the engine would send it.
    fn request(&mut self, request: usize, prompt: &Prompt<'_>) -> std::io::Result<()>;
}

/// A reminder that fired before a request of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnReminder {
    /// The reminder.
    #[serde(flatten)]
    pub reminder: FiredReminder,
    /// The model request of the turn (1-based) it fired before.
    pub request: usize,
}

/// One turn: from a real user message to the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplayTurn {
    /// 1-based turn number.
    pub turn: usize,
    /// Line of the user message in the file.
    pub line: usize,
    /// The start of the user message, on one line.
    pub user_message: String,
    /// Conversation items recorded in the turn, the user message included.
    pub items: usize,
    /// Model requests in the turn (runs of model-generated items).
    pub requests: usize,
    /// Tool calls in the turn.
    pub tool_calls: usize,
    /// Tool calls by tool name.
    pub tools: BTreeMap<String, usize>,
    /// Compactions applied during the turn.
    pub compactions: usize,
    /// Our estimate of the prompt of the turn's last request (or, without requests, of the
    /// history at the turn's end), base instructions included.
    pub estimated_prompt_tokens: u64,
    /// The largest prompt estimate over the turn's requests.
    pub max_estimated_prompt_tokens: u64,
    /// Prompt tokens the session recorded for its last request in the turn (Codex
    /// `last_token_usage.input_tokens`; Claude input + cache creation + cache read).
    pub recorded_prompt_tokens: Option<i64>,
    /// Output tokens the session recorded for that request.
    pub recorded_output_tokens: Option<i64>,
    /// The context window the session recorded.
    pub model_context_window: Option<i64>,
    /// The system reminders the engine placed before the turn's model requests, request by
    /// request in injection order (`None` when reminders are not replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reminders: Option<Vec<TurnReminder>>,
    /// How many times the reminder stage ran in the turn: once before each model request
    /// (`None` when reminders are not replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reminder_evaluations: Option<usize>,
    /// The turn's model requests: the engine's usage against what each recorded, and where its
    /// tiers triggered.
    pub request_usage: Vec<RequestUsage>,
}

/// A compaction the session recorded: what its summary said and what the history kept beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedCompaction {
    /// The turn it happened in (`None`: before the first turn).
    pub turn: Option<usize>,
    /// The model requests of the main thread before it.
    pub after_request: usize,
    /// The summary, cut to [`COMPACTION_SUMMARY_CHARS`] characters.
    pub summary: String,
    /// The items of the replacement history other than the summary, one line each (`role:
    /// start of text` or the item's type), at most [`COMPACTION_KEPT_ITEMS`]; empty when the
    /// session recorded no replacement history.
    pub kept: Vec<String>,
    /// How many items the replacement history held (`None` when not recorded).
    pub replacement_items: Option<usize>,
}

/// Characters of a recorded compaction's summary a replay keeps.
pub const COMPACTION_SUMMARY_CHARS: usize = 4_000;

/// Items of a recorded compaction's replacement history a replay describes.
pub const COMPACTION_KEPT_ITEMS: usize = 24;

/// One session replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionReplay {
    /// The file.
    pub file: PathBuf,
    /// Its format.
    pub format: RolloutFormat,
    /// The session id from its header.
    pub session_id: Option<String>,
    /// When the session started: its header's timestamp, else its first record's (as recorded,
    /// RFC 3339).
    pub started_at: Option<String>,
    /// The working directory its header names.
    pub cwd: Option<PathBuf>,
    /// The model it recorded last (a Codex `turn_context`, a Claude Code response).
    pub model: Option<String>,
    /// Whether agentctx recorded it (its reminders are in the file).
    pub recorded_by_agentctx: bool,
    /// Lines in the file.
    pub lines: usize,
    /// Bytes in the file.
    pub bytes: u64,
    /// Conversation items of the main thread.
    pub items: usize,
    /// Items of sub-agent branches, kept out of the main history.
    pub sidechain_items: usize,
    /// Items before the first turn (instructions, environment context).
    pub preamble_items: usize,
    /// Lines that could not be read.
    pub skipped: Vec<SkippedLine>,
    /// Records skipped by rule, by kind.
    pub ignored: BTreeMap<String, usize>,
    /// The turns.
    pub turns: Vec<ReplayTurn>,
    /// Tool calls in the main thread.
    pub tool_calls: usize,
    /// Compactions in the main thread.
    pub compactions: usize,
    /// Those compactions, in order.
    pub recorded_compactions: Vec<RecordedCompaction>,
    /// Our largest prompt estimate over the session's requests.
    pub max_prompt_tokens: u64,
    /// The largest prompt the session recorded.
    pub max_recorded_prompt_tokens: Option<i64>,
    /// The context window the session recorded last.
    pub model_context_window: Option<i64>,
    /// Estimated tokens of the base instructions from the session header.
    pub instructions_tokens: u64,
    /// Reminders placed over the session, by type (`None` when reminders are not replayed).
    pub reminder_counts: Option<BTreeMap<String, usize>>,
    /// Every model request of the main thread, in order (those before the first turn too).
    pub requests: Vec<RequestUsage>,
    /// The engine's thresholds for the session's window (the recorded one, else the default).
    pub thresholds: UsageThresholds,
    /// How far the engine's usage prediction was from what the requests recorded.
    pub usage_prediction_error: PredictionError,
    /// What each compaction kept of what the session used after it: the session's own and
    /// those our policy took, in the order they happened (empty when
    /// [`ReplayOptions::survival`] is off).
    pub compaction_survival: Vec<crate::survival::CompactionSurvival>,
    /// Usage the session recorded for model requests the replay does not replay (a
    /// compaction's summary request, a second response within one request): billed all the
    /// same.
    pub unreplayed_usage: Vec<crate::replay::UnreplayedUsage>,
}
