//! Importer of Claude Code transcripts into Codex rollout records.
//!
//! Claude Code writes one JSON record per line. The importer keeps the conversation and drops the
//! bookkeeping, by rule:
//!
//! - `user` records become `user` messages (string or block content; `image` blocks become
//!   `input_image` data URLs) and `tool_result` blocks become `function_call_output` items
//!   (`is_error` kept in `success`).
//! - Harness text is injected, not a user turn: `isMeta` records (skill bodies, command caveats),
//!   local command output, `<task-notification>`s, and slash commands that no model request
//!   followed (`/model`, `/mcp`, `/compact`) are flagged [`RecordFlags::injected`] and marked on
//!   the item itself ([`ResponseItem::set_injected`]).
//! - `assistant` records become `output_text` messages, `thinking` blocks `reasoning` items and
//!   `tool_use` blocks `function_call` items (arguments = the JSON of `input`, call id = `id`).
//!   Records of one API response (one `message.id`, else one `requestId`; one block each in
//!   Claude Code 2.x) are merged into one response, even when tool results were written between
//!   its parts (the results follow the response, as the model saw them), and the response's
//!   final `usage` (the last part's) is recorded once, as a `token_count` event whose
//!   `last_token_usage.input_tokens` is the request's occupancy (input + cache creation + cache
//!   read), with the model that answered. See docs/design/rollout-formats.md, "Claude Code
//!   transcripts".
//! - `system` records with subtype `compact_boundary` and the `isCompactSummary` user record after
//!   them become one `compacted` record whose replacement history is the summary message.
//! - `isSidechain` records are flagged [`RecordFlags::sidechain`].
//! - `attachment` records (Claude Code 2.1.x: hook context, todo and task reminders, queued
//!   commands and task notifications) become injected `user` messages with the text the model
//!   saw (`attachments`); one whose text is not known is counted as `attachment:{type}`.
//! - Every other record kind (`progress`, `file-history-snapshot`, other `system` subtypes, …) is
//!   skipped and counted by kind; new kinds never fail the import.
//! - The records form a tree (`uuid` / `parentUuid`); records on branches the user abandoned
//!   (rewound and re-prompted, or a regenerated response) are dropped and counted as
//!   `abandoned-branch` (see `conversation_tree`), once the tree is known: after a first pass
//!   over the records' heads when the file can be read twice, else at its end. Usage of
//!   abandoned requests still counts in the session total: those requests were made.

mod attachments;
mod content_blocks;
mod conversation_tree;
mod first_pass;
mod lazy_item;
mod local_commands;
mod output_check;
mod pending_items;
mod record_scan;
mod record_view;
mod usage;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::collections::VecDeque;

use agentctx_protocol::CompactedItem;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::PermissionMode;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::is_claude_code_harness_text;
use foldhash::HashSet;
use serde::Deserialize;
use serde_json::Value;

use crate::record::LazyReadEvent;
use crate::record::ReadEvent;
use crate::record::RecordFlags;
use crate::record::RolloutRecord;
use crate::record::SkippedLine;
pub(crate) use conversation_tree::ConversationTree;
use conversation_tree::RecordHead;
pub(crate) use first_pass::ReadLine;
pub(crate) use first_pass::add_head;
pub(crate) use first_pass::observe_head;
pub(crate) use first_pass::read_line;
use lazy_item::LazyBlock;
pub(crate) use lazy_item::LazyClaudeItem;
use lazy_item::LazyTokenCount;
use local_commands::LocalCommands;
use output_check::OutputCheck;
use pending_items::PendingItem;
use pending_items::push_assistant_block;
use pending_items::push_assistant_text;
use pending_items::user_part;
use record_view::Content;
use record_view::RecordView;
use record_view::as_bool;
use record_view::as_str;
use record_view::to_value;
use usage::add_usage;
use usage::usage_counts;

use crate::record::LazyRecord;

/// The `originator` written into the session header of an imported transcript.
pub const CLAUDE_CODE_ORIGINATOR: &str = "claude_code";

