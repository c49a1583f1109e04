//! The replay of one recorded session through the engine: [`SessionReplay`] and its
//! [`ReplayTurn`]s.
//!
//! [`SessionReplayBuilder`] reads the records in file order and feeds the main thread into a
//! [`ContextEngine`] built for replay: the recorded user messages, model outputs and tool
//! results go in as the session recorded them, and before every recorded model request the
//! engine runs the same seams a live session calls (reminders, micro-compaction, the usage
//! its trigger reads, the auto-compaction threshold). Every figure of the replay is what the
//! engine decided; the builder only says where turns and requests start.
//!
//! Two kinds of session:
//!
//! - one agentctx recorded: its reminders are in the file (the live engine recorded them), so
//!   the replay's engine generates none and takes the recorded ones; its micro-compaction is
//!   decided again (the live one left no record, and the decision is the same on the same
//!   history), and its compactions are installed from the file. The requests rebuilt from the
//!   file are then the ones the live session sent.
//! - one another agent recorded (Codex, Claude Code): the engine's reminders fire as they would
//!   have, carried on each request's prompt but not kept in the history (the recorded
//!   conversation went on without them), and the engine's micro-compaction clears results as it
//!   would have. An auto-compaction is reported with its estimate and not installed (the
//!   recorded session went on); the session's own compactions are installed.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::path::PathBuf;

use agentctx_compact::CarriedItems;
use agentctx_compact::CompactConfig;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::build_compacted_history;
use agentctx_compact::collect_user_message_texts;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_model::Prompt;
use agentctx_model::ToolSpec;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo;
use agentctx_protocol::TurnContextItem;
use agentctx_reminders::ItemFlags;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::is_reminder_item;
use agentctx_rollout::CLAUDE_CODE_ORIGINATOR;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::LazyRecord;
use agentctx_rollout::RequestSegmenter;
use agentctx_rollout::RequestStart;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::RolloutRecord;
use agentctx_rollout::SkippedLine;
use agentctx_rollout::is_model_generated;
use serde::Serialize;
use serde_json::Value;

use super::request_usage::PredictionBasis;
use super::request_usage::PredictionError;
use super::request_usage::RequestUsage;
use super::request_usage::TierTrigger;
use super::request_usage::UsageThresholds;
use super::turn_boundary::is_turn_start;
use crate::error::ReplayError;
use crate::context_engine::ContextEngine;
use crate::recorded_session::AS_RECORDED;
use crate::recorded_session::truncation_policy_of;
use crate::context_engine::EngineOptions;
use crate::context_engine::PromptParts;
use crate::reminder_pipeline::FiredReminder;

/// Characters of the user message shown per turn.
const USER_MESSAGE_PREVIEW_CHARS: usize = 60;

/// The window assumed when the session records none (Claude Code transcripts do not).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// The originator agentctx writes in the sessions it records.
pub const AGENTCTX_ORIGINATOR: &str = "agentctx";

/// The field of a `turn_context` line in which agentctx records the tools offered from that
/// turn on (only when they changed): the replay rebuilds requests with them.
pub const RECORDED_TOOLS_FIELD: &str = "agentctx_tools";

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
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            home: PathBuf::from(".agentctx"),
            reminders: Some(SystemReminderConfig::default()),
            compact: CompactConfig::default(),
            context_window: None,
            default_window: DEFAULT_CONTEXT_WINDOW,
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

/// One session replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionReplay {
    /// The file.
    pub file: PathBuf,
    /// Its format.
    pub format: RolloutFormat,
    /// The session id from its header.
    pub session_id: Option<String>,
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
}

/// Replays the file at `path`.
pub fn replay_file(
    path: &Path,
    options: &ReplayOptions,
    sink: Option<&mut dyn RequestSink>,
) -> Result<SessionReplay, ReplayError> {
    replay_reader(
        RolloutReader::open(path).map_err(ReplayError::Rollout)?,
        options,
        sink,
    )
}

