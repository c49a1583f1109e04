//! The engine where a recorded session compacted: the replay of the session up to its `n`th
//! recorded compaction, stopped before that compaction is installed, with the decision the
//! engine takes there (`agentctx compact --at-compaction N`). Compacting it runs the compaction
//! a live session under the same configuration would run at that point: the same reason (before
//! the turn, in its middle, against the blocking limit), the same measure, the same tiers.

use std::path::Path;

use agentctx_model::ModelClient;

use super::SessionReplayBuilder;
use super::read_ahead;
use crate::context_engine::ContextEngine;
use crate::decision::CompactReason;
use crate::decision::Decision;
use crate::error::ReplayError;
use crate::host_state::HostState;
use crate::offline_compaction::CompactionTiers;
use crate::offline_compaction::TieredCompaction;
use crate::replay::replay_report::ReplayOptions;

/// The engine of a replay stopped where the session recorded a compaction.
#[derive(Debug)]
pub struct EngineAtCompaction {
    /// The engine, its history as the session's was just before the compaction.
    pub engine: ContextEngine,
    /// The decision due there (`None` where none is: a session whose first line is a
    /// compaction).
    pub decision: Option<Decision>,
    /// The instructions the session's requests sent.
    pub instructions: String,
    /// The host's state the history implies there (todos, plan mode, background tasks).
    pub host: HostState,
    /// The request clock there.
    pub clock: i32,
    /// Model requests replayed before the compaction.
    pub requests: usize,
}

impl EngineAtCompaction {
    /// Why the engine compacts here: the reason of its decision, or, where it would not have
    /// compacted (the recording agent compacted by another policy, or the user asked),
    /// [`CompactReason::Requested`], as a user's `/compact` there would.
    pub fn reason(&self) -> CompactReason {
        self.decision
            .as_ref()
            .and_then(Decision::compact_reason)
            .unwrap_or(CompactReason::Requested)
    }

    /// Runs the compaction the engine takes here (the session-memory tier, else full
    /// compaction: its summary by `model`, or offline without one) and installs it.
    ///
    /// # Errors
    ///
    /// Why no tier could compact (the history holds nothing to summarise).
    pub async fn compact(
        &mut self,
        model: Option<&dyn ModelClient>,
    ) -> Result<TieredCompaction, String> {
        let reason = self.reason();
        // A mid-turn compaction puts the initial context back, as the live session's did.
        let initial = self.engine.initial_context().to_vec();
        self.engine
            .compact_tiers(
                CompactionTiers::SessionMemoryThenFull,
                model,
                reason,
                initial,
                &self.instructions,
                &self.host,
                self.clock,
            )
            .await
    }
}

/// Replays the session at `path` up to its `n`th recorded compaction (1-based) and stops there,
/// before installing it.
///
/// # Errors
///
/// [`ReplayError::Rollout`] when the file cannot be read, [`ReplayError::NoSuchCompaction`] when
/// it records fewer than `n` compactions.
pub fn engine_at_compaction(
    path: &Path,
    n: usize,
    options: &ReplayOptions,
) -> Result<EngineAtCompaction, ReplayError> {
    let reader = agentctx_rollout::RolloutReader::open(path).map_err(ReplayError::Rollout)?;
    let mut reader = reader
        .typing_as_read(super::replay_types)
        .reading_in_part(read_ahead::read_in_part);
    let mut builder = SessionReplayBuilder::new(
        ReplayOptions {
            // Nothing after the stop is replayed: no compaction's survival is checked.
            survival: false,
            ..options.clone()
        },
        None,
    );
    builder.stop_before_compaction = Some(n);
    read_ahead::feed_inline(&mut reader, |fed| builder.feed(fed))?;
    match builder.stopped.take() {
        Some(stopped) => Ok(*stopped),
        None => Err(ReplayError::NoSuchCompaction {
            requested: n,
            recorded: builder.compactions,
        }),
    }
}

#[cfg(test)]
#[path = "at_compaction_tests.rs"]
mod tests;
