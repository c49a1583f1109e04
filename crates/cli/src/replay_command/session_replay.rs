//! The replay of one session as data: [`SessionReplay`] and its [`ReplayTurn`]s.
//!
//! [`SessionReplayBuilder`] observes records in file order and does the accounting; printing
//! lives elsewhere, so later columns (reminders that would fire, compaction decisions) are added
//! here as fields filled by `observe`.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::path::PathBuf;

use agentctx_context::TokenEstimator;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TokenUsageInfo;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::LazyRecord;
use agentctx_rollout::RequestSegmenter;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::RolloutRecord;
use agentctx_rollout::SkippedLine;
use agentctx_rollout::is_model_generated;
use serde::Serialize;
use serde_json::Value;

use super::prompt_history::PromptHistory;
use super::reminder_replay::FiredReminder;
use super::reminder_replay::ReminderReplay;
use super::turn_boundary::history_item_kind;
use super::turn_boundary::is_turn_start;
use super::usage_prediction::PredictionError;
use super::usage_prediction::RequestUsage;
use super::usage_prediction::UsageOptions;
use super::usage_prediction::UsageReplay;
use super::usage_prediction::UsageThresholds;

/// Characters of the user message shown per turn.
const USER_MESSAGE_PREVIEW_CHARS: usize = 60;

/// One turn: from a real user message to the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ReplayTurn {
    /// 1-based turn number.
    pub(crate) turn: usize,
    /// Line of the user message in the file.
    pub(crate) line: usize,
    /// The start of the user message, on one line.
    pub(crate) user_message: String,
    /// Conversation items recorded in the turn, the user message included.
    pub(crate) items: usize,
    /// Model requests in the turn (runs of model-generated items).
    pub(crate) requests: usize,
    /// Tool calls in the turn.
    pub(crate) tool_calls: usize,
    /// Tool calls by tool name.
    pub(crate) tools: BTreeMap<String, usize>,
    /// Compactions applied during the turn.
    pub(crate) compactions: usize,
    /// Our estimate of the prompt of the turn's last request (or, without requests, of the
    /// history at the turn's end), base instructions included.
    pub(crate) estimated_prompt_tokens: u64,
    /// The largest prompt estimate over the turn's requests.
    pub(crate) max_estimated_prompt_tokens: u64,
    /// Prompt tokens the session recorded for its last request in the turn (Codex
    /// `last_token_usage.input_tokens`; Claude input + cache creation + cache read).
    pub(crate) recorded_prompt_tokens: Option<i64>,
    /// Output tokens the session recorded for that request.
    pub(crate) recorded_output_tokens: Option<i64>,
    /// The context window the session recorded.
    pub(crate) model_context_window: Option<i64>,
    /// The system reminders that would have fired before the turn's model requests, request
    /// by request in injection order (`None` when reminders are not replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reminders: Option<Vec<FiredReminder>>,
    /// How many times the reminder engine ran in the turn: once before each model request
    /// (`None` when reminders are not replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reminder_evaluations: Option<usize>,
    /// The turn's model requests: our usage prediction against what each recorded, and where
    /// our tiers would have triggered.
    pub(crate) request_usage: Vec<RequestUsage>,
}

/// One session replayed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SessionReplay {
    /// The file.
    pub(crate) file: PathBuf,
    /// Its format.
    pub(crate) format: RolloutFormat,
    /// The session id from its header.
    pub(crate) session_id: Option<String>,
    /// Lines in the file.
    pub(crate) lines: usize,
    /// Bytes in the file.
    pub(crate) bytes: u64,
    /// Conversation items of the main thread.
    pub(crate) items: usize,
    /// Items of sub-agent branches, kept out of the main history.
    pub(crate) sidechain_items: usize,
    /// Items before the first turn (instructions, environment context).
    pub(crate) preamble_items: usize,
    /// Lines that could not be read.
    pub(crate) skipped: Vec<SkippedLine>,
    /// Records skipped by rule, by kind.
    pub(crate) ignored: BTreeMap<String, usize>,
    /// The turns.
    pub(crate) turns: Vec<ReplayTurn>,
    /// Tool calls in the main thread.
    pub(crate) tool_calls: usize,
    /// Compactions in the main thread.
    pub(crate) compactions: usize,
    /// Our largest prompt estimate over the session's requests.
    pub(crate) max_prompt_tokens: u64,
    /// The largest prompt the session recorded.
    pub(crate) max_recorded_prompt_tokens: Option<i64>,
    /// The context window the session recorded last.
    pub(crate) model_context_window: Option<i64>,
    /// Estimated tokens of the base instructions from the session header.
    pub(crate) instructions_tokens: u64,
    /// Reminders fired over the session, by type (`None` when reminders are not replayed).
    pub(crate) reminder_counts: Option<BTreeMap<String, usize>>,
    /// Every model request of the main thread, in order (those before the first turn too).
    pub(crate) requests: Vec<RequestUsage>,
    /// Our tiers' thresholds for the session's window (the recorded one, else the default).
    pub(crate) thresholds: UsageThresholds,
    /// How far our usage prediction was from what the requests recorded.
    pub(crate) usage_prediction_error: PredictionError,
}

