//! The survival probes of a replay's compactions, the session's own and those our policy takes:
//! the replay feeds the recorded items of the main thread and says where each compaction stands;
//! a compaction's probes are checked once what the session did after it is closed: by the
//! session's next compaction (which replaced the context either kind left), by our next one
//! for ours (the session's context went on without it), or by the end of the session.
//!
//! The history before a point is the one the compaction replaced: for a recorded compaction the
//! recorded history since the session's previous compaction (starting with that one's compacted
//! context); for ours, our compacted context of our previous compaction (or the recorded
//! history) followed by the recorded items since. Every item is in one window of each kind, so
//! the work over a session is linear in its length.

use std::path::Path;

use agentctx_protocol::ResponseItem;

use super::CompactionSource;
use super::CompactionSurvival;
use super::SurvivalProbes;

/// A compaction whose "after" is still being recorded.
#[derive(Debug)]
struct Pending {
    source: CompactionSource,
    number: usize,
    turn: Option<usize>,
    after_request: usize,
    before: Vec<ResponseItem>,
    compacted: Vec<ResponseItem>,
    /// Where its "after" starts in the recorded window.
    after_start: usize,
    /// Its place among the compactions of the replay.
    order: usize,
}

/// The probes of a replay's compactions, gathered as the replay goes.
#[derive(Debug, Default)]
pub(crate) struct SurvivalTracker {
    /// The recorded history since the last recorded compaction (its compacted context first).
    recorded: Vec<ResponseItem>,
    /// Our compacted context of our last compaction since then, and where in `recorded` the
    /// items after it start: our history is `ours ++ recorded[ours_from..]`. `None`: ours is the
    /// recorded one.
    ours: Option<(Vec<ResponseItem>, usize)>,
    /// The compactions whose "after" is open: at most one of each source.
    pending: Vec<Pending>,
    recorded_count: usize,
    our_count: usize,
    /// The compactions checked, with their place.
    done: Vec<(usize, CompactionSurvival)>,
}

impl SurvivalTracker {
    /// A recorded item of the main thread.
    pub(crate) fn item(&mut self, item: &ResponseItem) {
        self.recorded.push(item.clone());
    }

    /// The session compacted here; `compacted` is the history it recorded in place of the old.
    pub(crate) fn recorded_compaction(
        &mut self,
        compacted: &[ResponseItem],
        turn: Option<usize>,
        after_request: usize,
        cwd: &Path,
    ) {
        self.close(cwd, |_| true);
        self.recorded_count += 1;
        let before = std::mem::replace(&mut self.recorded, compacted.to_vec());
        self.ours = None;
        let order = self.recorded_count + self.our_count;
        self.pending.push(Pending {
            source: CompactionSource::Recorded,
            number: self.recorded_count,
            turn,
            after_request,
            before,
            compacted: compacted.to_vec(),
            after_start: self.recorded.len(),
            order,
        });
    }

    /// Our policy compacted here; `compacted` is our history after it.
    pub(crate) fn our_compaction(
        &mut self,
        compacted: &[ResponseItem],
        turn: Option<usize>,
        after_request: usize,
        cwd: &Path,
    ) {
        self.close(cwd, |source| source == CompactionSource::Ours);
        self.our_count += 1;
        let before = match self.ours.take() {
            Some((mut ours, from)) => {
                ours.extend_from_slice(self.recorded.get(from..).unwrap_or_default());
                ours
            }
            None => self.recorded.clone(),
        };
        self.ours = Some((compacted.to_vec(), self.recorded.len()));
        let order = self.recorded_count + self.our_count;
        self.pending.push(Pending {
            source: CompactionSource::Ours,
            number: self.our_count,
            turn,
            after_request,
            before,
            compacted: compacted.to_vec(),
            after_start: self.recorded.len(),
            order,
        });
    }

    /// The survival of every compaction, in the order they happened.
    pub(crate) fn finish(mut self, cwd: &Path) -> Vec<CompactionSurvival> {
        self.close(cwd, |_| true);
        self.done.sort_by_key(|(order, _)| *order);
        self.done
            .into_iter()
            .map(|(_, survival)| survival)
            .collect()
    }

    /// Checks the pending compactions of the sources `closes` takes against what the session
    /// did since each.
    fn close(&mut self, cwd: &Path, closes: impl Fn(CompactionSource) -> bool) {
        let (closed, open): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|pending| closes(pending.source));
        self.pending = open;
        for pending in closed {
            let after = self.recorded.get(pending.after_start..).unwrap_or_default();
            let probes = SurvivalProbes::extract(&pending.before, after, cwd);
            self.done.push((
                pending.order,
                CompactionSurvival {
                    source: pending.source,
                    number: pending.number,
                    turn: pending.turn,
                    after_request: pending.after_request,
                    survival: probes.check(&pending.compacted),
                },
            ));
        }
    }
}

#[cfg(test)]
#[path = "replay_tracker_tests.rs"]
mod tests;
