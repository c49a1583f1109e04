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

mod at_compaction;
mod decision_points;
mod engine_feed;
mod held_user;
mod read_ahead;
mod reasoning;
mod record_kinds;
mod recorded_compaction;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::path::PathBuf;

use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_model::ToolSpec;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::TokenUsageInfo;
use agentctx_reminders::ItemFlags;
use agentctx_reminders::is_reminder_item;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::LazyRecord;
use agentctx_rollout::RecordFlags;
use agentctx_rollout::RequestSegmenter;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::RolloutRecord;
use agentctx_rollout::SkippedLine;
use agentctx_rollout::is_model_generated;
use serde_json::Value;

use super::recorded_billing::RecordedBilling;
use super::replay_report::RecordedCompaction;
use super::replay_report::ReplayOptions;
use super::replay_report::ReplayTurn;
use super::replay_report::RequestSink;
use super::replay_report::SessionReplay;
use super::request_usage::PredictionError;
use super::request_usage::RequestUsage;
use super::request_usage::UsageThresholds;
use super::turn_boundary::is_turn_start;
use crate::context_engine::ContextEngine;
use crate::error::ReplayError;

pub use at_compaction::EngineAtCompaction;
pub use at_compaction::engine_at_compaction;
pub use reasoning::record_reasoning;
pub use reasoning::recorded_reasoning;
use record_kinds::claude_cache_write;
use record_kinds::ends_preamble;
use record_kinds::replay_reads;
use record_kinds::replay_types;
use record_kinds::thread_settings_model;

/// Characters of the user message shown per turn.
const USER_MESSAGE_PREVIEW_CHARS: usize = 60;

/// The originator agentctx writes in the sessions it records.
pub const AGENTCTX_ORIGINATOR: &str = "agentctx";

/// The field of a `turn_context` line in which agentctx records the tools offered from that
/// turn on (only when they changed): the replay rebuilds requests with them.
pub const RECORDED_TOOLS_FIELD: &str = "agentctx_tools";

/// The field of a `turn_context` line in which agentctx records the window and output limit
/// of the model the turn ran on (`{"context_window": N, "max_output_tokens": M}`): the replay
/// judges the turn against the thresholds the live session had.
pub const RECORDED_WINDOW_FIELD: &str = "agentctx_window";

/// The field of a `turn_context` line in which agentctx records the reasoning parameters its
/// requests carried in that turn (the thinking level as sent); absent when they carried none.
/// The replay sends them again; without it, codex's own `effort` and `summary` fields are read.
pub const RECORDED_REASONING_FIELD: &str = "agentctx_reasoning";

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