/// Replays a session from a reader.
pub fn replay_reader<R: BufRead>(
    mut reader: RolloutReader<R>,
    options: &ReplayOptions,
    sink: Option<&mut dyn RequestSink>,
) -> Result<SessionReplay, ReplayError> {
    let mut builder = SessionReplayBuilder::new(options.clone(), sink);
    for event in reader.lazy() {
        match event.map_err(ReplayError::Rollout)? {
            LazyReadEvent::Record(record) => builder.observe_lazy(record)?,
            LazyReadEvent::Skipped(skipped) => builder.skipped.push(skipped),
        }
    }
    let format = reader
        .format()
        .ok_or_else(|| RolloutError::UnrecognizedFormat {
            path: reader.path().to_path_buf(),
            lines: reader.lines_read(),
        })
        .map_err(ReplayError::Rollout)?;
    builder.finish(
        reader.path().to_path_buf(),
        format,
        reader.lines_read(),
        reader.bytes_read(),
        reader.ignored().clone(),
    )
}

/// Accumulates a [`SessionReplay`] record by record.
pub struct SessionReplayBuilder<'a> {
    options: ReplayOptions,
    sink: Option<&'a mut dyn RequestSink>,
    runtime: Option<tokio::runtime::Runtime>,
    engine: Option<ContextEngine>,
    estimator: ApproxTokenEstimator,
    session_id: Option<String>,
    cwd: Option<PathBuf>,
    originator: Option<String>,
    instructions: String,
    instructions_tokens: u64,
    tools: Vec<ToolSpec>,
    main_thread_is_sidechain: Option<bool>,
    /// Where the main thread's model requests begin.
    segmenter: RequestSegmenter,
    current: Option<ReplayTurn>,
    turns: Vec<ReplayTurn>,
    items: usize,
    sidechain_items: usize,
    preamble_items: usize,
    skipped: Vec<SkippedLine>,
    tool_calls: usize,
    compactions: usize,
    max_prompt_tokens: u64,
    max_recorded_prompt_tokens: Option<i64>,
    /// The window the session recorded last.
    model_context_window: Option<i64>,
    /// The window the model table gives for the model the session recorded.
    model_window: Option<i64>,
    /// The usage of the main thread's last `token_count`, to recognise its copies.
    last_token_info: Option<TokenUsageInfo>,
    /// The session records a request's measure before its items (Codex 0.4x–0.5x).
    measures_lead: bool,
    /// A recorded measure of the request about to start, in such a session.
    pending_measure: Option<TokenUsage>,
    /// Records the replay itself leaves out, by kind (beside the reader's).
    ignored: BTreeMap<String, usize>,
    reminder_counts: BTreeMap<String, usize>,
    requests: Vec<RequestUsage>,
    /// The open request still takes the usage its `token_count` reports.
    request_open: bool,
    /// A recorded compaction rewrote the history since the last request.
    compacted_since_request: bool,
    /// The usage has crossed the auto-compact trigger since the start or the last compaction.
    over_trigger: bool,
    /// User messages of the main thread whose turn is not decided yet: in a Codex rollout, a
    /// `user_message` event right after one confirms it as the user's input. Until the first
    /// event or the first model output, every such message waits (the session prefix of a
    /// redacted rollout cannot be told from a prompt by its text); afterwards, one record.
    held_user: Vec<RolloutRecord>,
    /// A model-generated item was seen.
    model_output_seen: bool,
    /// The session records `user_message` events: they, not the items' text (which sanitised
    /// rollouts redact), mark where turns start.
    user_events_seen: bool,
    /// The text of a `user_message` event that started a turn before its item arrived (older
    /// Codex builds write the event first).
    event_turn: Option<String>,
}

/// How an item relates to the turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ItemTurn {
    /// The item starts a turn.
    Starts,
    /// The item is the user input of a turn a `user_message` event already started.
    Joins,
    /// Any other item.
    Within,
}

impl std::fmt::Debug for SessionReplayBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionReplayBuilder")
            .field("session_id", &self.session_id)
            .field("turns", &self.turns.len())
            .field("requests", &self.requests.len())
            .finish_non_exhaustive()
    }
}

