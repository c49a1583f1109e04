//! Decoding of Codex rollout lines, current envelope and legacy bare lines.

use std::borrow::Cow;
use std::collections::BTreeMap;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::SessionMetaLine;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::record::ReadEvent;
use crate::record::RecordFlags;
use crate::record::RolloutRecord;
use crate::record::SkippedLine;

/// A line in the `{timestamp, type, payload}` envelope.
pub(crate) fn decode_envelope(line_number: usize, value: Value) -> ReadEvent {
    match RolloutLine::from_value(value) {
        Ok(line) => ReadEvent::Record(RolloutRecord {
            line_number,
            line,
            flags: RecordFlags::default(),
        }),
        Err(err) => ReadEvent::Skipped(SkippedLine {
            line_number,
            reason: err.to_string(),
        }),
    }
}

/// A line of a legacy rollout: the bare session object, a bare response item, or a
/// `record_type` bookkeeping line (counted in `ignored`, not an error).
pub(crate) fn decode_legacy(
    line_number: usize,
    value: Value,
    ignored: &mut BTreeMap<String, usize>,
) -> Option<ReadEvent> {
    if let Some(record_type) = value.get("record_type") {
        let kind = record_type.as_str().unwrap_or("unknown");
        *ignored.entry(format!("record_type:{kind}")).or_default() += 1;
        return None;
    }
    let timestamp = value
        .get("timestamp")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let item = if value.get("type").is_some() {
        match ResponseItem::deserialize(value) {
            Ok(item) => RolloutItem::ResponseItem(item),
            Err(err) => {
                return Some(ReadEvent::Skipped(SkippedLine {
                    line_number,
                    reason: format!("legacy response item: {err}"),
                }));
            }
        }
    } else if value.get("id").is_some_and(Value::is_string) {
        match SessionMetaLine::deserialize(value) {
            Ok(meta) => RolloutItem::SessionMeta(meta),
            Err(err) => {
                return Some(ReadEvent::Skipped(SkippedLine {
                    line_number,
                    reason: format!("legacy session header: {err}"),
                }));
            }
        }
    } else {
        return Some(ReadEvent::Skipped(SkippedLine {
            line_number,
            reason: "legacy line with neither `type`, `record_type` nor session `id`".to_string(),
        }));
    };
    Some(ReadEvent::Record(RolloutRecord {
        line_number,
        line: RolloutLine::new(timestamp, item),
        flags: RecordFlags::default(),
    }))
}

/// The `{timestamp, type, payload}` envelope with nothing else, the payload left unparsed.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[serde(borrow)]
    timestamp: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    payload: &'a RawValue,
}

/// The fast path of [`decode_envelope`]: the payload parsed straight into its type, with no
/// `Value` tree. Taken only when it gives exactly what [`decode_envelope`] would: the envelope
/// has no field beyond the three, the kind is modelled, and the typed payload serializes back to
/// the JSON read (so nothing needs restoring on write). `None` means "use
/// [`decode_envelope`]" (unknown kinds kept verbatim, corrupt lines reported, fidelity edits).
/// See docs/design/performance.md, "Rollout reading".
pub(crate) fn decode_envelope_fast(line_number: usize, text: &[u8]) -> Option<ReadEvent> {
    let envelope: Envelope<'_> = serde_json::from_slice(text).ok()?;
    let raw = envelope.payload.get();
    let item = match envelope.kind.as_ref() {
        "response_item" => {
            let item: ResponseItem = exact(raw)?;
            // A recorded success flag moves into the output on the slow path; leave it there.
            if item_has_recorded_success(&item) {
                return None;
            }
            RolloutItem::ResponseItem(item)
        }
        "session_meta" => RolloutItem::SessionMeta(exact(raw)?),
        "compacted" => RolloutItem::Compacted(exact(raw)?),
        "turn_context" => RolloutItem::TurnContext(exact(raw)?),
        "event_msg" => RolloutItem::EventMsg(exact(raw)?),
        _ => return None,
    };
    Some(ReadEvent::Record(RolloutRecord {
        line_number,
        line: RolloutLine::new(envelope.timestamp.into_owned(), item),
        flags: RecordFlags::default(),
    }))
}

/// `raw` parsed as `T`, when `T` serializes back to `raw`: the same bytes, or else the same JSON
/// (free-form maps inside a payload are sorted, so their keys may come back in another order).
fn exact<T: serde::de::DeserializeOwned + serde::Serialize>(raw: &str) -> Option<T> {
    let typed: T = serde_json::from_str(raw).ok()?;
    let mut written = Vec::with_capacity(raw.len());
    serde_json::to_writer(&mut written, &typed).ok()?;
    if written == raw.as_bytes() {
        return Some(typed);
    }
    let read: Value = serde_json::from_str(raw).ok()?;
    let typed_value: Value = serde_json::from_slice(&written).ok()?;
    (read == typed_value).then_some(typed)
}

fn item_has_recorded_success(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::FunctionCallOutput { output, extra, .. }
        | ResponseItem::CustomToolCallOutput { output, extra, .. } => {
            output.success.is_some() || extra.contains_key("success")
        }
        _ => false,
    }
}

#[cfg(test)]
#[path = "codex_decoder_tests.rs"]
mod tests;
