//! Reading the session ahead of the replay: the file is read and the records the replay reads
//! are typed on a second thread, which hands them over in batches through a bounded channel,
//! while the engine replays the ones before (see docs/design/performance.md, "`agentctx replay`
//! through the engine").
//!
//! Reading and typing are about half of a replay's work and the engine the other half, and
//! neither needs the other's state: the reader types a record the same way whoever asks, and
//! the builder takes the records in file order either way. So with two cores the two halves
//! overlap, and on one core (or when asked) the same records are fed on the calling thread.
//!
//! The two halves are balanced by where the last step runs: the reading thread reads each line
//! and types its payload as it scans it (the bulk of the reading), and hands the records over
//! as read ([`Fed::Lazy`]); the replay's thread turns them into records ([`Fed::finish`]). With
//! that step on the reading thread, the reader was the slower half and the engine waited for it
//! about a tenth of the time (docs/design/performance.md).

use std::borrow::Cow;
use std::io::BufRead;
use std::sync::mpsc;

use agentctx_protocol::EventMsg;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::PartRead;
use agentctx_protocol::PayloadFidelity;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::TokenCountEvent;
use agentctx_protocol::TokenUsageInfo;
use agentctx_protocol::TurnContextItem;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::LazyRecord;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::RolloutRecord;
use agentctx_rollout::SkippedLine;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::replay_reads;
use crate::error::ReplayError;

/// What the reader hands the replay, in file order.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "most events are records; boxing each would add an allocation per record"
)]
pub(super) enum Fed {
    /// A record the replay reads, typed.
    Record(RolloutRecord),
    /// A record the replay reads, handed over as read: the replay's thread finishes it
    /// ([`Fed::finish`]).
    Lazy(LazyRecord),
    /// A record the replay does not read (only its place in the file matters).
    Unread,
    /// A line the reader skipped.
    Skipped(SkippedLine),
}

impl Fed {
    /// `event` as the replay reads it, finished on this thread.
    pub(super) fn of(event: LazyReadEvent) -> Self {
        match Self::handed_over(event) {
            Self::Lazy(record) => Self::Record(Self::finish(record)),
            fed => fed,
        }
    }

    /// `event` as the reading thread hands it over: a record the replay reads is left for the
    /// replay's thread to finish, an unread one is dropped here.
    pub(super) fn handed_over(event: LazyReadEvent) -> Self {
        match event {
            LazyReadEvent::Record(record) if replay_reads(&record) => Self::Lazy(record),
            LazyReadEvent::Record(_) => Self::Unread,
            LazyReadEvent::Skipped(skipped) => Self::Skipped(skipped),
        }
    }

    /// A record the replay reads, as it reads it: read in part as its line was read
    /// ([`read_in_part`]), or now (a `token_count` whose `type` does not come first), or typed
    /// in full. A `turn_context` the partial read declined is typed in full at once: read again
    /// the same way, it would be declined again.
    pub(super) fn finish(mut record: LazyRecord) -> RolloutRecord {
        let read = record
            .take_part_read_record()
            .or_else(|| token_count_read(&record));
        read.unwrap_or_else(|| record.into_read_only_record())
    }
}

/// What the replay reads of a Codex `token_count` event: its usage and the model it names. Its
/// rate limits, most of its bytes, are skipped without being built. The members whose repetition
/// makes the typed event fail (or read differently) are read too, so that a payload with any of
/// them twice fails here and is typed in full instead: this answers only where the typed event is
/// a `TokenCount` with the same usage and model.
#[derive(Deserialize)]
struct TokenCountRead {
    #[serde(rename = "type", default)]
    _tag: Option<IgnoredAny>,
    #[serde(default)]
    info: Option<TokenUsageInfo>,
    #[serde(rename = "rate_limits", default)]
    _rate_limits: Option<IgnoredAny>,
    /// Kept with the event's other fields when typed in full, where the replay looks for it.
    #[serde(default)]
    model: Option<Value>,
}

