//! The history a recorded session had at a chosen point, rebuilt from its file: what `agentctx
//! compact` compacts and what `Session::resume` continues from. One reconstruction for both, so
//! an offline compaction and a resumed session start from the same history.
//!
//! The rebuild follows codex's own, `Session::reconstruct_history_from_rollout` (codex-rs
//! `core/src/session/rollout_reconstruction.rs`, earlier `core/src/codex/rollout_reconstruction.rs`):
//! the main thread's items in file order, recorded into a [`ContextManager`] (tool outputs
//! truncated as the live session truncated them, items the API does not take left out); a
//! `compacted` line replaces the history with its `replacement_history`, or, when the session
//! recorded none (codex before replacement histories), with codex's rebuild from the user
//! messages and the summary (no initial context: the next turn sends it in full); a
//! `thread_rolled_back` event drops the last user turns at the point where it stands, with
//! codex's rule for where a user turn starts (`ContextManager::drop_last_n_user_turns`, codex-rs
//! `core/src/context_manager/history.rs`). See docs/design/engine.md, "Reading a recorded
//! session".
//!
//! A Claude Code transcript comes out of the reader already resolved: the records of branches
//! the user abandoned (a rewind, a regenerated response) are dropped, and a compact boundary
//! with its summary is one `compacted` line whose replacement history is the summary message.
//! Replayed in file order, what is left is the path the model saw last.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::PathBuf;

use agentctx_compact::CarriedItems;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::build_compacted_history;
use agentctx_compact::is_summary_text;
use agentctx_context::ContextManager;
use agentctx_context::TruncationPolicy;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::ContentItem;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TurnContextItem;
use agentctx_protocol::is_user_turn_start;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::LazyRecord;
use agentctx_rollout::RecordFlags;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::SkippedLine;
use serde::Deserialize;
use serde_json::Value;

/// The summary codex puts in a rebuilt history when the compaction recorded an empty one
/// (codex-rs `core/src/compact.rs`, `build_compacted_history_with_limit`).
const NO_SUMMARY: &str = "(no summary available)";

/// The truncation of a transcript whose tool outputs are recorded as the model saw them (Claude
/// Code truncates a result before writing it): no limit.
pub(crate) const AS_RECORDED: TruncationPolicy = TruncationPolicy::Bytes(usize::MAX);

/// Where to stop reading a recorded session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopPoint {
    /// The end of the file.
    #[default]
    End,
    /// Just before the N-th (1-based) compaction of the main thread.
    BeforeCompaction(usize),
    /// After line L (1-based) of the file.
    AfterLine(usize),
}

/// A recorded session's main thread up to a [`StopPoint`], as the session held it there.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedSession {
    /// The history, as the session held it (ghost snapshots included; the prompt view
    /// normalises it): what the next request would send.
    pub items: Vec<ResponseItem>,
    /// The session id of the header, when it has a non-empty one.
    pub session_id: Option<String>,
    /// The base instructions of the header, when recorded.
    pub base_instructions: Option<String>,
    /// The last `turn_context` line read.
    pub last_turn_context: Option<TurnContextItem>,
    /// The session's working directory: the last `turn_context`'s, else the header's (a
    /// Claude Code transcript's records carry theirs).
    pub cwd: Option<PathBuf>,
    /// The settings the next turn diffs against, by codex's rule: the `turn_context` of the
    /// newest user turn that survives the rollbacks; `None` when a compaction came after it, or
    /// when the history was rebuilt for a compaction without replacement history (the history
    /// then lacks the initial context, so the next turn must send it in full).
    pub reference_context_item: Option<TurnContextItem>,
    /// Turns: the `turn_context` lines (one per turn in Codex and agentctx rollouts); for a file
    /// without any (a Claude Code transcript), the user turns.
    pub turns: usize,
    /// Messages the user typed that started a turn (harness text and contextual messages do
    /// not), rolled-back ones included.
    pub user_turns: usize,
    /// Model requests that reported usage (`token_count` events).
    pub requests: usize,
    /// Compactions applied before the stop point.
    pub compactions_applied: usize,
    /// Compactions in the whole file; known only when the file was read to its end.
    pub compactions_in_file: Option<usize>,
    /// The last line read (for [`StopPoint::BeforeCompaction`], the line before that
    /// compaction).
    pub last_line: usize,
    /// Lines that could not be read, in file order.
    pub skipped: Vec<SkippedLine>,
    /// The file's format.
    pub format: RolloutFormat,
    /// Records the reader left out by rule, counted by kind (bookkeeping records, Claude Code's
    /// abandoned branches).
    pub ignored: BTreeMap<String, usize>,
}

