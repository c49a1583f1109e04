//! Phase 2: global consolidation. Takes the one global job (one transaction), syncs
//! `rollout_summaries/` and rebuilds `raw_memories.md` from the stored outputs, then runs the
//! [`Consolidator`] (INIT or INCREMENTAL) while a heartbeat renews the lease every 90 s; losing
//! the lease abandons the run without writing. The outputs are written atomically, then the
//! watermark advances, so an incremental run only sees outputs stored since. See
//! docs/design/memory.md, "Phase 2" and "Leases".

use std::path::Path;

use crate::config::MemoryConfig;
use crate::consolidator::ConsolidationInput;
use crate::consolidator::ConsolidationMode;
use crate::consolidator::ConsolidationOutput;
use crate::consolidator::Consolidator;
use crate::error::MemoryError;
use crate::state_db::GLOBAL_JOB_KEY;
use crate::state_db::GlobalClaimOutcome;
use crate::state_db::JOB_KIND_CONSOLIDATE_GLOBAL;
use crate::state_db::StateDb;
use crate::storage::MEMORY_FILE;
use crate::storage::MEMORY_SUMMARY_FILE;
use crate::storage::SKILLS_DIR;
use crate::storage::memory_root;
use crate::storage::read_optional;
use crate::storage::rebuild_raw_memories;
use crate::storage::remove_consolidated;
use crate::storage::sync_rollout_summaries;
use crate::storage::write_if_changed;
use agentctx_atomic_file::remove_stale_temp_files;

/// What one phase-2 run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase2Outcome {
    /// Nothing new since the last consolidation.
    SkippedNotDirty,
    /// Another worker is consolidating.
    SkippedRunning,
    /// The last run failed recently; tried again after the retry delay.
    SkippedRetryBackoff,
    /// No outputs at all: the consolidated files were removed.
    NoInput,
    /// Consolidated.
    Consolidated {
        /// INIT or INCREMENTAL.
        mode: ConsolidationMode,
        /// Outputs new to this consolidation.
        new_outputs: usize,
        /// The watermark reached.
        watermark: i64,
    },
    /// The consolidator failed; retried after the delay.
    Failed(String),
    /// The lease was lost (heartbeat failed); nothing was written.
    LostOwnership,
}

/// Runs phase 2 once.
pub async fn run_phase2(
    db: &StateDb,
    config: &MemoryConfig,
    consolidator: &dyn Consolidator,
) -> Result<Phase2Outcome, MemoryError> {
    let claim = db
        .try_claim_global_job(
            &config.worker_id,
            config.phase2_lease_seconds,
            config.clock.now(),
        )
        .await?;
    let (token, input_watermark, last_watermark) = match claim {
        GlobalClaimOutcome::Claimed {
            ownership_token,
            input_watermark,
            last_success_watermark,
        } => (ownership_token, input_watermark, last_success_watermark),
        GlobalClaimOutcome::SkippedNotDirty => return Ok(Phase2Outcome::SkippedNotDirty),
        GlobalClaimOutcome::SkippedRunning => return Ok(Phase2Outcome::SkippedRunning),
        GlobalClaimOutcome::SkippedRetryBackoff => return Ok(Phase2Outcome::SkippedRetryBackoff),
    };
    let result = consolidate_owned(
        db,
        config,
        consolidator,
        &token,
        input_watermark,
        last_watermark,
    )
    .await;
    match result {
        Ok(outcome) => Ok(outcome),
        Err(MemoryError::LostOwnership { .. }) => Ok(Phase2Outcome::LostOwnership),
        Err(error) => {
            let reason = error.to_string();
            tracing::warn!(%reason, "memory consolidation failed; retried later");
            db.mark_global_job_failed(
                &token,
                &reason,
                config.phase2_retry_delay_seconds,
                config.clock.now(),
            )
            .await?;
            Ok(Phase2Outcome::Failed(reason))
        }
    }
}

