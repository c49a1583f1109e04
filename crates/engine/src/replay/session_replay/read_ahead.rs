//! Reading the session ahead of the replay: the file is read and the records the replay reads
//! are typed on a second thread, which hands them over in batches through a bounded channel,
//! while the engine replays the ones before (see docs/design/performance.md, "`agentctx replay`
//! through the engine").
//!
//! Reading and typing are about half of a replay's work and the engine the other half, and
//! neither needs the other's state: the reader types a record the same way whoever asks, and
//! the builder takes the records in file order either way. So with two cores the two halves
//! overlap, and on one core (or when asked) the same records are fed on the calling thread.

use std::io::BufRead;
use std::sync::mpsc;

use agentctx_protocol::EventMsg;
use agentctx_protocol::ExtraFields;
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
    /// A record the replay does not read (only its place in the file matters).
    Unread,
    /// A line the reader skipped.
    Skipped(SkippedLine),
}

impl Fed {
    pub(super) fn of(event: LazyReadEvent) -> Self {
        match event {
            LazyReadEvent::Record(record) if replay_reads(&record) => {
                let read = token_count_read(&record).or_else(|| turn_context_read(&record));
                Self::Record(read.unwrap_or_else(|| record.into_read_only_record()))
            }
            LazyReadEvent::Record(_) => Self::Unread,
            LazyReadEvent::Skipped(skipped) => Self::Skipped(skipped),
        }
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
    let mut extra = ExtraFields::new();
    if let Some(model) = read.model {
        extra.insert("model".to_string(), model);
    }
    let event = TokenCountEvent {
        info: read.info,
        rate_limits: None,
        extra,
    };
    Some(RolloutRecord {
        line_number: record.line_number,
        line: RolloutLine {
            timestamp: line.timestamp().to_string(),
            item: RolloutItem::EventMsg(EventMsg::TokenCount(event)),
            extra: line.extra().clone(),
            fidelity: PayloadFidelity::default(),
        },
        flags: record.flags,
    })
}

/// What the replay reads of a Codex `turn_context`: the model, the truncation policy and the
/// tools agentctx recorded (see `SessionReplayBuilder::turn_context`). Its other settings
/// (sandbox and approval policies, reasoning effort, ...) are skipped without being built. As
/// for [`TokenCountRead`], the typed fields are read with their types and every member named
/// here is read, so that a payload the typed record reads differently fails here.
#[derive(Deserialize)]
struct TurnContextRead {
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

/// A Codex `turn_context` record as the replay reads it ([`TurnContextRead`]). `None` for any
/// other record, or one that does not read that way (it is then typed in full).
pub(super) fn turn_context_read(record: &LazyRecord) -> Option<RolloutRecord> {
    let line = record.lazy_line()?;
    if line.kind() != "turn_context" {
        return None;
    }
    let read: TurnContextRead = serde_json::from_str(line.payload_json()).ok()?;
    let mut extra = ExtraFields::new();
    if let Some(policy) = read.truncation_policy {
        extra.insert("truncation_policy".to_string(), policy);
    }
    if let Some(tools) = read.agentctx_tools {
        extra.insert(super::RECORDED_TOOLS_FIELD.to_string(), tools);
    }
    if let Some(reasoning) = read.agentctx_reasoning {
        extra.insert(super::RECORDED_REASONING_FIELD.to_string(), reasoning);
    }
    let context = TurnContextItem {
        turn_id: read.turn_id,
        cwd: read.cwd,
        model: read.model,
        effort: read.effort,
        summary: read.summary,
        extra,
        ..TurnContextItem::default()
    };
    Some(RolloutRecord {
        line_number: record.line_number,
        line: RolloutLine {
            timestamp: line.timestamp().to_string(),
            item: RolloutItem::TurnContext(context),
            extra: line.extra().clone(),
            fidelity: PayloadFidelity::default(),
        },
        flags: record.flags,
    })
}

/// Events per hand-over: enough that handing over costs little beside typing them, few enough
/// that the replay starts at once and memory stays bounded.
const BATCH: usize = 256;

/// Batches the reader may be ahead of the replay.
const BATCHES_AHEAD: usize = 4;

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
                    Ok(event) => batch.push(Fed::of(event)),
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
