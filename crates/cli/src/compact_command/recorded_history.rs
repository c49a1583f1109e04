//! The history a recorded session had at a chosen point, as items: what `agentctx compact`
//! compacts.
//!
//! `replay` only keeps sizes (see `replay_command/prompt_history.rs`); compaction needs the
//! items themselves, so this rebuilds them the way codex rebuilds a history from its rollout:
//! main-thread items in file order, a recorded compaction replaced by its replacement history
//! (or, when the session did not record one, by the newest user messages within 20,000 tokens
//! and the summary), a rollback dropping the last user turns.

use std::io::BufRead;

use agentctx_compact::CarriedItems;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::build_compacted_history;
use agentctx_compact::collect_user_message_texts;
use agentctx_protocol::CompactedItem;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::RolloutRecord;
use agentctx_rollout::SkippedLine;

/// Where to stop reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopPoint {
    /// The end of the file.
    End,
    /// Just before the N-th (1-based) compaction the session recorded.
    BeforeCompaction(usize),
    /// After line L (1-based) of the file.
    AfterLine(usize),
}

/// The history rebuilt up to a [`StopPoint`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecordedHistory {
    /// The main thread's items, as the next request would send them.
    pub(crate) items: Vec<ResponseItem>,
    /// The session id from the header.
    pub(crate) session_id: Option<String>,
    /// The base instructions from the header, when recorded.
    pub(crate) base_instructions: Option<String>,
    /// Compactions the session recorded before the stop point.
    pub(crate) compactions_applied: usize,
    /// Compactions in the whole file (known only when the file was read to its end).
    pub(crate) compactions_in_file: Option<usize>,
    /// The last line read.
    pub(crate) last_line: usize,
    /// Lines that could not be read.
    pub(crate) skipped: Vec<SkippedLine>,
    /// The file's format.
    pub(crate) format: Option<RolloutFormat>,
}

/// Reads `reader` up to `stop`.
pub(crate) fn read_history<R: BufRead>(
    mut reader: RolloutReader<R>,
    stop: StopPoint,
) -> Result<RecordedHistory, RolloutError> {
    let mut builder = Builder::default();
    let mut stopped = false;
    for event in reader.by_ref() {
        let record = match event? {
            ReadEvent::Record(record) => record,
            ReadEvent::Skipped(skipped) => {
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
        if let StopPoint::BeforeCompaction(n) = stop
            && builder.is_main_compaction(&record)
            && builder.compactions + 1 == n
        {
            builder.last_line = record.line_number.saturating_sub(1);
            stopped = true;
            break;
        }
        builder.observe(&record);
    }
    let format = reader.format();
    if format.is_none() {
        return Err(RolloutError::UnrecognizedFormat {
            path: reader.path().to_path_buf(),
            lines: reader.lines_read(),
        });
    }
    Ok(RecordedHistory {
        compactions_applied: builder.compactions,
        compactions_in_file: (!stopped).then_some(builder.compactions),
        items: builder.items,
        session_id: builder.session_id,
        base_instructions: builder.base_instructions,
        last_line: builder.last_line,
        skipped: builder.skipped,
        format,
    })
}

#[derive(Debug, Default)]
struct Builder {
    items: Vec<ResponseItem>,
    /// Whether the main thread is the sidechain one (a transcript of a sub-agent alone), decided
    /// by the first item, as `replay` does.
    main_is_sidechain: Option<bool>,
    session_id: Option<String>,
    base_instructions: Option<String>,
    compactions: usize,
    last_line: usize,
    skipped: Vec<SkippedLine>,
}

impl Builder {
    fn is_main(&self, record: &RolloutRecord) -> bool {
        match self.main_is_sidechain {
            Some(main) => main == record.flags.sidechain,
            None => !record.flags.sidechain,
        }
    }

    fn is_main_compaction(&self, record: &RolloutRecord) -> bool {
        matches!(record.line.item, RolloutItem::Compacted(_)) && self.is_main(record)
    }

    fn observe(&mut self, record: &RolloutRecord) {
        self.last_line = record.line_number;
        match &record.line.item {
            RolloutItem::SessionMeta(meta) => {
                if self.session_id.is_none() && !meta.id.is_empty() {
                    self.session_id = Some(meta.id.clone());
                }
                if self.base_instructions.is_none() {
                    self.base_instructions = meta
                        .extra
                        .get("base_instructions")
                        .and_then(|value| value.get("text"))
                        .or_else(|| meta.extra.get("instructions"))
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_string);
                }
            }
            RolloutItem::ResponseItem(item) => {
                if self.main_is_sidechain.is_none() {
                    self.main_is_sidechain = Some(record.flags.sidechain);
                }
                if self.is_main(record) {
                    let mut item = item.clone();
                    if record.flags.injected {
                        item.set_injected(true);
                    }
                    self.items.push(item);
                }
            }
            RolloutItem::Compacted(compacted) => {
                if self.is_main(record) {
                    self.compact(compacted);
                }
            }
            RolloutItem::EventMsg(EventMsg::ThreadRolledBack(event)) => {
                if self.is_main(record) {
                    self.drop_last_user_turns(event.num_turns);
                }
            }
            RolloutItem::EventMsg(_)
            | RolloutItem::TurnContext(_)
            | RolloutItem::Unknown { .. } => {}
        }
    }

    /// Applies a recorded compaction: its replacement history when the session recorded one,
    /// else codex's rebuild from the user messages and the summary.
    fn compact(&mut self, compacted: &CompactedItem) {
        self.compactions += 1;
        self.items = match &compacted.replacement_history {
            Some(items) => items.clone(),
            None => {
                let old = std::mem::take(&mut self.items);
                // Model-switch messages and ghost snapshots of the recorded history are not
                // carried here: this rebuild only mirrors what the session itself continued
                // with, and codex's own rebuild does not carry them either.
                build_compacted_history(
                    Vec::new(),
                    &collect_user_message_texts(&old),
                    &compacted.message,
                    InitialContextInjection::DoNotInject,
                    CarriedItems::default(),
                )
            }
        };
    }

    /// Drops the last `num_turns` user turns (a turn starts at a message the user typed).
    fn drop_last_user_turns(&mut self, num_turns: u32) {
        let starts: Vec<usize> = self
            .items
            .iter()
            .enumerate()
            .filter(|(_, item)| item.role() == Some("user") && !item.is_injected())
            .map(|(index, _)| index)
            .collect();
        let from_end = usize::try_from(num_turns).unwrap_or(usize::MAX);
        if from_end == 0 {
            return;
        }
        let cut = starts
            .len()
            .checked_sub(from_end)
            .and_then(|index| starts.get(index))
            .or(starts.first())
            .copied();
        if let Some(cut) = cut {
            self.items.truncate(cut);
        }
    }
}

#[cfg(test)]
#[path = "recorded_history_tests.rs"]
mod tests;