/// Stateful importer: merges split assistant records, pairs compact boundaries with summaries,
/// and drops the records of abandoned branches once the whole tree is known.
///
/// Which branch a record is on is only known once every record is seen (a later record can fork
/// from any earlier one). Read in one pass, the importer holds its records until
/// [`ClaudeImporter::finish`]. Read in two passes, the first gives the tree every record's head
/// ([`observe_head`]), and the second streams: each event is released as soon
/// as it is complete (see docs/design/rollout-formats.md, "Two passes over a Claude Code
/// transcript").
#[derive(Debug, Default)]
pub(crate) struct ClaudeImporter {
    tree: ConversationTree,
    /// The tree is complete (a first pass gave it every record): events stream.
    streaming: bool,
    /// The records are imported ahead of a first pass that builds the tree apart (see
    /// [`ClaudeImporter::ahead_of_first_pass`]): their heads are not added here, and their
    /// events are held until the tree is given.
    tree_apart: bool,
    /// Events not yet released, in order.
    held: Vec<HeldEvent>,
    /// Released events, held back only while a slash command before them is undecided.
    commands: LocalCommands,
    /// Uuids of the abandoned records whose events were dropped.
    dropped: HashSet<String>,
    meta_emitted: bool,
    pending_assistant: Option<PendingAssistant>,
    /// Tool results that arrived while the response that called the tools was still being
    /// written: they follow that response once it is complete.
    deferred: Vec<HeldEvent>,
    pending_boundary: Option<PendingBoundary>,
    usage_recorded: HashSet<String>,
    total_usage: TokenUsage,
}

/// An imported event and the uuid of the record it comes from (none for skipped lines and the
/// session header, which are always kept).
#[derive(Debug)]
struct HeldEvent {
    source: Option<String>,
    event: LazyReadEvent,
}

#[derive(Debug)]
struct PendingAssistant {
    source: Option<String>,
    /// What identifies the API response: `message.id`, else the record's `requestId`.
    response_id: Option<String>,
    line_number: usize,
    timestamp: String,
    flags: RecordFlags,
    items: Vec<PendingItem>,
    /// The last part's `usage`, as its JSON text.
    usage: Option<Box<str>>,
    /// The model that answered (`message.model`), kept on the response's `token_count`.
    model: Option<String>,
    /// Whether the parts' output counts grew, against what they show (see `output_check`).
    output: OutputCheck,
}

#[derive(Debug)]
struct PendingBoundary {
    source: Option<String>,
    line_number: usize,
    timestamp: String,
    flags: RecordFlags,
    metadata: ExtraFields,
}

impl ClaudeImporter {
    /// An importer for the records at the start of a transcript read in two passes, imported
    /// while the same lines' heads go into a tree apart (the first pass, see the reader's
    /// helper thread): their events are held until [`ClaudeImporter::start_streaming_with`]
    /// gives it the complete tree.
    pub(crate) fn ahead_of_first_pass() -> Self {
        Self {
            tree_apart: true,
            ..Self::default()
        }
    }

    /// Ends the first pass: the tree is resolved, and the second pass streams.
    pub(crate) fn start_streaming(&mut self) {
        self.tree.resolve();
        self.streaming = true;
    }

    /// [`ClaudeImporter::start_streaming`] with the tree a first pass built apart.
    pub(crate) fn start_streaming_with(&mut self, tree: ConversationTree) {
        self.tree = tree;
        self.tree_apart = false;
        self.start_streaming();
    }

    /// Moves the events that are complete to `out` (only while streaming; read in one pass,
    /// every event waits for [`ClaudeImporter::finish`]).
    pub(crate) fn drain_ready(&mut self, out: &mut VecDeque<LazyReadEvent>) {
        if self.streaming {
            self.release(out);
        }
    }

    /// Imports one record (a JSON object line); what it yields is held until it is complete
    /// (streaming) or until [`ClaudeImporter::finish`]. `false`, and nothing imported, when the
    /// line is not a JSON object: the caller parses it whole to say why.
    pub(crate) fn decode(
        &mut self,
        line_number: usize,
        text: &str,
        ignored: &mut BTreeMap<String, usize>,
    ) -> bool {
        let mut view = RecordView::default();
        if !view.read(text) {
            return false;
        }
        self.import(line_number, &view, ignored);
        true
    }