impl<'a> SessionReplayBuilder<'a> {
    /// A builder under `options`; `sink` is told of every request the engine would send.
    pub fn new(options: ReplayOptions, sink: Option<&'a mut dyn RequestSink>) -> Self {
        Self {
            options,
            sink,
            runtime: None,
            engine: None,
            estimator: ApproxTokenEstimator,
            session_id: None,
            cwd: None,
            originator: None,
            instructions: String::new(),
            instructions_tokens: 0,
            tools: Vec::new(),
            main_thread_is_sidechain: None,
            segmenter: RequestSegmenter::new(),
            current: None,
            turns: Vec::new(),
            items: 0,
            sidechain_items: 0,
            preamble_items: 0,
            skipped: Vec::new(),
            tool_calls: 0,
            compactions: 0,
            max_prompt_tokens: 0,
            max_recorded_prompt_tokens: None,
            model_context_window: None,
            model_window: None,
            last_token_info: None,
            measures_lead: false,
            pending_measure: None,
            ignored: BTreeMap::new(),
            reminder_counts: BTreeMap::new(),
            requests: Vec::new(),
            request_open: false,
            compacted_since_request: false,
            over_trigger: false,
            held_user: Vec::new(),
            model_output_seen: false,
            user_events_seen: false,
            event_turn: None,
        }
    }

    /// Whether agentctx recorded the session (its reminders are in the file).
    fn recorded_by_agentctx(&self) -> bool {
        self.originator.as_deref() == Some(AGENTCTX_ORIGINATOR)
    }

