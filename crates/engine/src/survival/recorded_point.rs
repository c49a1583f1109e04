//! A compaction point of a recorded session, read from its file: the history before it, the
//! compacted context the session recorded there (when it compacted there), and what it recorded
//! after it, up to its next compaction or its end. Each part is the history
//! [`read_recorded_session`] rebuilds, so the probes see what `agentctx compact` compacts.

use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutReader;

use crate::recorded_session::RecordedSession;
use crate::recorded_session::StopPoint;
use crate::recorded_session::read_recorded_session;

/// The three histories of a compaction point.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPoint {
    /// The history just before the point.
    pub before: Vec<ResponseItem>,
    /// The compacted context the session recorded at the point (its replacement history, or
    /// codex's rebuild when it recorded none); `None` where the session did not compact.
    pub recorded: Option<Vec<ResponseItem>>,
    /// What the session recorded after the point, to its next compaction or its end.
    pub after: Vec<ResponseItem>,
    /// The session's working directory (empty when it records none).
    pub cwd: PathBuf,
}

/// The point `stop` of the session at `path`: before its N-th compaction
/// ([`StopPoint::BeforeCompaction`]), after a line, or at its end (nothing after it).
///
/// # Errors
///
/// When the file cannot be read or is no session ([`read_recorded_session`]).
pub fn compaction_point(path: &Path, stop: StopPoint) -> Result<CompactionPoint, RolloutError> {
    let read = |stop| read_recorded_session(RolloutReader::open(path)?, stop);
    let before = read(stop)?;
    let cwd = before.cwd.clone().unwrap_or_default();
    let (recorded, next) = match stop {
        StopPoint::End => {
            return Ok(CompactionPoint {
                before: before.items,
                recorded: None,
                after: Vec::new(),
                cwd,
            });
        }
        StopPoint::BeforeCompaction(n) => {
            if before.compactions_in_file.is_some() {
                // The file records fewer compactions: the point is its end.
                return Ok(CompactionPoint {
                    before: before.items,
                    recorded: None,
                    after: Vec::new(),
                    cwd,
                });
            }
            // The compaction is the line after the last one read.
            let compacted = read(StopPoint::AfterLine(before.last_line.saturating_add(1)))?;
            (Some(compacted.items), n.saturating_add(1))
        }
        StopPoint::AfterLine(_) => (None, before.compactions_applied.saturating_add(1)),
    };
    let until = read(StopPoint::BeforeCompaction(next))?;
    let start = recorded.as_ref().unwrap_or(&before.items);
    let after = later_items(start, &until);
    Ok(CompactionPoint {
        before: before.items,
        recorded,
        after,
        cwd,
    })
}

/// The items `until` holds beyond `start`, when `start` is how its history began (a rollback
/// across the point leaves nothing that can be told to come after it).
fn later_items(start: &[ResponseItem], until: &RecordedSession) -> Vec<ResponseItem> {
    match until.items.get(..start.len()) {
        Some(prefix) if prefix == start => {
            until.items.get(start.len()..).unwrap_or_default().to_vec()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
#[path = "recorded_point_tests.rs"]
mod tests;