/// Reads `reader` up to `stop` and rebuilds the main thread's history there.
///
/// Lines that cannot be read are skipped and listed in [`RecordedSession::skipped`]; a record
/// of a known kind whose payload does not fit it is left out. Fails only when the file cannot be
/// read, or when no line of it is a Codex rollout or Claude Code transcript line.
pub fn read_recorded_session<R: BufRead>(
    mut reader: RolloutReader<R>,
    stop: StopPoint,
) -> Result<RecordedSession, RolloutError> {
    let mut builder = Builder {
        // Until a `turn_context` says otherwise, outputs are kept as recorded (codex's legacy
        // rollouts record none).
        truncation: AS_RECORDED,
        ..Builder::default()
    };
    let mut stopped = false;
    while let Some(event) = reader.next_lazy() {
        let record = match event? {
            LazyReadEvent::Record(record) => record,
            LazyReadEvent::Skipped(skipped) => {
                builder.skipped.push(skipped);
                continue;
            }
        };
        if let StopPoint::AfterLine(line) = stop
            && record.line_number > line
        {
            stopped = true;
            break;
        }
        let Some(item) = read_item(&record) else {
            builder.last_line = record.line_number;
            continue;
        };
        if let StopPoint::BeforeCompaction(n) = stop
            && matches!(*item, RolloutItem::Compacted(_))
            && builder.is_main(record.flags)
            && builder.compactions + 1 == n
        {
            builder.last_line = record.line_number.saturating_sub(1);
            stopped = true;
            break;
        }
        // A Claude Code transcript records tool results as the model saw them.
        let as_recorded = reader.format() == Some(RolloutFormat::ClaudeCode);
        builder.observe(record.line_number, record.flags, &item, as_recorded);
    }
    let Some(format) = reader.format() else {
        return Err(RolloutError::UnrecognizedFormat {
            path: reader.path().to_path_buf(),
            lines: reader.lines_read(),
        });
    };
    Ok(builder.finish(format, stopped, reader.ignored().clone()))
}

/// The typed item of a record the rebuild reads; `None` for the others (reasoning and message
/// events, rate limits, ...), which are never typed.
fn read_item(record: &LazyRecord) -> Option<Cow<'_, RolloutItem>> {
    let wanted = match record.kind() {
        "session_meta" | "response_item" | "compacted" | "turn_context" => true,
        "event_msg" => matches!(
            record.payload_type(),
            Some(
                "token_count"
                    | "thread_rolled_back"
                    | "user_message"
                    | "turn_aborted"
                    | "task_started"
                    | "turn_started"
                    | "task_complete"
                    | "turn_complete"
            )
        ),
        _ => false,
    };
    wanted.then(|| record.item())
}

#[derive(Debug, Default)]
struct Builder {
    history: ContextManager,
    /// Whether the main thread is the sidechain one (the transcript of a sub-agent alone),
    /// decided by the first conversation item.
    main_is_sidechain: Option<bool>,
    session_id: Option<String>,
    base_instructions: Option<String>,
    /// The header's working directory.
    header_cwd: Option<String>,
    last_turn_context: Option<TurnContextItem>,
    reference: ReferenceContext,
    /// A compaction without replacement history was rebuilt since the last one with: the
    /// rebuilt history holds no initial context.
    rebuilt: bool,
    /// How the current turn truncates tool outputs (its `turn_context`'s policy).
    truncation: TruncationPolicy,
    turn_contexts: usize,
    user_turns: usize,
    requests: usize,
    compactions: usize,
    last_line: usize,
    skipped: Vec<SkippedLine>,
}

impl Builder {
    fn is_main(&self, flags: RecordFlags) -> bool {
        match self.main_is_sidechain {
            Some(main) => main == flags.sidechain,
            None => !flags.sidechain,
        }
    }

