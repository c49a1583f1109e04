//! The engine over a recorded history: the files it read and wrote fed to the file observer
//! ([`ContextEngine::observe_recorded_reads`]), and compaction now, tier by tier
//! ([`ContextEngine::micro_compact_now`], [`ContextEngine::compact_tiers`],
//! [`ContextEngine::compact_offline`]), as `agentctx compact` and a resumed session use them.

use std::path::PathBuf;
use std::sync::Arc;

use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;

use super::ContextEngine;
use crate::decision::CompactReason;
use crate::host_state::HostState;

impl ContextEngine {
    /// Feeds the files `history` read and wrote ([`crate::recorded_reads`], relative paths
    /// against `cwd`) to the engine's file observer, as the file tools would have reported them
    /// live: the changed-file reminder's tracker, the restoration cache and the read ledger. A
    /// resumed session and `agentctx compact` call it once on the history they start from.
    ///
    /// A file that exists under `cwd` on this machine is taken from disk when it agrees with
    /// what the model saw (the recorded output may be numbered, cut or lose the final newline:
    /// the disk has it whole); when it does not, it changed since, and the tracker keeps what
    /// the model saw so the next request reports the change, while the cache restores the file
    /// as it is now. A file that is not on this machine is cached with the content the model
    /// last saw (a part of it with its line numbers) and not tracked: there is nothing to
    /// compare it with. Returns how many reads and writes were observed.
    pub fn observe_recorded_reads(&self, cwd: &std::path::Path, history: &[ResponseItem]) -> usize {
        let reads = crate::recorded_reads::recorded_reads(history, cwd);
        let tracker = Arc::clone(self.reminders.file_tracker());
        let cache = self.compactor.file_observer();
        let on_machine = cwd.is_dir();
        let mut on_disk: std::collections::HashMap<PathBuf, Option<(PathBuf, String)>> =
            std::collections::HashMap::new();
        for read in &reads {
            let disk = on_disk
                .entry(read.path.clone())
                .or_insert_with(|| {
                    if on_machine {
                        recorded_file_on_disk(cwd, &read.path)
                    } else {
                        None
                    }
                })
                .clone();
            let turn = read.request;
            match (disk, read.access) {
                (
                    Some((path, text)),
                    crate::recorded_reads::RecordedAccess::Read { offset, limit },
                ) => {
                    if read.agrees_with(&text) {
                        tracker.track_read(path.clone(), text.as_str(), turn, offset, limit);
                    } else if let Some(seen) = &read.content {
                        let (offset, limit) = read.seen_range();
                        tracker.track_read_with_stamp(
                            path.clone(),
                            seen.as_str(),
                            None,
                            turn,
                            offset,
                            limit,
                        );
                    }
                    cache.file_read(&path, &text, turn, offset, limit);
                }
                (Some((path, text)), crate::recorded_reads::RecordedAccess::Write) => {
                    match &read.content {
                        Some(written) if !read.agrees_with(&text) => {
                            // Changed since the model wrote it: the change is still to be shown.
                            tracker.track_read_with_stamp(
                                path.clone(),
                                written.as_str(),
                                None,
                                turn,
                                None,
                                None,
                            );
                        }
                        _ => tracker.track_write(path.clone(), text.as_str(), turn),
                    }
                    cache.file_written(&path, &text, turn);
                }
                (None, crate::recorded_reads::RecordedAccess::Read { offset, limit }) => {
                    if let Some(text) = read.cache_text() {
                        cache.file_read(&read.path, &text, turn, offset, limit);
                    }
                }
                (None, crate::recorded_reads::RecordedAccess::Write) => match &read.content {
                    Some(written) => cache.file_written(&read.path, written, turn),
                    None => self.compactor.forget_file(&read.path),
                },
            }
        }
        reads.len()
    }

    /// Micro-compaction now, whatever the request: old tool results are cleared when that saves
    /// enough, under this session's configuration (cleared results are written under the home,
    /// except in a replay). The history is cleared in place.
    pub fn micro_compact_now(
        &mut self,
    ) -> Result<crate::offline_compaction::MicroCompactNow, agentctx_compact::MicroCompactError>
    {
        use crate::offline_compaction::MicroCompactNow;
        use crate::offline_compaction::MicroCompacted;

        let tokens_before = self.history.estimate_token_count();
        match self.compactor.micro_now(&mut self.history)? {
            agentctx_compact::MicroCompactResult::Applied(outcome) => {
                self.micro_cleared = outcome.cleared_count();
                Ok(MicroCompactNow::Applied(MicroCompacted {
                    cleared: outcome.cleared_count(),
                    persisted_paths: outcome.persisted_paths,
                    tokens_before,
                    tokens_after: self.history.estimate_token_count(),
                }))
            }
            agentctx_compact::MicroCompactResult::Skipped(skip) => {
                Ok(MicroCompactNow::Skipped(skip))
            }
        }
    }