/// Replays the file at `path`; with `reminders`, also which reminders fire per turn.
pub(crate) fn replay_file(
    path: &Path,
    estimator: &dyn TokenEstimator,
    reminders: Option<ReminderReplay>,
    usage: UsageOptions,
) -> Result<SessionReplay, RolloutError> {
    replay_reader_with(RolloutReader::open(path)?, estimator, reminders, usage)
}

/// Replays a session from a reader, with the default usage options.
#[cfg(test)]
pub(crate) fn replay_reader<R: BufRead>(
    reader: RolloutReader<R>,
    estimator: &dyn TokenEstimator,
    reminders: Option<ReminderReplay>,
) -> Result<SessionReplay, RolloutError> {
    replay_reader_with(reader, estimator, reminders, UsageOptions::default())
}

/// Replays a session from a reader.
pub(crate) fn replay_reader_with<R: BufRead>(
    mut reader: RolloutReader<R>,
    estimator: &dyn TokenEstimator,
    reminders: Option<ReminderReplay>,
    usage: UsageOptions,
) -> Result<SessionReplay, RolloutError> {
    let mut builder = SessionReplayBuilder::new(estimator);
    builder.reminders = reminders;
    builder.usage = UsageReplay::new(usage);
    for event in reader.lazy() {
        match event? {
            LazyReadEvent::Record(record) => builder.observe_lazy(record),
            LazyReadEvent::Skipped(skipped) => builder.skipped.push(skipped),
        }
    }
    let format = reader
        .format()
        .ok_or_else(|| RolloutError::UnrecognizedFormat {
            path: reader.path().to_path_buf(),
            lines: reader.lines_read(),
        })?;
    Ok(builder.finish(
        reader.path().to_path_buf(),
        format,
        reader.lines_read(),
        reader.bytes_read(),
        reader.ignored().clone(),
    ))
}

/// Accumulates a [`SessionReplay`] record by record.
pub(crate) struct SessionReplayBuilder<'a> {
    estimator: &'a dyn TokenEstimator,
    history: PromptHistory,
    session_id: Option<String>,
    main_thread_is_sidechain: Option<bool>,
    /// Where the main thread's model requests begin.
    requests: RequestSegmenter,
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
    model_context_window: Option<i64>,
    reminders: Option<ReminderReplay>,
    usage: UsageReplay,
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
    /// The usage of the main thread's last `token_count`, to recognise its copies.
    last_token_info: Option<TokenUsageInfo>,
    /// Records the replay itself leaves out, by kind (beside the reader's).
    ignored: BTreeMap<String, usize>,
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

impl<'a> SessionReplayBuilder<'a> {
    pub(crate) fn new(estimator: &'a dyn TokenEstimator) -> Self {
        Self {
            estimator,
            history: PromptHistory::default(),
            session_id: None,
            main_thread_is_sidechain: None,
            requests: RequestSegmenter::new(),
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
            reminders: None,
            usage: UsageReplay::new(UsageOptions::default()),
            held_user: Vec::new(),
            model_output_seen: false,
            user_events_seen: false,
            event_turn: None,
            last_token_info: None,
            ignored: BTreeMap::new(),
        }
    }

    /// Takes one record read lazily into account, typing it only when the replay reads it: the
    /// session header, conversation items, compactions, turn settings (for the model), and the
    /// `token_count`, `user_message`, `thread_rolled_back` and `thread_settings_applied` events.
    /// Any other record (other events, unknown lines) has only the effect
    /// [`SessionReplayBuilder::observe`] gives every record: it ends the wait of the held user
    /// messages once the session is under way.
    pub(crate) fn observe_lazy(&mut self, record: LazyRecord) {
        if replay_reads(&record) {
            self.observe(&record.into_read_only_record());
        } else if self.model_output_seen || self.user_events_seen {
            self.release_held(None);
        }
    }