    fn observe(&mut self, line: usize, flags: RecordFlags, item: &RolloutItem, as_recorded: bool) {
        self.last_line = line;
        if let RolloutItem::SessionMeta(meta) = item {
            self.header(meta);
            return;
        }
        if let RolloutItem::ResponseItem(_) = item
            && self.main_is_sidechain.is_none()
        {
            self.main_is_sidechain = Some(flags.sidechain);
        }
        if !self.is_main(flags) {
            return;
        }
        match item {
            RolloutItem::ResponseItem(item) => {
                let mut item = item.clone();
                if flags.injected {
                    item.set_injected(true);
                }
                if is_user_turn_start(&item) {
                    self.user_turns += 1;
                    self.reference.user_message();
                }
                let policy = if as_recorded {
                    AS_RECORDED
                } else {
                    self.truncation
                };
                self.history.record_items(std::iter::once(item), policy);
            }
            RolloutItem::Compacted(compacted) => self.compact(compacted),
            RolloutItem::TurnContext(context) => {
                self.turn_contexts += 1;
                // A turn that recorded no policy is from a writer that truncated nothing when
                // recording (codex before 0.6x wrote outputs already cut for the model).
                self.truncation = truncation_policy_of(context).unwrap_or(AS_RECORDED);
                self.last_turn_context = Some(context.clone());
                self.reference.turn_context(context);
            }
            RolloutItem::EventMsg(EventMsg::TokenCount(_)) => self.requests += 1,
            RolloutItem::EventMsg(EventMsg::ThreadRolledBack(event)) => {
                self.history.drop_last_n_user_turns(event.num_turns);
                self.reference.rolled_back(event.num_turns);
            }
            RolloutItem::EventMsg(EventMsg::UserMessage(_)) => self.reference.user_message(),
            RolloutItem::EventMsg(EventMsg::TurnAborted(fields)) => self
                .reference
                .turn_ended(fields.get("turn_id").and_then(Value::as_str)),
            RolloutItem::EventMsg(EventMsg::Other(payload)) => {
                let turn_id = payload.get("turn_id").and_then(Value::as_str);
                match payload.get("type").and_then(Value::as_str) {
                    Some("task_started" | "turn_started") => self.reference.turn_started(turn_id),
                    Some("task_complete" | "turn_complete") => self.reference.turn_ended(turn_id),
                    _ => {}
                }
            }
            RolloutItem::EventMsg(_)
            | RolloutItem::SessionMeta(_)
            | RolloutItem::Unknown { .. } => {}
        }
    }

    fn header(&mut self, meta: &SessionMetaLine) {
        if self.session_id.is_none() && !meta.id.is_empty() {
            self.session_id = Some(meta.id.clone());
        }
        if self.header_cwd.is_none() {
            self.header_cwd = meta.cwd.clone().filter(|cwd| !cwd.is_empty());
        }
        if self.base_instructions.is_none() {
            self.base_instructions = meta
                .extra
                .get("base_instructions")
                .and_then(|value| value.get("text"))
                .or_else(|| meta.extra.get("instructions"))
                .and_then(Value::as_str)
                .map(str::to_string);
        }
    }

    /// Applies a recorded compaction: its replacement history when the session recorded one,
    /// else codex's rebuild from the user messages and the summary.
    fn compact(&mut self, compacted: &CompactedItem) {
        self.compactions += 1;
        self.rebuilt = compacted.replacement_history.is_none();
        let items = match &compacted.replacement_history {
            Some(items) => items.clone(),
            None => rebuild_without_replacement(self.history.raw_items(), &compacted.message),
        };
        self.history.replace(items);
        self.reference.compacted();
    }

    fn finish(
        self,
        format: RolloutFormat,
        stopped: bool,
        ignored: BTreeMap<String, usize>,
    ) -> RecordedSession {
        RecordedSession {
            items: self.history.raw_items().to_vec(),
            session_id: self.session_id,
            base_instructions: self.base_instructions,
            cwd: self
                .last_turn_context
                .as_ref()
                .and_then(|context| context.cwd.clone())
                .filter(|cwd| !cwd.is_empty())
                .or(self.header_cwd)
                .map(PathBuf::from),
            last_turn_context: self.last_turn_context,
            // codex clears the reference after replaying a compaction without replacement
            // history ("reinject canonical context at the end of the resumed conversation").
            reference_context_item: if self.rebuilt {
                None
            } else {
                self.reference.reference()
            },
            turns: if self.turn_contexts > 0 {
                self.turn_contexts
            } else {
                self.user_turns
            },
            user_turns: self.user_turns,
            requests: self.requests,
            compactions_applied: self.compactions,
            compactions_in_file: (!stopped).then_some(self.compactions),
            last_line: self.last_line,
            skipped: self.skipped,
            format,
            ignored,
        }
    }
}