    /// [`ClaudeImporter::decode`] of a line read once for both passes ([`read_line`]).
    pub(crate) fn import_read(
        &mut self,
        line_number: usize,
        line: &ReadLine<'_>,
        ignored: &mut BTreeMap<String, usize>,
    ) {
        self.import(line_number, line.view(), ignored);
    }

    /// Imports the record of a view.
    fn import(
        &mut self,
        line_number: usize,
        view: &RecordView<'_>,
        ignored: &mut BTreeMap<String, usize>,
    ) {
        let Some(kind) = view.kind.and_then(as_str) else {
            self.skip(line_number, "claude code record without a string `type`");
            return;
        };
        let source = if self.streaming || self.tree_apart {
            view.uuid.and_then(as_str).map(Cow::into_owned)
        } else {
            // Read in one pass, the tree gets each head here (the head of a record is read as
            // the first pass reads it).
            let head = RecordHead::of_view(view);
            self.tree.add(&head).and(head.uuid().map(str::to_string))
        };
        if !self.meta_emitted && (kind == "user" || kind == "assistant" || kind == "system") {
            self.emit_meta(line_number, view);
        }
        match kind.as_ref() {
            "assistant" => self.assistant(line_number, source, view),
            "user" if self.pending_assistant.is_some() && holds_only_tool_results(view) => {
                // Claude Code writes a tool's result as soon as the tool ran, while later parts
                // of the same response (more calls) are still to come. The model produced the
                // whole response before any result: the results wait for it.
                let start = self.held.len();
                self.user(line_number, source, view);
                let results = self.held.split_off(start);
                self.deferred.extend(results);
            }
            "user" => {
                self.flush_assistant();
                self.user(line_number, source, view);
            }
            "attachment" => self.attachment(line_number, source, view, ignored),
            "system" => {
                let subtype = view.subtype.and_then(as_str);
                let subtype = subtype.as_deref().unwrap_or("unknown");
                if subtype == "compact_boundary" {
                    self.flush_assistant();
                    self.flush_boundary();
                    self.pending_boundary = Some(PendingBoundary {
                        source,
                        line_number,
                        timestamp: timestamp_of(view),
                        flags: flags_of(view),
                        metadata: compact_metadata(view),
                    });
                } else {
                    count(ignored, &format!("system:{subtype}"));
                }
            }
            other => count(ignored, other),
        }
    }

    /// Completes what is pending at the end of the file and pushes every event not yet
    /// released to `out`, except those of abandoned branches, which are counted in `ignored` as
    /// `abandoned-branch` (one per source record).
    pub(crate) fn finish(
        &mut self,
        out: &mut VecDeque<LazyReadEvent>,
        ignored: &mut BTreeMap<String, usize>,
    ) {
        self.flush_assistant();
        self.flush_boundary();
        if !self.streaming {
            self.tree.resolve();
        }
        self.release(out);
        self.commands.finish(out);
        if !self.dropped.is_empty() {
            tracing::debug!(
                records = self.dropped.len(),
                "dropping abandoned claude code branches"
            );
            *ignored.entry("abandoned-branch".to_string()).or_default() += self.dropped.len();
            self.dropped.clear();
        }
    }

    /// Passes the held events on to `out`, dropping those of abandoned branches (the tree must
    /// be resolved). Each goes on as soon as no command before it is undecided, so the events
    /// of the start of a transcript, all held until its first pass ended, are not queued twice.
    fn release(&mut self, out: &mut VecDeque<LazyReadEvent>) {
        for held in self.held.drain(..) {
            match held.source {
                Some(source) if self.tree.is_abandoned(&source) => {
                    self.dropped.insert(source);
                }
                Some(_) | None => {
                    self.commands.push(held.event);
                    self.commands.drain_ready(out);
                }
            }
        }
    }

    fn hold(&mut self, source: Option<String>, event: ReadEvent) {
        self.held.push(HeldEvent {
            source,
            event: LazyReadEvent::from(event),
        });
    }

