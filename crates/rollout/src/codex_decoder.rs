//! Decoding of legacy Codex rollout lines (bare items); lines in the current envelope are read
//! lazily ([`agentctx_protocol::LazyRolloutLine`]).

use std::collections::BTreeMap;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::RolloutLine;
use agentctx_protocol::SessionMetaLine;
use serde::Deserialize;
use serde_json::Value;

use crate::record::ReadEvent;
use crate::record::RecordFlags;
use crate::record::RolloutRecord;
use crate::record::SkippedLine;

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