/// The truncation policy a `turn_context` recorded (codex writes `truncation_policy` as
/// `{"mode": "bytes"|"tokens", "limit": N}`); `None` when it recorded none.
pub(crate) fn truncation_policy_of(context: &TurnContextItem) -> Option<TruncationPolicy> {
    let value = context.extra.get("truncation_policy")?;
    TruncationPolicy::deserialize(value).ok()
}

/// The history codex rebuilds for a compaction that recorded no replacement history: the newest
/// user messages within 20,000 tokens, then the summary (codex's placeholder when it is empty),
/// with no initial context (codex-rs `core/src/session/rollout_reconstruction.rs`:
/// `build_compacted_history(Vec::new(), &collect_user_messages(..), &compacted.message)`).
pub(crate) fn rebuild_without_replacement(
    items: &[ResponseItem],
    summary: &str,
) -> Vec<ResponseItem> {
    let summary = if summary.is_empty() {
        NO_SUMMARY
    } else {
        summary
    };
    build_compacted_history(
        Vec::new(),
        &codex_user_messages(items),
        summary,
        InitialContextInjection::DoNotInject,
        CarriedItems::default(),
    )
}

/// The user messages codex keeps in a rebuilt history (codex-rs `core/src/compact.rs`,
/// `collect_user_messages`): the text of every message `parse_turn_item` takes for a user
/// message, except earlier summaries (text that starts with the summary prefix and a newline).
fn codex_user_messages(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(codex_user_message_text)
        .filter(|text| !is_summary_text(text))
        .collect()
}

/// The text of a user message as codex reads it (codex-rs `core/src/event_mapping.rs`,
/// `parse_user_message`, and `UserMessageItem::message`): a message that starts a user turn
/// (`agentctx_protocol::is_user_turn_start`: none of its parts is harness text such as a
/// contextual fragment, and agentctx did not mark it injected) and which is not a hook prompt; its
/// `input_text` parts joined with nothing between them, without the `<image>` tags codex wraps
/// around an image (an image contributes no text, so a message of images alone is the empty
/// text).
fn codex_user_message_text(item: &ResponseItem) -> Option<String> {
    let ResponseItem::Message { content, .. } = item else {
        return None;
    };
    if !is_user_turn_start(item) {
        return None;
    }
    if is_hook_prompt(content) {
        return None;
    }
    let mut text = String::new();
    for (index, part) in content.iter().enumerate() {
        if let ContentItem::InputText { text: part_text } = part
            && !is_image_wrapper(content, index, part_text)
        {
            text.push_str(part_text);
        }
    }
    Some(text)
}

/// True for an `<image>` (or `<image name=…>`) text just before an image, or an `</image>` just
/// after one (codex-rs `protocol/src/models.rs`, `is_image_open_tag_text` and friends).
fn is_image_wrapper(content: &[ContentItem], index: usize, text: &str) -> bool {
    let is_image = |at: Option<usize>| {
        at.and_then(|at| content.get(at))
            .is_some_and(|part| matches!(part, ContentItem::InputImage { .. }))
    };
    let opens = text == "<image>" || (text.starts_with("<image name=") && text.ends_with('>'));
    (opens && is_image(index.checked_add(1)))
        || (text == "</image>" && is_image(index.checked_sub(1)))
}

/// True for codex's hook prompt message: every part an `input_text` of the form
/// `<hook_prompt hook_run_id="…">…</hook_prompt>` with a run id (codex-rs
/// `protocol/src/items.rs`, `parse_hook_prompt_message`).
fn is_hook_prompt(content: &[ContentItem]) -> bool {
    !content.is_empty()
        && content.iter().all(|part| match part {
            ContentItem::InputText { text } => {
                let text = text.trim();
                text.starts_with("<hook_prompt ")
                    && text.ends_with("</hook_prompt>")
                    && text
                        .split_once("hook_run_id=\"")
                        .and_then(|(_, rest)| rest.split_once('"'))
                        .is_some_and(|(id, _)| !id.trim().is_empty())
            }
            _ => false,
        })
}