    fn hold_untyped(
        &mut self,
        source: Option<String>,
        line_number: usize,
        timestamp: String,
        flags: RecordFlags,
        block: LazyBlock,
    ) {
        let item = LazyClaudeItem::new(timestamp, block);
        self.held.push(HeldEvent {
            source,
            event: LazyReadEvent::Record(LazyRecord::claude(line_number, flags, item)),
        });
    }

    fn skip(&mut self, line_number: usize, reason: &str) {
        self.hold(
            None,
            ReadEvent::Skipped(SkippedLine {
                line_number,
                reason: reason.to_string(),
            }),
        );
    }

    fn emit_meta(&mut self, line_number: usize, view: &RecordView<'_>) {
        let Some(session_id) = view.session_id.and_then(as_str) else {
            return;
        };
        self.meta_emitted = true;
        let mut extra = ExtraFields::new();
        if let Some(branch) = view.git_branch {
            extra.insert("git_branch".to_string(), to_value(branch));
        }
        let timestamp = timestamp_of(view);
        let meta = SessionMetaLine {
            id: session_id.into_owned(),
            timestamp: Some(timestamp.clone()).filter(|t| !t.is_empty()),
            cwd: view.cwd.and_then(as_str).map(Cow::into_owned),
            originator: Some(CLAUDE_CODE_ORIGINATOR.to_string()),
            cli_version: view.version.and_then(as_str).map(Cow::into_owned),
            extra,
            ..SessionMetaLine::default()
        };
        self.hold(
            None,
            record(
                line_number,
                timestamp,
                RolloutItem::SessionMeta(meta),
                RecordFlags::default(),
            ),
        );
    }