    /// Whether the session records tool results as the model saw them (a Claude Code
    /// transcript): nothing is truncated again.
    fn records_results_as_seen(&self) -> bool {
        self.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR)
    }

    /// The engine, built on first use from what the header said.
    fn engine(&mut self) -> &mut ContextEngine {
        let overhead = self.overhead_tokens();
        let by_agentctx = self.recorded_by_agentctx();
        let as_seen = self.records_results_as_seen();
        let main_agent = self.main_thread_is_sidechain != Some(true);
        let window = self.window();
        let options = &self.options;
        let cwd = &self.cwd;
        let session_id = &self.session_id;
        self.engine.get_or_insert_with(|| {
            let reminders = match (&options.reminders, by_agentctx) {
                // The live engine's reminders are in the file.
                (Some(_), true) | (None, _) => SystemReminderConfig {
                    enabled: false,
                    ..SystemReminderConfig::default()
                },
                (Some(config), false) => config.clone(),
            };
            let mut engine = ContextEngine::for_replay(
                EngineOptions {
                    cwd: cwd.clone().unwrap_or_default(),
                    home: options.home.clone(),
                    session_id: session_id.clone().unwrap_or_default(),
                    reminders,
                    compact: options.compact.clone(),
                    context_window: window,
                    max_output_tokens: None,
                },
                by_agentctx,
            );
            engine.set_main_agent(main_agent);
            engine.set_prompt_overhead(overhead);
            if as_seen {
                engine.set_truncation(AS_RECORDED);
            }
            engine
        })
    }

    /// The window in use: the session's, else the one given, else the model table's for the
    /// session's model, else the default.
    fn window(&self) -> i64 {
        let given = |tokens: u64| i64::try_from(tokens).unwrap_or(i64::MAX);
        self.model_context_window
            .or(self.options.context_window.map(given))
            .or(self.model_window)
            .unwrap_or_else(|| given(self.options.default_window))
    }

    /// Moves the engine to the window now in use.
    fn apply_window(&mut self) {
        let window = self.window();
        if let Some(engine) = &mut self.engine {
            engine.set_context_window(window, None);
        }
    }

    /// The model the session recorded (a Codex `turn_context.model` or
    /// `thread_settings_applied`, the model of an imported Claude Code response): its window in
    /// the model table is used when the session records none (a `[1m]` suffix is the
    /// one-million-token window).
    fn model(&mut self, slug: &str) {
        self.model_window = agentctx_model::known_context_window(slug);
        self.apply_window();
    }

    /// What every request carries besides the history: the instructions and the tools.
    fn overhead_tokens(&self) -> u64 {
        let tools = if self.tools.is_empty() {
            0
        } else {
            serde_json::to_string(&self.tools)
                .map(|json| self.estimator.estimate_text(&json))
                .unwrap_or(0)
        };
        self.instructions_tokens.saturating_add(tools)
    }

    /// Takes one record read lazily into account, typing it only when the replay reads it: the
    /// session header, turn settings, conversation items, compactions, and the `token_count`,
    /// `user_message` and `thread_rolled_back` events. Any other record has only the effect
    /// [`SessionReplayBuilder::observe`] gives every record: it ends the wait of the held user
    /// messages once the session is under way.
    pub fn observe_lazy(&mut self, record: LazyRecord) -> Result<(), ReplayError> {
        if replay_reads(&record) {
            self.observe(&record.into_read_only_record())
        } else {
            if self.model_output_seen || self.user_events_seen {
                self.release_held(None)?;
            }
            Ok(())
        }
    }

    /// Takes one record into account.
    pub fn observe(&mut self, record: &RolloutRecord) -> Result<(), ReplayError> {
        let main = match &record.line.item {
            RolloutItem::ResponseItem(_) => self.is_main_thread(record, true),
            _ => self.is_main_thread(record, false),
        };
        let held = match &record.line.item {
            RolloutItem::ResponseItem(item) => {
                main && item.role() == Some("user") && !record.flags.injected && !item.is_injected()
            }
            _ => false,
        };
        let user_event = match &record.line.item {
            RolloutItem::EventMsg(EventMsg::UserMessage(event)) if main => Some(event),
            _ => None,
        };
        if let Some(event) = user_event {
            self.user_events_seen = true;
            if !self.release_held(Some(&event.message))? {
                self.start_turn(record.line_number, Some(event.message.clone()));
                self.event_turn = Some(event.message.clone());
            }
            return Ok(());
        }
        if !held && (self.model_output_seen || self.user_events_seen || ends_preamble(record)) {
            self.release_held(None)?;
        }
        match &record.line.item {
            RolloutItem::SessionMeta(meta) => self.session_meta(meta),
            RolloutItem::TurnContext(context) if main => self.turn_context(context),
            RolloutItem::ResponseItem(_) if !main => self.sidechain_items += 1,
            RolloutItem::ResponseItem(_) if held => self.held_user.push(record.clone()),
            RolloutItem::ResponseItem(_) => self.item_with_turn(record, ItemTurn::Within)?,
            RolloutItem::Compacted(compacted) if main => self.compacted(compacted),
            RolloutItem::EventMsg(EventMsg::ThreadRolledBack(event)) if main => {
                // As codex rebuilds a history from its rollout: the rolled-back turns leave
                // the prompt (the turns themselves happened and stay in the report).
                self.engine().rollback(event.num_turns);
                self.request_open = false;
                self.pending_measure = None;
                self.segmenter.history_rewritten();
            }
            RolloutItem::EventMsg(EventMsg::TokenCount(event)) if main => {
                // An imported Claude Code response names its model here.
                if let Some(model) = event.extra.get("model").and_then(Value::as_str) {
                    self.model(model);
                }
                if let Some(info) = &event.info {
                    self.token_count(info);
                }
            }
            RolloutItem::EventMsg(EventMsg::Other(event)) if main => {
                if let Some(model) = thread_settings_model(event) {
                    self.model(model);
                }
            }
            RolloutItem::TurnContext(_)
            | RolloutItem::Compacted(_)
            | RolloutItem::EventMsg(_)
            | RolloutItem::Unknown { .. } => {}
        }
        Ok(())
    }

    /// A main-thread `token_count`: the measure of a model request.
    ///
    /// A count whose usage is the previous count's is a copy and is dropped (counted in
    /// `ignored` as `token_count:copy`): the total a count carries grows with every request, so
    /// two requests never record the same usage. Codex 0.4x–0.5x wrote such copies: it sent a
    /// count whenever rate limits arrived, at the start of each request's stream, with the usage
    /// of the request before (codex-rs `core/src/codex.rs`, `update_rate_limits` →
    /// `send_token_count_event`), so each measure appears twice, the copy after the next
    /// request's `turn_context`.
    ///
    /// Current writers record a request's measure after its items (Codex writes the
    /// `token_count` when the response completes, its items as they arrive; the Claude Code
    /// import after the response): the measure is the open request's, and a second report for
    /// it replaces the first. Codex 0.4x–0.5x recorded a request's items only once its stream
    /// had completed, after the `token_count` of that completion (codex-rs `core/src/codex.rs`:
    /// `try_run_turn` sends the count on `Completed` and returns the processed items, which
    /// `run_task` then records): there the measure comes before the request's items and is kept
    /// until the request starts. Such a session is recognised by its first measure, which comes
    /// before any request. A measure of zero input tokens measures no request (codex's count
    /// after a context-window error, its estimates).
    fn token_count(&mut self, info: &TokenUsageInfo) {
        if self.last_token_info.as_ref() == Some(info) {
            *self
                .ignored
                .entry("token_count:copy".to_string())
                .or_default() += 1;
            return;
        }
        self.last_token_info = Some(info.clone());
        let usage = info.last_token_usage;
        if let Some(window) = info.model_context_window
            && self.model_context_window != Some(window)
        {
            self.model_context_window = Some(window);
            self.apply_window();
        }
        self.max_recorded_prompt_tokens = Some(
            self.max_recorded_prompt_tokens
                .map_or(usage.input_tokens, |max| max.max(usage.input_tokens)),
        );
        self.engine().observe_recorded_token_count(info);
        if usage.input_tokens > 0 {
            if self.requests.is_empty() {
                self.measures_lead = true;
            }
            if self.measures_lead {
                self.pending_measure = Some(usage);
            } else if self.request_open {
                self.measure_open_request(&usage);
            }
        }
        if let Some(turn) = &mut self.current {
            turn.recorded_prompt_tokens = Some(usage.input_tokens);
            turn.recorded_output_tokens = Some(usage.output_tokens);
            turn.model_context_window = self.model_context_window;
        }
    }

    fn compacted(&mut self, compacted: &CompactedItem) {
        let clock = i32::try_from(self.requests.len()).unwrap_or(i32::MAX);
        let engine = self.engine();
        let history = match &compacted.replacement_history {
            Some(items) => items.clone(),
            None => build_compacted_history(
                Vec::new(),
                &collect_user_message_texts(engine.history()),
                &compacted.message,
                InitialContextInjection::DoNotInject,
                CarriedItems::default(),
            ),
        };
        engine.install_recorded_compaction(history, clock);
        self.request_open = false;
        // A measure waiting for its request measured one before the rewrite (codex's
        // summarisation request, whose output is the compaction itself).
        self.pending_measure = None;
        self.segmenter.history_rewritten();
        self.compacted_since_request = true;
        self.over_trigger = false;
        self.compactions += 1;
        if let Some(turn) = &mut self.current {
            turn.compactions += 1;
        }
    }

    /// Decides the held user messages: the newest whose text is `event_text` is the input of
    /// a `user_message` event, and starts its turn (returns true); the others are unconfirmed.
    fn release_held(&mut self, event_text: Option<&str>) -> Result<bool, ReplayError> {
        let held = std::mem::take(&mut self.held_user);
        let confirmed =
            event_text.and_then(|text| held.iter().rposition(|record| same_text(record, text)));
        for (index, record) in held.iter().enumerate() {
            if Some(index) == confirmed {
                self.item_with_turn(record, ItemTurn::Starts)?;
            } else {
                self.release_unconfirmed(record)?;
            }
        }
        Ok(confirmed.is_some())
    }

    /// A held user message no `user_message` event confirmed: the input of a turn an event
    /// already started, harness context when the session marks its turns with events, else
    /// decided by its text and flags.
    fn release_unconfirmed(&mut self, held: &RolloutRecord) -> Result<(), ReplayError> {
        let joins = self
            .event_turn
            .as_deref()
            .is_some_and(|text| same_text(held, text));
        let turn = if joins {
            self.event_turn = None;
            ItemTurn::Joins
        } else if self.user_events_seen {
            ItemTurn::Within
        } else if held
            .response_item()
            .is_some_and(|item| is_turn_start(item, held.flags))
        {
            ItemTurn::Starts
        } else {
            ItemTurn::Within
        };
        self.item_with_turn(held, turn)
    }

    /// Whether a record belongs to the main thread. A file whose first conversation item is on a
    /// sidechain is a sub-agent transcript: its sidechain is its main thread.
    fn is_main_thread(&mut self, record: &RolloutRecord, decides: bool) -> bool {
        let sidechain = record.flags.sidechain;
        match self.main_thread_is_sidechain {
            Some(main) => main == sidechain,
            None if decides => {
                self.main_thread_is_sidechain = Some(sidechain);
                true
            }
            None => !sidechain,
        }
    }

    fn session_meta(&mut self, meta: &SessionMetaLine) {
        if self.session_id.is_some() {
            return;
        }
        self.session_id = Some(meta.id.clone()).filter(|id| !id.is_empty());
        self.cwd = meta.cwd.as_ref().map(PathBuf::from);
        self.originator.clone_from(&meta.originator);
        let instructions = meta
            .extra
            .get("base_instructions")
            .and_then(|value| value.get("text"))
            .or_else(|| meta.extra.get("instructions"))
            .and_then(Value::as_str);
        if let Some(text) = instructions {
            self.instructions = text.to_string();
            self.instructions_tokens = self.estimator.estimate_text(text);
        }
        if let Some(engine) = &self.engine {
            engine.set_prompt_overhead(self.overhead_tokens());
        }
    }

    /// A turn's settings: its model, its truncation policy (as `read_recorded_session` reads
    /// it), and the tools agentctx recorded for it when they changed.
    fn turn_context(&mut self, context: &TurnContextItem) {
        if let Some(model) = &context.model {
            self.model(model);
        }
        if !self.records_results_as_seen() {
            // A turn that recorded no policy is from a writer that truncated nothing when
            // recording (codex before 0.6x wrote outputs already cut for the model).
            let policy = truncation_policy_of(context).unwrap_or(AS_RECORDED);
            self.engine().set_truncation(policy);
        }
        let Some(tools) = context
            .extra
            .get(RECORDED_TOOLS_FIELD)
            .and_then(|value| serde_json::from_value::<Vec<ToolSpec>>(value.clone()).ok())
        else {
            return;
        };
        self.tools = tools;
        let overhead = self.overhead_tokens();
        self.engine().set_prompt_overhead(overhead);
    }

    fn item_with_turn(&mut self, record: &RolloutRecord, turn: ItemTurn) -> Result<(), ReplayError> {
        if let Some(item) = record.response_item() {
            self.response_item(record, item, turn)?;
        }
        Ok(())
    }

    fn start_turn(&mut self, line: usize, text: Option<String>) {
        self.close_turn();
        let turn = self.turns.len() + 1;
        self.segmenter.start_turn();
        self.engine().observe_turn_start(text.as_deref());
        let replaying = self.options.reminders.is_some();
        self.current = Some(ReplayTurn {
            turn,
            line,
            user_message: preview(&text.unwrap_or_default()),
            items: 0,
            requests: 0,
            tool_calls: 0,
            tools: BTreeMap::new(),
            compactions: 0,
            estimated_prompt_tokens: 0,
            max_estimated_prompt_tokens: 0,
            recorded_prompt_tokens: None,
            recorded_output_tokens: None,
            model_context_window: None,
            reminders: replaying.then(Vec::new),
            reminder_evaluations: replaying.then_some(0),
            request_usage: Vec::new(),
        });
    }

    fn response_item(
        &mut self,
        record: &RolloutRecord,
        item: &ResponseItem,
        turn: ItemTurn,
    ) -> Result<(), ReplayError> {
        self.items += 1;
        if turn == ItemTurn::Starts {
            self.start_turn(record.line_number, item.message_text());
        }
        if let Some(start) = self.segmenter.observe(item) {
            self.request(record.line_number, start)?;
        }
        let model_generated = is_model_generated(item);
        if model_generated {
            self.event_turn = None;
            self.model_output_seen = true;
        }
        if self.recorded_by_agentctx() && is_reminder_item(item) {
            // A reminder the live engine placed: what fired, as the file says.
            *self
                .reminder_counts
                .entry("recorded".to_string())
                .or_default() += 1;
        }
        let mut item = item.clone();
        if record.flags.injected {
            item.set_injected(true);
        }
        let flags = ItemFlags {
            injected: record.flags.injected,
            permission_mode: record.flags.permission_mode,
        };
        self.engine().observe_recorded_item(&item, flags);
        let tool_name = item.is_tool_call().then(|| tool_name(&item));
        if tool_name.is_some() {
            self.tool_calls += 1;
        }
        match &mut self.current {
            Some(turn) => {
                turn.items += 1;
                if let Some(name) = tool_name {
                    turn.tool_calls += 1;
                    *turn.tools.entry(name).or_default() += 1;
                }
            }
            None => self.preamble_items += 1,
        }
        Ok(())
    }

    /// A recorded model request starts: the engine prepares it as a live session does before
    /// it sends one.
    fn request(&mut self, line: usize, start: RequestStart) -> Result<(), ReplayError> {
        let number = self.requests.len() + 1;
        let clock = i32::try_from(number).unwrap_or(i32::MAX);
        let todo_tool = self.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR);
        let runtime = match self.runtime.take() {
            Some(runtime) => runtime,
            None => tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .map_err(ReplayError::Runtime)?,
        };
        let engine = self.engine();
        let host = engine.recorded_host_state(clock, todo_tool);
        let ctx = engine.reminder_context(&host, start.has_user_input);
        let prepared = runtime.block_on(engine.prepare_request(ctx));
        self.runtime = Some(runtime);
        let usage = prepared.usage;
        let predicted_tokens = usage.used_tokens();
        let basis = if usage.measured_tokens.is_some() {
            PredictionBasis::PreviousRequest
        } else {
            PredictionBasis::WholeHistory
        };
        let micro_compact = prepared.micro.as_ref().map(|micro| TierTrigger {
            tokens_before: micro.tokens_before,
            tokens_after: micro.tokens_after,
        });
        let predicted_tokens = micro_compact.map_or(predicted_tokens, |micro| micro.tokens_before);
        let used = micro_compact.map_or(predicted_tokens, |micro| micro.tokens_after);
        let Some(engine) = self.engine.as_ref() else {
            return Ok(());
        };
        let level = engine.thresholds().level(used);
        let triggers = engine.over_auto_compact(used);
        let auto_compact = (triggers && !self.over_trigger).then(|| TierTrigger {
            tokens_before: used,
            tokens_after: engine.estimate_compaction(used),
        });
        self.over_trigger = triggers;
        let prompt_tokens = engine
            .context_manager()
            .estimate_token_count()
            .saturating_add(self.instructions_tokens);
        if let Some(sink) = self.sink.as_deref_mut() {
            let prompt = engine.build_prompt(
                &prepared,
                PromptParts {
                    instructions: self.instructions.clone(),
                    tools: self.tools.clone(),
                    reasoning: None,
                    session_id: self.session_id.clone(),
                },
            );
            engine.check_prompt(&prompt);
            sink.request(number, &prompt)
                .map_err(|source| ReplayError::Sink {
                    request: number,
                    source,
                })?;
        }
        let request = RequestUsage {
            request: number,
            line,
            predicted_tokens,
            basis,
            recorded_tokens: None,
            after_compaction: std::mem::take(&mut self.compacted_since_request),
            micro_compact,
            level,
            auto_compact,
        };
        self.request_open = true;
        self.requests.push(request.clone());
        self.max_prompt_tokens = self.max_prompt_tokens.max(prompt_tokens);
        for reminder in &prepared.fired {
            *self
                .reminder_counts
                .entry(reminder.attachment_type.to_string())
                .or_default() += 1;
        }
        if let Some(turn) = &mut self.current {
            if let Some(reminders) = &mut turn.reminders {
                reminders.extend(prepared.fired.into_iter().map(|reminder| TurnReminder {
                    reminder,
                    request: start.request_in_turn,
                }));
            }
            if let Some(evaluations) = &mut turn.reminder_evaluations {
                *evaluations += 1;
            }
            turn.request_usage.push(request);
            turn.requests += 1;
            turn.estimated_prompt_tokens = prompt_tokens;
            turn.max_estimated_prompt_tokens = turn.max_estimated_prompt_tokens.max(prompt_tokens);
        }
        // Judged first, measured after: a measure recorded before the request's items is this
        // request's own input, never part of its prediction.
        if let Some(usage) = self.pending_measure.take() {
            self.measure_open_request(&usage);
        }
        Ok(())
    }

    /// The open request recorded `usage`: the engine takes it as the request's measure, and
    /// the request's row shows it.
    fn measure_open_request(&mut self, usage: &TokenUsage) {
        self.engine().record_usage(usage);
        let recorded = u64::try_from(usage.input_tokens).unwrap_or(0);
        let number = self.requests.len();
        if let Some(request) = self.requests.last_mut() {
            request.recorded_tokens = Some(recorded);
        }
        let turns = self.current.iter_mut().chain(self.turns.iter_mut().rev());
        if let Some(measured) = turns
            .flat_map(|turn| turn.request_usage.iter_mut())
            .find(|measured| measured.request == number)
        {
            measured.recorded_tokens = Some(recorded);
        }
    }

    fn close_turn(&mut self) {
        if let Some(mut turn) = self.current.take() {
            if turn.requests == 0 {
                let tokens = self
                    .engine
                    .as_ref()
                    .map_or(0, |engine| engine.context_manager().estimate_token_count())
                    .saturating_add(self.instructions_tokens);
                turn.estimated_prompt_tokens = tokens;
                turn.max_estimated_prompt_tokens = tokens;
            }
            self.turns.push(turn);
        }
    }

    /// The finished replay.
    pub fn finish(
        mut self,
        file: PathBuf,
        format: RolloutFormat,
        lines: usize,
        bytes: u64,
        mut ignored: BTreeMap<String, usize>,
    ) -> Result<SessionReplay, ReplayError> {
        self.release_held(None)?;
        self.close_turn();
        for (kind, count) in std::mem::take(&mut self.ignored) {
            *ignored.entry(kind).or_default() += count;
        }
        let recorded_by_agentctx = self.recorded_by_agentctx();
        let thresholds = self.engine().thresholds();
        let window = self.engine().window();
        Ok(SessionReplay {
            file,
            format,
            session_id: self.session_id,
            recorded_by_agentctx,
            lines,
            bytes,
            items: self.items,
            sidechain_items: self.sidechain_items,
            preamble_items: self.preamble_items,
            skipped: self.skipped,
            ignored,
            turns: self.turns,
            tool_calls: self.tool_calls,
            compactions: self.compactions,
            max_prompt_tokens: self.max_prompt_tokens,
            max_recorded_prompt_tokens: self.max_recorded_prompt_tokens,
            model_context_window: self.model_context_window,
            instructions_tokens: self.instructions_tokens,
            reminder_counts: self
                .options
                .reminders
                .is_some()
                .then_some(self.reminder_counts),
            thresholds: UsageThresholds {
                window: window.window_tokens,
                effective_window: thresholds.effective_window,
                warning: thresholds.warning,
                auto_compact: thresholds.auto_compact,
                blocking: thresholds.blocking,
            },
            usage_prediction_error: PredictionError::over(&self.requests),
            requests: self.requests,
        })
    }
}