/// Replays a session from a reader: with [`ReplayOptions::read_ahead`] on a machine with more
/// than one core, the file is read and typed on a second thread while the engine replays it.
pub fn replay_reader<R: BufRead + Send>(
    reader: RolloutReader<R>,
    options: &ReplayOptions,
    sink: Option<&mut dyn RequestSink>,
) -> Result<SessionReplay, ReplayError> {
    // The payloads the replay types are typed as they are read: each is read once.
    let mut reader = reader
        .typing_as_read(replay_types)
        .reading_in_part(read_ahead::read_in_part);
    let mut builder = SessionReplayBuilder::new(options.clone(), sink);
    let feed = |fed| builder.feed(fed);
    if options.read_ahead && read_ahead::read_ahead_pays() {
        read_ahead::feed_read_ahead(&mut reader, feed)?;
    } else {
        read_ahead::feed_inline(&mut reader, feed)?;
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
    /// The header's timestamp, else the first record's.
    started_at: Option<String>,
    cwd: Option<PathBuf>,
    /// The model the session recorded last.
    model: Option<String>,
    originator: Option<String>,
    instructions: String,
    instructions_tokens: u64,
    /// What every request carries besides the history (instructions and tool schemas).
    overhead_tokens: u64,
    tools: Vec<ToolSpec>,
    /// The reasoning parameters of the current turn's requests, as recorded.
    reasoning: Option<agentctx_model::ReasoningOptions>,
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
    recorded_compactions: Vec<RecordedCompaction>,
    max_prompt_tokens: u64,
    max_recorded_prompt_tokens: Option<i64>,
    /// The window the session recorded last.
    model_context_window: Option<i64>,
    /// The output limit of the model the session recorded last (agentctx records it).
    max_output_tokens: Option<i64>,
    /// The usage of the main thread's last `token_count`, to recognise its copies.
    last_token_info: Option<TokenUsageInfo>,
    /// The session records a request's measure before its items (Codex 0.4x–0.5x).
    measures_lead: bool,
    /// A recorded measure of the request about to start, in such a session, with its cache
    /// writes.
    pending_measure: Option<(TokenUsage, u64, RecordedBilling)>,
    /// Recorded usage no replayed request took (see `SessionReplay::unreplayed_usage`).
    unreplayed_usage: Vec<super::UnreplayedUsage>,
    /// Records the replay itself leaves out, by kind (beside the reader's).
    ignored: BTreeMap<String, usize>,
    reminder_counts: BTreeMap<String, usize>,
    requests: Vec<RequestUsage>,
    /// The open request still takes the usage its `token_count` reports.
    request_open: bool,
    /// A recorded compaction rewrote the history since the last request.
    compacted_since_request: bool,
    /// Where the session stands between two model requests: which of the engine's decisions is
    /// due (see `decision_points.rs`).
    between: decision_points::Between,
    /// The engine's decisions since the last request, for the next request's row.
    due_decisions: Vec<crate::decision::Decision>,
    /// Our auto-compaction since the last request, for the next request's row.
    due_auto_compact: Option<super::request_usage::TierTrigger>,
    /// Tokens our own tiers took out of the history that the recorded one still holds: the
    /// recorded measures are of the recorded history, ours is this much smaller.
    recorded_offset: u64,
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
    /// Stop where the session recorded this compaction (1-based), before it is installed.
    stop_before_compaction: Option<usize>,
    /// The engine where the replay stopped ([`at_compaction::engine_at_compaction`]).
    stopped: Option<Box<at_compaction::EngineAtCompaction>>,
    /// The survival probes of the compactions ([`ReplayOptions::survival`]).
    survival: Option<crate::survival::SurvivalTracker>,
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
            sink,
            runtime: None,
            engine: None,
            estimator: ApproxTokenEstimator,
            session_id: None,
            started_at: None,
            cwd: None,
            model: None,
            originator: None,
            instructions: String::new(),
            instructions_tokens: 0,
            overhead_tokens: 0,
            tools: Vec::new(),
            reasoning: None,
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
            recorded_compactions: Vec::new(),
            max_prompt_tokens: 0,
            max_recorded_prompt_tokens: None,
            model_context_window: None,
            max_output_tokens: None,
            last_token_info: None,
            measures_lead: false,
            pending_measure: None,
            unreplayed_usage: Vec::new(),
            ignored: BTreeMap::new(),
            reminder_counts: BTreeMap::new(),
            requests: Vec::new(),
            request_open: false,
            compacted_since_request: false,
            between: decision_points::Between::TurnEnd { decided: None },
            due_decisions: Vec::new(),
            due_auto_compact: None,
            recorded_offset: 0,
            held_user: Vec::new(),
            model_output_seen: false,
            user_events_seen: false,
            event_turn: None,
            stop_before_compaction: None,
            stopped: None,
            survival: options
                .survival
                .then(crate::survival::SurvivalTracker::default),
            options,
        }
    }

    /// Takes one record read lazily into account, typing it only when the replay reads it: the
    /// session header, turn settings, conversation items, compactions, and the `token_count`,
    /// `user_message` and `thread_rolled_back` events. Any other record has only the effect
    /// [`SessionReplayBuilder::observe`] gives every record: it ends the wait of the held user
    /// messages once the session is under way.
    pub fn observe_lazy(&mut self, record: LazyRecord) -> Result<(), ReplayError> {
        self.feed(read_ahead::Fed::of(LazyReadEvent::Record(record)))
    }

    /// A record the replay does not read: it ends the wait of the held user messages once the
    /// session is under way.
    fn observe_unread(&mut self) -> Result<(), ReplayError> {
        if self.stopped.is_some() {
            return Ok(());
        }
        if self.model_output_seen || self.user_events_seen {
            self.release_held(None)?;
        }
        Ok(())
    }

    /// One event of the file, as the reader typed it.
    fn feed(&mut self, fed: read_ahead::Fed) -> Result<(), ReplayError> {
        match fed {
            read_ahead::Fed::Record(record) => self.observe_owned(record),
            read_ahead::Fed::Lazy(record) => self.observe_owned(read_ahead::Fed::finish(record)),
            read_ahead::Fed::Unread => self.observe_unread(),
            read_ahead::Fed::Skipped(skipped) => {
                self.skipped.push(skipped);
                Ok(())
            }
        }
    }

    /// Takes one record into account.
    pub fn observe(&mut self, record: &RolloutRecord) -> Result<(), ReplayError> {
        self.observe_owned(record.clone())
    }

    /// Takes one record into account, its item (if any) going on into the engine without a
    /// copy.
    pub fn observe_owned(&mut self, record: RolloutRecord) -> Result<(), ReplayError> {
        if self.stopped.is_some() {
            return Ok(());
        }
        if self.started_at.is_none() && !record.line.timestamp.is_empty() {
            self.started_at = Some(record.line.timestamp.clone());
        }
        if let Some(engine) = &mut self.engine {
            engine.observe_recorded_time(&record.line.timestamp);
        }
        let main = match &record.line.item {
            RolloutItem::ResponseItem(_) => self.is_main_thread(&record, true),
            _ => self.is_main_thread(&record, false),
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
        if !held && (self.model_output_seen || self.user_events_seen || ends_preamble(&record)) {
            self.release_held(None)?;
        }
        if matches!(record.line.item, RolloutItem::ResponseItem(_)) {
            if !main {
                self.sidechain_items += 1;
            } else if held {
                self.held_user.push(record);
            } else {
                self.item_with_turn(record, ItemTurn::Within)?;
            }
            return Ok(());
        }
        match &record.line.item {
            RolloutItem::SessionMeta(meta) => self.session_meta(meta),
            RolloutItem::TurnContext(context) if main => {
                self.observe_turn_settings();
                self.turn_context(context);
            }
            RolloutItem::Compacted(compacted) if main => self.compacted(compacted),
            RolloutItem::EventMsg(EventMsg::ThreadRolledBack(event)) if main => {
                // As codex rebuilds a history from its rollout: the rolled-back turns leave
                // the prompt (the turns themselves happened and stay in the report).
                self.engine().rollback(event.num_turns);
                self.request_open = false;
                let pending = self.pending_measure.take();
                self.unreplayed_usage
                    .extend(super::UnreplayedUsage::of_pending(pending));
                self.segmenter.history_rewritten();
            }
            RolloutItem::EventMsg(EventMsg::TokenCount(event)) if main => {
                // An imported Claude Code response names its model here.
                if let Some(model) = event.extra.get("model").and_then(Value::as_str) {
                    self.model(model);
                }
                if let Some(info) = &event.info {
                    let billing = RecordedBilling::of_token_count(
                        event,
                        self.model.as_deref(),
                        &record.line.timestamp,
                    );
                    self.token_count(info, claude_cache_write(event), billing);
                }
            }
            RolloutItem::EventMsg(EventMsg::Other(event)) if main => {
                if let Some(model) = thread_settings_model(event) {
                    self.model(model);
                }
            }
            RolloutItem::ResponseItem(_)
            | RolloutItem::TurnContext(_)
            | RolloutItem::Compacted(_)
            | RolloutItem::EventMsg(_)
            | RolloutItem::Unknown { .. } => {}
        }
        Ok(())
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
        if let Some(timestamp) = meta.timestamp.as_ref().filter(|time| !time.is_empty()) {
            self.started_at = Some(timestamp.clone());
        }
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
            self.update_overhead();
        }
        if let Some(engine) = &self.engine {
            engine.set_prompt_overhead(self.overhead_tokens());
        }
    }

    fn item_with_turn(&mut self, record: RolloutRecord, turn: ItemTurn) -> Result<(), ReplayError> {
        let RolloutRecord {
            line_number,
            line,
            flags,
            ..
        } = record;
        if let RolloutItem::ResponseItem(item) = line.item {
            self.response_item(line_number, flags, item, turn)?;
        }
        Ok(())
    }

    fn start_turn(&mut self, line: usize, text: Option<String>) {
        self.close_turn();
        let turn = self.turns.len() + 1;
        self.turn_starts();
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
        line_number: usize,
        record_flags: RecordFlags,
        mut item: ResponseItem,
        turn: ItemTurn,
    ) -> Result<(), ReplayError> {
        self.items += 1;
        if turn == ItemTurn::Starts {
            self.start_turn(line_number, item.message_text());
        }
        if let Some(start) = self.segmenter.observe(&item) {
            self.request(line_number, start)?;
        }
        let model_generated = is_model_generated(&item);
        if model_generated {
            self.event_turn = None;
            self.model_output_seen = true;
            self.observe_model_item(&item);
        } else {
            self.observe_other_item(&item);
        }
        if self.recorded_by_agentctx() && is_reminder_item(&item) {
            // A reminder the live engine placed: what fired, as the file says.
            *self
                .reminder_counts
                .entry("recorded".to_string())
                .or_default() += 1;
        }
        if record_flags.injected {
            item.set_injected(true);
        }
        let flags = ItemFlags {
            injected: record_flags.injected,
            permission_mode: record_flags.permission_mode,
        };
        let tool_name = item.is_tool_call().then(|| tool_name(&item));
        if let Some(survival) = &mut self.survival {
            survival.item(&item);
        }
        self.engine().observe_recorded_item(item, flags);
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
        let compaction_survival = self
            .survival
            .take()
            .map(|survival| survival.finish(self.cwd.as_deref().unwrap_or(Path::new(""))))
            .unwrap_or_default();
        Ok(SessionReplay {
            file,
            format,
            session_id: self.session_id,
            started_at: self.started_at,
            cwd: self.cwd,
            model: self.model,
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
            recorded_compactions: self.recorded_compactions,
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
            compaction_survival,
            unreplayed_usage: self.unreplayed_usage,
        })
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
    match first_chars(line, USER_MESSAGE_PREVIEW_CHARS) {
        (kept, true) => format!("{kept}…"),
        (whole, false) => whole.to_string(),
    }
}

/// The first `count` characters of `text`, and whether there were more: found without
/// collecting `text` character by character, or counting all of a long one.
fn first_chars(text: &str, count: usize) -> (&str, bool) {
    match text.char_indices().nth(count) {
        Some((cut, _)) => (text.get(..cut).unwrap_or(text), true),
        None => (text, false),
    }
}

#[cfg(test)]
#[path = "session_replay_tests.rs"]
mod tests;