    fn user(&mut self, line_number: usize, source: Option<String>, view: &RecordView<'_>) {
        let Some(message) = &view.message else {
            self.skip(line_number, "claude code user record without `message`");
            return;
        };
        let content = &message.content;
        let timestamp = timestamp_of(view);
        let flags = flags_of(view);
        if view.is_compact_summary.and_then(as_bool) == Some(true) {
            let summary = match content {
                Some(Content::Text(text)) => text.to_string(),
                Some(Content::Blocks(blocks)) => blocks
                    .iter()
                    .filter(|block| block.is("text"))
                    .filter_map(|block| {
                        to_value(block.raw)
                            .get("text")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                Some(Content::Null | Content::Other(_)) | None => String::new(),
            };
            let boundary = self.pending_boundary.take();
            let metadata = boundary
                .map(|boundary| boundary.metadata)
                .unwrap_or_default();
            let compacted = CompactedItem {
                message: summary.clone(),
                replacement_history: Some(vec![ResponseItem::user_text(summary)]),
                extra: metadata,
            };
            self.hold(
                source,
                record(
                    line_number,
                    timestamp,
                    RolloutItem::Compacted(compacted),
                    flags,
                ),
            );
            return;
        }
        self.flush_boundary();
        let mut parts: Vec<ContentItem> = Vec::new();
        match content {
            None | Some(Content::Null) => {
                self.skip(line_number, "claude code user message without `content`");
                return;
            }
            Some(Content::Text(text)) => parts.push(ContentItem::input_text(text.to_string())),
            Some(Content::Blocks(blocks)) => {
                for block in blocks {
                    if block.is("tool_result") {
                        if let Some(event) =
                            user_parts_record(&mut parts, line_number, &timestamp, flags)
                        {
                            self.hold(source.clone(), event);
                        }
                        // The result is typed when it is read (see `lazy_item`).
                        self.hold_untyped(
                            source.clone(),
                            line_number,
                            timestamp.clone(),
                            flags,
                            LazyBlock::ToolResult(block.raw.into()),
                        );
                    } else {
                        parts.push(user_part(block));
                    }
                }
            }
            Some(Content::Other(other)) => parts.push(ContentItem::Other(other.clone())),
        }
        if let Some(event) = user_parts_record(&mut parts, line_number, &timestamp, flags) {
            self.hold(source, event);
        }
    }

    /// An `attachment` record (Claude Code 2.1.x): the context it added to the next request, as
    /// an injected user message, when what the model saw is known (see `attachments`); else it
    /// is counted in `ignored` as `attachment:{type}`. Written while a response was still being
    /// written, it follows that response and its tool results, as the model saw it.
    fn attachment(
        &mut self,
        line_number: usize,
        source: Option<String>,
        view: &RecordView<'_>,
        ignored: &mut BTreeMap<String, usize>,
    ) {
        let attachment = view.attachment.map(to_value).unwrap_or(Value::Null);
        let rendered = view.rendered.map(to_value);
        let Some(mut parts) = attachments::attachment_parts(&attachment, rendered.as_ref()) else {
            let kind = attachment
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            count(ignored, &format!("attachment:{kind}"));
            return;
        };
        let mut flags = flags_of(view);
        flags.injected = true;
        let Some(event) = user_parts_record(&mut parts, line_number, &timestamp_of(view), flags)
        else {
            return;
        };
        if self.pending_assistant.is_some() {
            self.deferred.push(HeldEvent {
                source,
                event: LazyReadEvent::from(event),
            });
        } else {
            self.hold(source, event);
        }
    }

    fn assistant(&mut self, line_number: usize, source: Option<String>, view: &RecordView<'_>) {
        let Some(message) = &view.message else {
            self.skip(
                line_number,
                "claude code assistant record without `message`",
            );
            return;
        };
        // One API response: the records share `message.id` (Claude Code 2.x writes one content
        // block per record) and `requestId`; the id of a record without `message.id` is its
        // request's.
        let response_id = message
            .id
            .or(view.request_id)
            .and_then(as_str)
            .map(Cow::into_owned);
        let continues = matches!(
            (&self.pending_assistant, &response_id),
            (Some(pending), Some(id)) if pending.response_id.as_deref() == Some(id.as_str())
        );
        if !continues {
            self.flush_assistant();
            self.flush_boundary();
        }
        let pending = self
            .pending_assistant
            .get_or_insert_with(|| PendingAssistant {
                source,
                response_id,
                line_number,
                timestamp: timestamp_of(view),
                flags: flags_of(view),
                items: Vec::new(),
                usage: None,
                model: None,
                output: OutputCheck::default(),
            });
        // Each part repeats the response's usage as it stood when the part was written; the
        // last part's is the final one (its output tokens cover the whole response).
        // Kept as text until the response is complete: only the last part's is read.
        if let Some(usage) = message.usage.filter(|usage| usage.starts_with('{')) {
            pending.output.usage(usage);
            pending.usage = Some(usage.into());
        }
        if let Some(content) = &message.content {
            pending.output.content(content);
        }
        if let Some(model) = message.model.and_then(as_str) {
            pending.model = Some(model.into_owned());
        }
        match &message.content {
            Some(Content::Text(text)) => push_assistant_text(&mut pending.items, text),
            Some(Content::Blocks(blocks)) => {
                for block in blocks {
                    if block.is("tool_use") {
                        // The call is typed when it is read (see `lazy_item`).
                        pending
                            .items
                            .push(PendingItem::Untyped(LazyBlock::ToolUse(block.raw.into())));
                    } else {
                        push_assistant_block(&mut pending.items, block);
                    }
                }
            }
            Some(Content::Null | Content::Other(_)) | None => {}
        }
    }

    fn flush_assistant(&mut self) {
        self.flush_response();
        let deferred = std::mem::take(&mut self.deferred);
        self.held.extend(deferred);
    }

    fn flush_response(&mut self) {
        let Some(pending) = self.pending_assistant.take() else {
            return;
        };
        for item in pending.items {
            match item {
                PendingItem::Typed(item) => self.hold(
                    pending.source.clone(),
                    record(
                        pending.line_number,
                        pending.timestamp.clone(),
                        RolloutItem::ResponseItem(item),
                        pending.flags,
                    ),
                ),
                PendingItem::Untyped(block) => self.hold_untyped(
                    pending.source.clone(),
                    pending.line_number,
                    pending.timestamp.clone(),
                    pending.flags,
                    block,
                ),
            }
        }
        let Some(usage) = pending.usage else {
            return;
        };
        if let Some(id) = &pending.response_id
            && !self.usage_recorded.insert(id.clone())
        {
            return;
        }
        let last = usage_counts(&usage);
        if last.input_tokens == 0 && last.output_tokens == 0 {
            return;
        }
        self.total_usage = add_usage(self.total_usage, last);
        // The event is built when the record is typed (see `lazy_item`).
        let count = LazyTokenCount {
            usage,
            last,
            total: self.total_usage,
            model: pending.model,
            output: pending.output,
        };
        self.hold_untyped(
            pending.source,
            pending.line_number,
            pending.timestamp,
            pending.flags,
            LazyBlock::TokenCount(Box::new(count)),
        );
    }

    /// A compact boundary without a summary record after it: the model saw an empty history.
    fn flush_boundary(&mut self) {
        let Some(boundary) = self.pending_boundary.take() else {
            return;
        };
        let compacted = CompactedItem {
            message: String::new(),
            replacement_history: Some(Vec::new()),
            extra: boundary.metadata,
        };
        self.hold(
            boundary.source,
            record(
                boundary.line_number,
                boundary.timestamp,
                RolloutItem::Compacted(compacted),
                boundary.flags,
            ),
        );
    }
}

/// Counts one more record of `kind` in `ignored` (allocating the key only the first time).
fn count(ignored: &mut BTreeMap<String, usize>, kind: &str) {
    match ignored.get_mut(kind) {
        Some(count) => *count += 1,
        None => {
            ignored.insert(kind.to_string(), 1);
        }
    }
}

fn record(
    line_number: usize,
    timestamp: String,
    item: RolloutItem,
    flags: RecordFlags,
) -> ReadEvent {
    ReadEvent::Record(RolloutRecord {
        line_number,
        line: RolloutLine::new(timestamp, item),
        flags,
    })
}

/// The user message of the parts gathered so far (which are taken), `None` when there are none.
/// Harness text (an `isMeta` record, local command output, a task notification) is marked
/// injected on the item itself as well as in the flags, so it stays harness text wherever the
/// item goes (a rollback or a compaction of the imported history never cuts at it).
fn user_parts_record(
    parts: &mut Vec<ContentItem>,
    line_number: usize,
    timestamp: &str,
    mut flags: RecordFlags,
) -> Option<ReadEvent> {
    if parts.is_empty() {
        return None;
    }
    let mut item = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: std::mem::take(parts),
        extra: ExtraFields::new(),
    };
    if flags.injected
        || item
            .message_text()
            .is_some_and(|text| is_claude_code_harness_text(&text))
    {
        flags.injected = true;
        item.set_injected(true);
    }
    Some(record(
        line_number,
        timestamp.to_string(),
        RolloutItem::ResponseItem(item),
        flags,
    ))
}

/// True for a `user` record whose content is tool results and nothing else.
fn holds_only_tool_results(view: &RecordView<'_>) -> bool {
    view.is_compact_summary.and_then(as_bool) != Some(true) && view.content_is_only_tool_results()
}

fn timestamp_of(view: &RecordView<'_>) -> String {
    view.timestamp
        .and_then(as_str)
        .map(Cow::into_owned)
        .unwrap_or_default()
}

fn flags_of(view: &RecordView<'_>) -> RecordFlags {
    let flag = |member: Option<&str>| member.and_then(as_bool) == Some(true);
    RecordFlags {
        injected: flag(view.is_meta),
        sidechain: flag(view.is_sidechain),
        // Unknown modes of newer releases are left out rather than guessed.
        permission_mode: view
            .permission_mode
            .and_then(|mode| PermissionMode::deserialize(&to_value(mode)).ok()),
    }
}

fn compact_metadata(view: &RecordView<'_>) -> ExtraFields {
    let mut metadata = ExtraFields::new();
    if let Some(Value::Object(fields)) = view.compact_metadata.map(to_value) {
        if let Some(trigger) = fields.get("trigger") {
            metadata.insert("trigger".to_string(), trigger.clone());
        }
        if let Some(pre_tokens) = fields.get("preTokens") {
            metadata.insert("pre_tokens".to_string(), pre_tokens.clone());
        }
    }
    metadata
}