async fn consolidate_owned(
    db: &StateDb,
    config: &MemoryConfig,
    consolidator: &dyn Consolidator,
    token: &str,
    input_watermark: i64,
    last_watermark: i64,
) -> Result<Phase2Outcome, MemoryError> {
    let root = memory_root(&config.home);
    std::fs::create_dir_all(&root).map_err(|source| MemoryError::Io {
        action: "cannot create",
        path: root.clone(),
        source,
    })?;
    let stale = remove_stale_temp_files(&root);
    if stale > 0 {
        tracing::info!(stale, "removed temp files an interrupted run left");
    }
    let outputs = db
        .list_outputs(config.max_raw_memories_for_consolidation)
        .await?;
    let watermark = outputs
        .iter()
        .map(|output| output.seq)
        .max()
        .unwrap_or(0)
        .max(input_watermark);
    sync_rollout_summaries(&root, &outputs)?;
    rebuild_raw_memories(&root, &outputs)?;
    if outputs.is_empty() {
        remove_consolidated(&root)?;
        return finish(db, config, token, watermark, Phase2Outcome::NoInput).await;
    }
    let current_memory = read_optional(&root.join(MEMORY_FILE))?;
    let mode = if last_watermark == 0 || current_memory.is_none() {
        ConsolidationMode::Init
    } else {
        ConsolidationMode::Incremental
    };
    let new_outputs: Vec<_> = match mode {
        ConsolidationMode::Init => outputs.clone(),
        ConsolidationMode::Incremental => outputs
            .iter()
            .filter(|output| output.seq > last_watermark)
            .cloned()
            .collect(),
    };
    let input = ConsolidationInput {
        mode,
        memory_root: root.clone(),
        new_outputs,
        all_outputs: outputs,
        current_memory,
        current_summary: read_optional(&root.join(MEMORY_SUMMARY_FILE))?,
    };
    let output = tokio::select! {
        output = consolidator.consolidate(&input) => output?,
        lost = heartbeat_until_lost(db, config, token) => return Err(lost),
    };
    // A last check before writing: a worker whose lease ran out must not overwrite the files
    // of the one that took over.
    if !db
        .heartbeat_global_job(token, config.phase2_lease_seconds, config.clock.now())
        .await?
    {
        return Err(lost_ownership());
    }
    write_outputs(&root, &output)?;
    let outcome = Phase2Outcome::Consolidated {
        mode,
        new_outputs: input.new_outputs.len(),
        watermark,
    };
    finish(db, config, token, watermark, outcome).await
}

async fn finish(
    db: &StateDb,
    config: &MemoryConfig,
    token: &str,
    watermark: i64,
    outcome: Phase2Outcome,
) -> Result<Phase2Outcome, MemoryError> {
    if db
        .mark_global_job_succeeded(token, watermark, config.clock.now())
        .await?
    {
        Ok(outcome)
    } else {
        Ok(Phase2Outcome::LostOwnership)
    }
}

/// Renews the lease every heartbeat interval; returns once the lease is lost (or the database
/// fails), never otherwise.
async fn heartbeat_until_lost(db: &StateDb, config: &MemoryConfig, token: &str) -> MemoryError {
    let mut interval = tokio::time::interval(config.phase2_heartbeat);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick completes at once; the claim has just set the lease.
    interval.tick().await;
    loop {
        interval.tick().await;
        match db
            .heartbeat_global_job(token, config.phase2_lease_seconds, config.clock.now())
            .await
        {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!("memory consolidation lost its lease; abandoning the run");
                return lost_ownership();
            }
            Err(error) => return error,
        }
    }
}

fn lost_ownership() -> MemoryError {
    MemoryError::LostOwnership {
        kind: JOB_KIND_CONSOLIDATE_GLOBAL,
        key: GLOBAL_JOB_KEY.to_string(),
    }
}

fn write_outputs(root: &Path, output: &ConsolidationOutput) -> Result<(), MemoryError> {
    if let Some(memory) = &output.memory_md {
        write_if_changed(&root.join(MEMORY_FILE), memory)?;
    }
    if let Some(summary) = &output.memory_summary {
        write_if_changed(&root.join(MEMORY_SUMMARY_FILE), summary)?;
    }
    for skill in &output.skills {
        let path = root.join(SKILLS_DIR).join(&skill.name).join("SKILL.md");
        write_if_changed(&path, &skill.content)?;
    }
    Ok(())
}