/// The `turn_context` the next turn diffs its settings against, tracked per user turn so a
/// rollback takes the rolled-back turns' settings with it and a compaction clears it, as codex's
/// reconstruction does (codex-rs `core/src/codex/rollout_reconstruction.rs` at openai/codex
/// 687e1373, the forward replay; its later reverse scan keeps the same rules): a turn runs from
/// `task_started` to `task_complete` / `turn_aborted` (matched by turn id when both have one)
/// and counts as a user turn when a user message was seen in it; a `turn_context` outside such a
/// span (agentctx and older codex rollouts) is a user turn of its own.
#[derive(Debug, Default)]
struct ReferenceContext {
    active: Option<ActiveTurn>,
    segments: Vec<Segment>,
}

#[derive(Debug, Default)]
struct ActiveTurn {
    turn_id: Option<String>,
    saw_user_message: bool,
    context: Option<Box<TurnContextItem>>,
    cleared: bool,
}

#[derive(Debug)]
enum Segment {
    /// A user turn, with the settings it recorded and whether a compaction in it cleared the
    /// earlier ones.
    UserTurn {
        context: Option<Box<TurnContextItem>>,
        cleared: bool,
    },
    /// A compaction outside any user turn.
    Cleared,
}

/// Two turn ids name the same turn unless both are known and differ.
fn same_turn(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

impl ReferenceContext {
    fn turn_started(&mut self, turn_id: Option<&str>) {
        if let Some(active) = self.active.take() {
            self.close(active);
        }
        self.active = Some(ActiveTurn {
            turn_id: turn_id.map(str::to_string),
            ..ActiveTurn::default()
        });
    }

    fn turn_ended(&mut self, turn_id: Option<&str>) {
        if self
            .active
            .as_ref()
            .is_some_and(|active| same_turn(active.turn_id.as_deref(), turn_id))
            && let Some(active) = self.active.take()
        {
            self.close(active);
        }
    }

    fn user_message(&mut self) {
        if let Some(active) = &mut self.active {
            active.saw_user_message = true;
        }
    }

    fn turn_context(&mut self, context: &TurnContextItem) {
        match &mut self.active {
            Some(active) if same_turn(active.turn_id.as_deref(), context.turn_id.as_deref()) => {
                active.context = Some(Box::new(context.clone()));
                active.cleared = false;
            }
            Some(_) | None => self.segments.push(Segment::UserTurn {
                context: Some(Box::new(context.clone())),
                cleared: false,
            }),
        }
    }

    fn compacted(&mut self) {
        match &mut self.active {
            Some(active) => {
                active.context = None;
                active.cleared = true;
            }
            None => self.segments.push(Segment::Cleared),
        }
    }

    /// Drops the newest `num_turns` user turns: the unfinished one first when a user message
    /// was seen in it (as `drop_last_n_user_turns` drops it from the history).
    fn rolled_back(&mut self, num_turns: u32) {
        let mut remaining = usize::try_from(num_turns).unwrap_or(usize::MAX);
        if remaining > 0
            && self
                .active
                .as_ref()
                .is_some_and(|active| active.saw_user_message)
        {
            self.active = None;
            remaining -= 1;
        }
        let mut index = self.segments.len();
        while remaining > 0 && index > 0 {
            index -= 1;
            if matches!(self.segments.get(index), Some(Segment::UserTurn { .. })) {
                self.segments.remove(index);
                remaining -= 1;
            }
        }
    }

    fn close(&mut self, active: ActiveTurn) {
        if active.saw_user_message {
            self.segments.push(Segment::UserTurn {
                context: active.context,
                cleared: active.cleared,
            });
        } else if active.cleared {
            self.segments.push(Segment::Cleared);
        }
    }

    fn reference(mut self) -> Option<TurnContextItem> {
        if let Some(active) = self.active.take() {
            self.close(active);
        }
        let mut reference = None;
        for segment in self.segments {
            match segment {
                Segment::Cleared => reference = None,
                Segment::UserTurn { context, cleared } => {
                    if cleared {
                        reference = None;
                    }
                    if let Some(context) = context {
                        reference = Some(*context);
                    }
                }
            }
        }
        reference
    }
}

#[cfg(test)]
#[path = "recorded_session_tests.rs"]
mod tests;