/// The records whose typed payload the replay reads (see [`SessionReplayBuilder::observe`]).
fn replay_reads(record: &LazyRecord) -> bool {
    match record.kind() {
        "session_meta" | "response_item" | "compacted" | "turn_context" => true,
        "event_msg" => matches!(
            record.payload_type(),
            Some("token_count" | "user_message" | "thread_rolled_back" | "thread_settings_applied")
        ),
        _ => false,
    }
}

/// The model of a `thread_settings_applied` event (codex 0.12x+: the settings a `/model` or
/// `/permissions` change applied, `{"type":"thread_settings_applied","thread_settings":{"model":
/// …}}`).
fn thread_settings_model(event: &Value) -> Option<&str> {
    if event.get("type").and_then(Value::as_str) != Some("thread_settings_applied") {
        return None;
    }
    event
        .pointer("/thread_settings/model")
        .and_then(Value::as_str)
}

/// True when the text of the user message `record` holds is `text` (surrounding whitespace
/// aside): a `user_message` event and the item of the same input.
fn same_text(record: &RolloutRecord, text: &str) -> bool {
    record
        .response_item()
        .and_then(ResponseItem::message_text)
        .is_some_and(|item_text| item_text.trim() == text.trim())
}

/// Records that end a session's prefix: the model answered, or the history was rewritten.
fn ends_preamble(record: &RolloutRecord) -> bool {
    match &record.line.item {
        RolloutItem::ResponseItem(item) => is_model_generated(item),
        RolloutItem::Compacted(_) | RolloutItem::EventMsg(EventMsg::ThreadRolledBack(_)) => true,
        RolloutItem::SessionMeta(_)
        | RolloutItem::TurnContext(_)
        | RolloutItem::EventMsg(_)
        | RolloutItem::Unknown { .. } => false,
    }
}

fn tool_name(item: &ResponseItem) -> String {
    match item {
        ResponseItem::FunctionCall { name, .. } | ResponseItem::CustomToolCall { name, .. } => {
            name.clone()
        }
        ResponseItem::LocalShellCall { .. } => "local_shell".to_string(),
        other => other.type_name().to_string(),
    }
}

/// The first non-empty line of `text`, cut to a preview length.
fn preview(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    let mut out: String = line.chars().take(USER_MESSAGE_PREVIEW_CHARS).collect();
    if line.chars().count() > USER_MESSAGE_PREVIEW_CHARS {
        out.push('…');
    }
    out
}