/// A Codex `token_count` record as the replay reads it ([`TokenCountRead`]): the event without
/// its rate limits and fields other than `model`. `None` for any other record, or one that does
/// not read that way (it is then typed in full).
pub(super) fn token_count_read(record: &LazyRecord) -> Option<RolloutRecord> {
    let line = record.lazy_line()?;
    if line.kind() != "event_msg" || line.payload_type() != Some("token_count") {
        return None;
    }
    let read: TokenCountRead = serde_json::from_str(line.payload_json()).ok()?;
    Some(RolloutRecord {
        line_number: record.line_number,
        line: RolloutLine {
            timestamp: line.timestamp().to_string(),
            item: read.into_item(),
            extra: line.extra().clone(),
            fidelity: PayloadFidelity::default(),
        },
        flags: record.flags,
    })
}

impl TokenCountRead {
    /// The event as the replay reads it: its usage and model.
    fn into_item(self) -> RolloutItem {
        let mut extra = ExtraFields::new();
        if let Some(model) = self.model {
            extra.insert("model".to_string(), model);
        }
        let event = TokenCountEvent {
            info: self.info,
            rate_limits: None,
            extra,
        };
        RolloutItem::EventMsg(EventMsg::TokenCount(event))
    }
}

/// What the replay reads of a Codex `turn_context`: the model, the truncation policy and the
/// tools agentctx recorded (see `SessionReplayBuilder::turn_context`). Its other settings
/// (sandbox and approval policies, reasoning effort, ...) are skipped without being built. As
/// for [`TokenCountRead`], the typed fields are read with their types and every member named
/// here is read, so that a payload the typed record reads differently fails here.
#[derive(Deserialize)]
struct TurnContextRead<'a> {
    /// A `type` member (Codex writes none): the payload's type. Not a string without escapes,
    /// it fails the read (and the record is typed in full).
    #[serde(rename = "type", default, borrow)]
    tag: Option<&'a str>,
    #[serde(default)]
    turn_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(rename = "approval_policy", default)]
    _approval_policy: Option<IgnoredAny>,
    #[serde(rename = "sandbox_policy", default)]
    _sandbox_policy: Option<IgnoredAny>,
    /// Codex's reasoning effort and summary: the requests' reasoning when agentctx recorded none
    /// of its own ([`super::recorded_reasoning`]).
    #[serde(default)]
    effort: Option<Value>,
    #[serde(default)]
    summary: Option<Value>,
    #[serde(rename = "personality", default)]
    _personality: Option<IgnoredAny>,
    #[serde(rename = "collaboration_mode", default)]
    _collaboration_mode: Option<IgnoredAny>,
    /// Kept with the record's other fields when typed in full, where the replay reads it.
    #[serde(default)]
    truncation_policy: Option<Value>,
    /// [`super::RECORDED_TOOLS_FIELD`], likewise.
    #[serde(default)]
    agentctx_tools: Option<Value>,
    /// [`super::RECORDED_REASONING_FIELD`], likewise.
    #[serde(default)]
    agentctx_reasoning: Option<Value>,
}

impl TurnContextRead<'_> {
    /// The settings as the replay reads them.
    fn into_item(self) -> RolloutItem {
        let mut extra = ExtraFields::new();
        if let Some(policy) = self.truncation_policy {
            extra.insert("truncation_policy".to_string(), policy);
        }
        if let Some(tools) = self.agentctx_tools {
            extra.insert(super::RECORDED_TOOLS_FIELD.to_string(), tools);
        }
        if let Some(reasoning) = self.agentctx_reasoning {
            extra.insert(super::RECORDED_REASONING_FIELD.to_string(), reasoning);
        }
        RolloutItem::TurnContext(TurnContextItem {
            turn_id: self.turn_id,
            cwd: self.cwd,
            model: self.model,
            effort: self.effort,
            summary: self.summary,
            extra,
            ..TurnContextItem::default()
        })
    }
}