    /// Takes one record into account.
    pub(crate) fn observe(&mut self, record: &RolloutRecord) {
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
            if !self.release_held(Some(&event.message)) {
                self.start_turn(record.line_number, Some(event.message.clone()));
                self.event_turn = Some(event.message.clone());
            }
            return;
        }
        if !held && (self.model_output_seen || self.user_events_seen || ends_preamble(record)) {
            self.release_held(None);
        }
        match &record.line.item {
            RolloutItem::SessionMeta(meta) => self.session_meta(meta),
            RolloutItem::ResponseItem(_) if !main => self.sidechain_items += 1,
            RolloutItem::ResponseItem(_) if held => self.held_user.push(record.clone()),
            RolloutItem::ResponseItem(_) => self.item_with_turn(record, ItemTurn::Within),
            RolloutItem::Compacted(compacted) => {
                if main {
                    self.history.compact(compacted, self.estimator);
                    self.usage.compacted(compacted, self.estimator);
                    self.requests.history_rewritten();
                    self.compactions += 1;
                    if let Some(turn) = &mut self.current {
                        turn.compactions += 1;
                    }
                    if let Some(reminders) = &mut self.reminders {
                        reminders.compacted();
                    }
                }
            }
            RolloutItem::EventMsg(EventMsg::ThreadRolledBack(event)) => {
                if main {
                    // As codex rebuilds a history from its rollout: the rolled-back turns leave
                    // the prompt (the turns themselves happened and stay in the report).
                    self.history.drop_last_n_user_turns(event.num_turns);
                    self.usage.rolled_back(event.num_turns);
                    self.requests.history_rewritten();
                }
            }
            RolloutItem::EventMsg(EventMsg::TokenCount(event)) if main => {
                // An imported Claude Code response names its model here.
                if let Some(model) = event.extra.get("model").and_then(Value::as_str) {
                    self.usage.model(model);
                }
                if let Some(info) = &event.info {
                    self.token_count(info);
                }
            }
            RolloutItem::TurnContext(context) if main => {
                if let Some(model) = &context.model {
                    self.usage.model(model);
                }
            }
            RolloutItem::EventMsg(EventMsg::Other(event)) if main => {
                if let Some(model) = thread_settings_model(event) {
                    self.usage.model(model);
                }
            }
            RolloutItem::EventMsg(_)
            | RolloutItem::TurnContext(_)
            | RolloutItem::Unknown { .. } => {}
        }
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
        self.model_context_window = info.model_context_window.or(self.model_context_window);
        self.max_recorded_prompt_tokens = Some(
            self.max_recorded_prompt_tokens
                .map_or(usage.input_tokens, |max| max.max(usage.input_tokens)),
        );
        if let Some((request, tokens)) = self
            .usage
            .recorded(usage.input_tokens, info.model_context_window)
        {
            let turns = self.current.iter_mut().chain(self.turns.iter_mut().rev());
            if let Some(measured) = turns
                .flat_map(|turn| turn.request_usage.iter_mut())
                .find(|measured| measured.request == request)
            {
                measured.recorded_tokens = Some(tokens);
            }
        }
        if let Some(turn) = &mut self.current {
            turn.recorded_prompt_tokens = Some(usage.input_tokens);
            turn.recorded_output_tokens = Some(usage.output_tokens);
            turn.model_context_window = self.model_context_window;
        }
        if let Some(reminders) = &mut self.reminders {
            reminders.token_count(info);
        }
    }

    /// Decides the held user messages: the newest whose text is `event_text` is the input of
    /// a `user_message` event, and starts its turn (returns true); the others are unconfirmed.
    fn release_held(&mut self, event_text: Option<&str>) -> bool {
        let held = std::mem::take(&mut self.held_user);
        let confirmed =
            event_text.and_then(|text| held.iter().rposition(|record| same_text(record, text)));
        for (index, record) in held.iter().enumerate() {
            if Some(index) == confirmed {
                self.item_with_turn(record, ItemTurn::Starts);
            } else {
                self.release_unconfirmed(record);
            }
        }
        confirmed.is_some()
    }

    /// A held user message no `user_message` event confirmed: the input of a turn an event
    /// already started, harness context when the session marks its turns with events, else
    /// decided by its text and flags.
    fn release_unconfirmed(&mut self, held: &RolloutRecord) {
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
        self.item_with_turn(held, turn);
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
        if let Some(reminders) = &mut self.reminders {
            reminders.session_meta(meta);
        }
        let instructions = meta
            .extra
            .get("base_instructions")
            .and_then(|value| value.get("text"))
            .or_else(|| meta.extra.get("instructions"))
            .and_then(Value::as_str);
        if let Some(text) = instructions {
            let tokens = self.estimator.estimate_text(text);
            self.history.set_instructions_tokens(tokens);
            self.usage.set_instructions_tokens(tokens);
        }
    }

    fn item_with_turn(&mut self, record: &RolloutRecord, turn: ItemTurn) {
        if let Some(item) = record.response_item() {
            self.response_item(record, item, turn);
        }
    }

    fn start_turn(&mut self, line: usize, text: Option<String>) {
        self.close_turn();
        let turn = self.turns.len() + 1;
        self.requests.start_turn();
        let reminders = self.reminders.as_mut().map(|reminders| {
            reminders.start_turn(text.clone());
            Vec::new()
        });
        let reminder_evaluations = reminders.as_ref().map(|_| 0);
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
            reminders,
            reminder_evaluations,
            request_usage: Vec::new(),
        });
    }

    fn response_item(&mut self, record: &RolloutRecord, item: &ResponseItem, turn: ItemTurn) {
        self.items += 1;
        if turn == ItemTurn::Starts {
            self.start_turn(record.line_number, item.message_text());
        }
        let request_start = self.requests.observe(item);
        if let (Some(start), Some(reminders), Some(turn)) =
            (request_start, &mut self.reminders, &mut self.current)
        {
            // Before the request: the engine sees the history up to its first model item.
            let is_main_agent = self.main_thread_is_sidechain != Some(true);
            let fired = reminders.before_request(start, is_main_agent);
            turn.reminders.get_or_insert_with(Vec::new).extend(fired);
            *turn.reminder_evaluations.get_or_insert(0) += 1;
        }
        if let Some(reminders) = &mut self.reminders {
            reminders.observe_item(item, record.flags);
        }
        let model_generated = is_model_generated(item);
        if model_generated {
            self.event_turn = None;
            self.model_output_seen = true;
        }
        if request_start.is_some() {
            let prompt = self.history.prompt_tokens();
            self.max_prompt_tokens = self.max_prompt_tokens.max(prompt);
            let request = self
                .usage
                .request_started(record.line_number, self.estimator);
            if let Some(turn) = &mut self.current {
                turn.request_usage.push(request);
                turn.requests += 1;
                turn.estimated_prompt_tokens = prompt;
                turn.max_estimated_prompt_tokens = turn.max_estimated_prompt_tokens.max(prompt);
            }
        }
        // Measured once, for the prompt figures and the usage prediction alike.
        let size = self.estimator.estimate_item_size(item);
        self.usage.push_item(item, size, turn != ItemTurn::Within);
        self.history.record(
            size.tokens,
            history_item_kind(item, turn != ItemTurn::Within),
        );
        let tool_name = item.is_tool_call().then(|| tool_name(item));
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
    }

    fn close_turn(&mut self) {
        if let Some(mut turn) = self.current.take() {
            if turn.requests == 0 {
                turn.estimated_prompt_tokens = self.history.prompt_tokens();
                turn.max_estimated_prompt_tokens = turn.estimated_prompt_tokens;
            }
            self.turns.push(turn);
        }
    }

    /// The finished replay.
    pub(crate) fn finish(
        mut self,
        file: PathBuf,
        format: RolloutFormat,
        lines: usize,
        bytes: u64,
        mut ignored: BTreeMap<String, usize>,
    ) -> SessionReplay {
        self.release_held(None);
        self.close_turn();
        for (kind, count) in std::mem::take(&mut self.ignored) {
            *ignored.entry(kind).or_default() += count;
        }
        SessionReplay {
            file,
            format,
            session_id: self.session_id,
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
            instructions_tokens: self.history.instructions_tokens(),
            reminder_counts: self.reminders.as_ref().map(ReminderReplay::counts),
            thresholds: self.usage.final_thresholds(self.estimator),
            usage_prediction_error: PredictionError::over(self.usage.requests()),
            requests: self.usage.requests().to_vec(),
        }
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

#[cfg(test)]
#[path = "session_replay_tests.rs"]
mod tests;
