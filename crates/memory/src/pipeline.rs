//! The whole pipeline as a host runs it: record the session files as threads, phase 1, then
//! phase 2; [`start_memory_pipeline`] spawns it in the background at session start and returns
//! at once. See docs/design/memory.md, "Running it".

use std::path::PathBuf;
use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::config::MemoryConfig;
use crate::consolidator::Consolidator;
use crate::error::MemoryError;
use crate::phase1::Extractor;
use crate::phase1::Phase1Report;
use crate::phase1::run_phase1;
use crate::phase2::Phase2Outcome;
use crate::phase2::run_phase2;
use crate::state_db::StateDb;
use crate::thread_sync::SyncReport;
use crate::thread_sync::sync_threads;

/// How many more consolidations a run makes when outputs arrived during its own.
const PHASE2_CATCH_UP_ROUNDS: usize = 2;

/// What to run the pipeline with.
#[derive(Clone)]
pub struct MemoryPipeline {
    /// Settings.
    pub config: MemoryConfig,
    /// Session folders whose files are recorded as threads before phase 1 (Codex `sessions/`
    /// trees, Claude Code `projects/` folders); missing ones are skipped.
    pub session_roots: Vec<PathBuf>,
    /// Phase 1's extractor.
    pub extractor: Extractor,
    /// Phase 2's consolidator.
    pub consolidator: Arc<dyn Consolidator>,
}

/// What one pipeline run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineReport {
    /// The thread sync.
    pub sync: SyncReport,
    /// Phase 1.
    pub phase1: Phase1Report,
    /// Phase 2.
    pub phase2: Phase2Outcome,
}

impl MemoryPipeline {
    /// Records threads, runs phase 1 once (up to `max_rollouts_per_startup` claims), then
    /// phase 2.
    pub async fn run_once(&self) -> Result<PipelineReport, MemoryError> {
        let db = StateDb::open(&self.config.home).await?;
        let result = self.run_with(&db).await;
        db.close().await;
        result
    }

    /// [`Self::run_once`] on an open database.
    pub async fn run_with(&self, db: &StateDb) -> Result<PipelineReport, MemoryError> {
        let sync = sync_threads(db, &self.session_roots).await?;
        let phase1 = run_phase1(db, &self.config, &self.extractor).await?;
        let mut phase2 = run_phase2(db, &self.config, self.consolidator.as_ref()).await?;
        // Outputs another process stored while this one consolidated found the global job
        // taken (`SkippedRunning`) and were left for later: the holder looks again before it
        // lets go, so the last consolidation covers them (bounded; normally the second look
        // finds nothing new).
        for _ in 0..PHASE2_CATCH_UP_ROUNDS {
            if !matches!(phase2, Phase2Outcome::Consolidated { .. }) {
                break;
            }
            match run_phase2(db, &self.config, self.consolidator.as_ref()).await? {
                again @ Phase2Outcome::Consolidated { .. } => phase2 = again,
                _ => break,
            }
        }
        Ok(PipelineReport {
            sync,
            phase1,
            phase2,
        })
    }
}

/// The background run started at session start.
#[derive(Debug)]
pub struct MemoryStartup {
    /// The task; awaiting it is optional (tests and shutdown do).
    pub handle: JoinHandle<Result<PipelineReport, MemoryError>>,
}

/// Spawns the pipeline on the current tokio runtime and returns at once: it never blocks a
/// turn. Failures are logged (and returned through the handle), never raised into the session.
pub fn start_memory_pipeline(pipeline: MemoryPipeline) -> MemoryStartup {
    let handle = tokio::spawn(async move {
        let result = pipeline.run_once().await;
        match &result {
            Ok(report) => tracing::info!(?report, "memory startup finished"),
            Err(error) => tracing::warn!(%error, "memory startup failed"),
        }
        result
    });
    MemoryStartup { handle }
}