/// The replay's [`agentctx_protocol::ReadInPart`]: a Codex `token_count` whose `type` comes first
/// ([`TokenCountRead`]) and a `turn_context` ([`TurnContextRead`]),
/// read once as the line is read. Any other payload, or one that does not read that way, is
/// read as usual (and [`token_count_read`] then tries again on the text, for a `token_count`
/// whose `type` does not come first).
pub(super) fn read_in_part<'a>(
    kind: &str,
    first_type: Option<&'a str>,
    payload: &'a str,
) -> Option<PartRead<'a>> {
    match (kind, first_type) {
        ("event_msg", Some("token_count")) => {
            // `TokenCountRead` names `type`: a second one fails the read.
            let (read, length) = first_value::<TokenCountRead>(payload)?;
            Some(PartRead {
                item: read.into_item(),
                payload_type: first_type.map(Cow::Borrowed),
                length,
            })
        }
        ("turn_context", _) => {
            let (mut read, length) = first_value::<TurnContextRead<'a>>(payload)?;
            let payload_type = read.tag.take().map(Cow::Borrowed);
            Some(PartRead {
                item: read.into_item(),
                payload_type,
                length,
            })
        }
        _ => None,
    }
}

/// The first JSON value of `text` as `T`, and the offset just after it.
fn first_value<'a, T: Deserialize<'a>>(text: &'a str) -> Option<(T, usize)> {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<T>();
    let value = values.next()?.ok()?;
    Some((value, values.byte_offset()))
}

/// Events per hand-over: enough that handing over costs little beside typing them, few enough
/// that the replay starts at once and memory stays bounded.
const BATCH: usize = 256;

/// Batches the reader may be ahead of the replay: enough to absorb the bursts of either half
/// (a run of long lines for the reader, a request with its reminders and compaction decision
/// for the engine), so that neither waits while the other catches up (with 4, the engine
/// waited 8 to 15% of the replay and the reader 2 to 8%). At most 8,192 records, a few MB.
const BATCHES_AHEAD: usize = 32;

/// Whether reading ahead on a second thread can pay: the machine has more than one core.
pub(super) fn read_ahead_pays() -> bool {
    std::thread::available_parallelism().is_ok_and(|cores| cores.get() > 1)
}

/// Feeds every event of `reader` to `feed` in file order, on the calling thread.
pub(super) fn feed_inline<R: BufRead>(
    reader: &mut RolloutReader<R>,
    mut feed: impl FnMut(Fed) -> Result<(), ReplayError>,
) -> Result<(), ReplayError> {
    for event in reader.lazy() {
        feed(Fed::of(event?))?;
    }
    Ok(())
}

/// Feeds every event of `reader` to `feed` in file order, `reader` read and typed on a scoped
/// helper thread. A read error ends the feed after the events before it, as on one thread; when
/// `feed` fails, the helper stops at its next hand-over.
pub(super) fn feed_read_ahead<R: BufRead + Send>(
    reader: &mut RolloutReader<R>,
    mut feed: impl FnMut(Fed) -> Result<(), ReplayError>,
) -> Result<(), ReplayError> {
    std::thread::scope(|scope| {
        let (sender, batches) = mpsc::sync_channel::<Result<Vec<Fed>, RolloutError>>(BATCHES_AHEAD);
        let helper = scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH);
            for event in reader.lazy() {
                match event {
                    Ok(event) => batch.push(Fed::handed_over(event)),
                    Err(err) => {
                        // The events before the error, then the error.
                        let _ = sender.send(Ok(batch));
                        let _ = sender.send(Err(err));
                        return;
                    }
                }
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    if sender.send(Ok(full)).is_err() {
                        // The replay stopped.
                        return;
                    }
                }
            }
            let _ = sender.send(Ok(batch));
        });
        let fed = batches
            .iter()
            .try_for_each(|batch| batch?.into_iter().try_for_each(&mut feed));
        // On an error the helper stops at its next hand-over, which fails once the receiver is
        // gone.
        drop(batches);
        if let Err(panic) = helper.join() {
            std::panic::resume_unwind(panic);
        }
        fed
    })
}

#[cfg(test)]
#[path = "read_ahead_tests.rs"]
mod tests;