    /// [`ContextEngine::compact`] with a choice of `tiers`: the session-memory tier alone, full
    /// compaction alone, or both as a live session runs them. Installs the result as `compact`
    /// does (restoration appended, the reminder stage reset with the restored files read at
    /// request `clock`). `Err` carries why the session-memory tier did not apply when it was
    /// the only tier allowed; the history is then unchanged.
    #[expect(clippy::too_many_arguments, reason = "compact's inputs and the tiers")]
    pub async fn compact_tiers(
        &mut self,
        tiers: crate::offline_compaction::CompactionTiers,
        model: Option<&dyn ModelClient>,
        reason: CompactReason,
        initial_context: Vec<ResponseItem>,
        base_instructions: &str,
        host: &HostState,
        clock: i32,
    ) -> Result<crate::offline_compaction::TieredCompaction, String> {
        let (plan, history) = self
            .plan_compaction(tiers, reason, &initial_context, host)
            .await;
        if tiers == crate::offline_compaction::CompactionTiers::SessionMemoryOnly
            && let Some(Err(reason)) = &plan.from_memory
        {
            return Err(reason.clone());
        }
        let outcome = self
            .compactor
            .finish_compaction(plan, model, &history, initial_context, base_instructions)
            .await;
        let session_memory_skipped = outcome.session_memory_skipped.clone();
        let offline_reason = outcome.offline_reason.clone();
        Ok(crate::offline_compaction::TieredCompaction {
            compaction: self.install_compaction(outcome, reason, clock),
            session_memory_skipped,
            offline_reason,
        })
    }

    /// Compacts a recorded history now, as `agentctx compact` asks: `tier` alone, or (`Auto`)
    /// the cheapest that applies — micro-compaction, then the session-memory tier, then full
    /// compaction through `model` (offline without one). The point is between two requests
    /// (before the next turn), so no initial context is put back; the restoration is the live
    /// session's, from what the history says of the session's state (todos, plan, skills,
    /// background tasks) and the files [`ContextEngine::observe_recorded_reads`] fed.
    pub async fn compact_offline(
        &mut self,
        tier: crate::offline_compaction::OfflineTier,
        model: Option<&dyn ModelClient>,
        base_instructions: &str,
    ) -> Result<crate::offline_compaction::OfflineCompaction, agentctx_compact::MicroCompactError>
    {
        use crate::offline_compaction::CompactionTiers;
        use crate::offline_compaction::MicroCompactNow;
        use crate::offline_compaction::OfflineCompaction;
        use crate::offline_compaction::OfflineResult;
        use crate::offline_compaction::OfflineTier;
        use crate::offline_compaction::TierNotApplied;
        use agentctx_context::TokenEstimator as _;

        let tokens_before =
            agentctx_context::ApproxTokenEstimator.estimate_items(self.history.raw_items());
        let mut not_applied = Vec::new();
        let done = |not_applied, result| OfflineCompaction {
            tokens_before,
            not_applied,
            result,
        };
        if matches!(tier, OfflineTier::Auto | OfflineTier::Micro) {
            match self.micro_compact_now()? {
                MicroCompactNow::Applied(micro) => {
                    return Ok(done(not_applied, OfflineResult::Micro(micro)));
                }
                MicroCompactNow::Skipped(skip) => not_applied.push(TierNotApplied {
                    tier: OfflineTier::Micro,
                    reason: crate::offline_compaction::micro_skip_reason(skip),
                }),
            }
        }
        let tiers = match tier {
            OfflineTier::Micro => return Ok(done(not_applied, OfflineResult::Unchanged)),
            OfflineTier::Auto => CompactionTiers::SessionMemoryThenFull,
            OfflineTier::SessionMemory => CompactionTiers::SessionMemoryOnly,
            OfflineTier::Full => CompactionTiers::FullOnly,
        };
        let history = self.history.raw_items().to_vec();
        let clock = crate::recorded_reads::request_count(&history);
        self.reminders.resume_from_history(&history);
        let host = self.reminders.recorded_host_state(clock, true);
        let compacted = self
            .compact_tiers(
                tiers,
                model,
                CompactReason::Requested,
                Vec::new(),
                base_instructions,
                &host,
                clock,
            )
            .await;
        match compacted {
            Ok(compacted) => {
                if let Some(reason) = &compacted.session_memory_skipped {
                    not_applied.push(TierNotApplied {
                        tier: OfflineTier::SessionMemory,
                        reason: reason.clone(),
                    });
                }
                Ok(done(
                    not_applied,
                    OfflineResult::Compacted(Box::new(compacted)),
                ))
            }
            Err(reason) => {
                not_applied.push(TierNotApplied {
                    tier: OfflineTier::SessionMemory,
                    reason,
                });
                Ok(done(not_applied, OfflineResult::Unchanged))
            }
        }
    }
}

/// Largest file read from disk for a recorded read; a larger one is taken as the history
/// shows it.
const RECORDED_FILE_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// `path` (lexically resolved) with its content, when it is a file under `cwd` on this machine;
/// the path is the real one, as the file tools report it.
fn recorded_file_on_disk(
    cwd: &std::path::Path,
    path: &std::path::Path,
) -> Option<(PathBuf, String)> {
    if !path.starts_with(cwd) {
        return None;
    }
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > RECORDED_FILE_MAX_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    Some((real, String::from_utf8_lossy(&bytes).into_owned()))
}
