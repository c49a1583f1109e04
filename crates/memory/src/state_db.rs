//! The pipeline's state in SQLite (`AGENTCTX_HOME/state.sqlite`): threads, stage-1 jobs with
//! leases and retry-after, stage-1 outputs, and the global phase-2 job with its watermark.
//!
//! Every connection runs in WAL mode with the same busy timeout ([`BUSY_TIMEOUT`]); every claim
//! is one `BEGIN IMMEDIATE` transaction (the write lock is taken before anything is read), so two
//! processes never take the same job. Times are unix seconds passed in by the caller, which keeps
//! leases testable. See docs/design/memory.md, "State" and "Leases".

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use futures::TryStreamExt;
use sqlx::Row;
use sqlx::SqlitePool;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::sqlite::SqliteJournalMode;
use sqlx::sqlite::SqlitePoolOptions;
use sqlx::sqlite::SqliteSynchronous;

use crate::error::MemoryError;
pub use crate::state_records::GlobalClaimOutcome;
pub use crate::state_records::JobRow;
pub use crate::state_records::Stage1Claim;
pub use crate::state_records::Stage1ClaimOutcome;
pub use crate::state_records::Stage1ClaimParams;
pub use crate::state_records::Stage1Output;
pub use crate::state_records::StateStatus;
pub use crate::state_records::StoredOutput;
pub use crate::state_records::ThreadRecord;

/// The database file under `AGENTCTX_HOME`.
pub const STATE_DB_FILE: &str = "state.sqlite";
/// How long any connection waits for another process's write lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// Job kind of the per-thread extraction (key: the thread id).
pub const JOB_KIND_STAGE1: &str = "memory_stage1";
/// Job kind of the global consolidation (key: [`GLOBAL_JOB_KEY`]).
pub const JOB_KIND_CONSOLIDATE_GLOBAL: &str = "memory_consolidate_global";
/// The key of the one global phase-2 job.
pub const GLOBAL_JOB_KEY: &str = "global";
/// How many times a failing job is retried before it waits for new input.
pub(crate) const DEFAULT_RETRY_REMAINING: i64 = 3;
/// How often a claim is tried again when the database stays busy past the busy timeout.
const CLAIM_LOCK_RETRY_ATTEMPTS: usize = 3;
/// Tries of an open or a migration that lost a race with another process (see
/// `StateDb::open_with_busy_timeout` and `StateDb::migrate`).
const MIGRATION_ATTEMPTS: u32 = 8;

/// Runs one claim transaction, again (up to [`CLAIM_LOCK_RETRY_ATTEMPTS`] tries in all) while
/// SQLite reports the database busy: the busy timeout already waited, so a busy error here is a
/// writer that took the lock between our tries.
async fn retry_when_busy<T, F, Fut>(mut attempt: F) -> Result<T, MemoryError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, MemoryError>>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(error) if error.is_busy() && tries < CLAIM_LOCK_RETRY_ATTEMPTS => {
                tries += 1;
                tokio::task::yield_now().await;
            }
            result => return result,
        }
    }
}

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The state database.
#[derive(Debug, Clone)]
pub struct StateDb {
    pool: SqlitePool,
    path: PathBuf,
}

impl StateDb {
    /// Opens (creating it when missing) `home/state.sqlite` and applies the migrations.
    pub async fn open(home: &Path) -> Result<Self, MemoryError> {
        Self::open_path(&home.join(STATE_DB_FILE)).await
    }

    /// Opens the database at `path`, creating it and its folder when missing.
    pub async fn open_path(path: &Path) -> Result<Self, MemoryError> {
        Self::open_with_busy_timeout(path, BUSY_TIMEOUT).await
    }

    /// [`Self::open_path`] with another busy timeout (tests use a short one).
    pub(crate) async fn open_with_busy_timeout(
        path: &Path,
        busy_timeout: Duration,
    ) -> Result<Self, MemoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| MemoryError::Io {
                action: "cannot create",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let open_error = |source: sqlx::Error| match MemoryError::database(path, source) {
            MemoryError::Database { path, source } => MemoryError::OpenDatabase { path, source },
            other => other,
        };
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(open_error)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(busy_timeout)
            .foreign_keys(true);
        // Opening sets WAL mode, which SQLite answers with "busy" at once (no busy timeout)
        // while another process's last connection is closing and checkpointing the file: back
        // off and open again, as for a migration race.
        let mut attempt = 0;
        let pool = loop {
            let opened = SqlitePoolOptions::new()
                .max_connections(4)
                .acquire_timeout(BUSY_TIMEOUT)
                .connect_with(options.clone())
                .await
                .map_err(open_error);
            match opened {
                Err(error) if error.is_busy() && attempt + 1 < MIGRATION_ATTEMPTS => {
                    tokio::time::sleep(Duration::from_millis(5 << attempt)).await;
                    attempt += 1;
                }
                result => break result?,
            }
        };
        let db = Self {
            pool,
            path: path.to_path_buf(),
        };
        db.migrate().await?;
        Ok(db)
    }

    async fn migrate(&self) -> Result<(), MemoryError> {
        let mut last = None;
        // Two processes opening a fresh file race on the migration; the loser sees "busy" or a
        // duplicate migration row and tries again. The migration's transaction is deferred, so
        // SQLite reports "busy" at once instead of waiting out the busy timeout: back off for
        // real (5 ms doubling, about 0.6 s in all), or the winner is still migrating when the
        // tries run out.
        for attempt in 0..MIGRATION_ATTEMPTS {
            match MIGRATOR.run(&self.pool).await {
                Ok(()) => return Ok(()),
                Err(error) => {
                    tracing::debug!(%error, path = %self.path.display(), "migration retried");
                    last = Some(error);
                    tokio::time::sleep(Duration::from_millis(5 << attempt)).await;
                }
            }
        }
        let source = match last {
            Some(sqlx::migrate::MigrateError::Execute(source)) => source,
            Some(other) => sqlx::Error::Migrate(Box::new(other)),
            None => sqlx::Error::PoolClosed,
        };
        Err(MemoryError::database(&self.path, source))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: sqlx::Error) -> MemoryError {
        MemoryError::database(&self.path, source)
    }

    /// Closes the pool, waiting for connections to finish.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// The `updated_at` of every known thread, by rollout path.
    pub async fn thread_times(&self) -> Result<BTreeMap<PathBuf, i64>, MemoryError> {
        let rows = sqlx::query("SELECT rollout_path, updated_at FROM threads")
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.err(e))?;
        let mut out = BTreeMap::new();
        for row in rows {
            let path: String = row.try_get(0).map_err(|e| self.err(e))?;
            let updated: i64 = row.try_get(1).map_err(|e| self.err(e))?;
            out.insert(PathBuf::from(path), updated);
        }
        Ok(out)
    }

    /// Records a thread, or updates what is known about it.
    pub async fn upsert_thread(&self, thread: &ThreadRecord) -> Result<(), MemoryError> {
        sqlx::query(
            "INSERT INTO threads (id, rollout_path, source, cwd, git_branch, updated_at)
             VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET rollout_path = excluded.rollout_path,
                 source = excluded.source, cwd = excluded.cwd,
                 git_branch = excluded.git_branch, updated_at = excluded.updated_at",
        )
        .bind(&thread.id)
        .bind(thread.rollout_path.to_string_lossy().into_owned())
        .bind(&thread.source)
        .bind(&thread.cwd)
        .bind(&thread.git_branch)
        .bind(thread.updated_at)
        .execute(&self.pool)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Scans eligible threads (newest first, at most `scan_limit`) and claims up to
    /// `max_claimed` of them, each in its own transaction.
    pub async fn claim_stage1_jobs(
        &self,
        params: &Stage1ClaimParams,
        worker_id: &str,
        now: i64,
    ) -> Result<Vec<Stage1Claim>, MemoryError> {
        let sources = serde_json::to_string(&params.allowed_sources).unwrap_or_default();
        let mut rows = sqlx::query(
            "SELECT t.id, t.rollout_path, t.source, t.cwd, t.git_branch, t.updated_at
             FROM threads t
             LEFT JOIN jobs j ON j.kind = ? AND j.job_key = t.id
             WHERE t.archived = 0
               AND (t.source IS NULL OR t.source IN (SELECT value FROM json_each(?)))
               AND t.id != ?
               AND t.updated_at >= ?
               AND t.updated_at <= ?
               AND (j.last_success_watermark IS NULL OR j.last_success_watermark < t.updated_at)
             ORDER BY t.updated_at DESC, t.id
             LIMIT ?",
        )
        .bind(JOB_KIND_STAGE1)
        .bind(sources)
        .bind(params.current_thread_id.as_deref().unwrap_or(""))
        .bind(now.saturating_sub(params.max_age_days.saturating_mul(86_400)))
        .bind(now.saturating_sub(params.min_idle_hours.saturating_mul(3_600)))
        .bind(params.scan_limit)
        // Streamed, not fetched whole: the claims stop after `max_claimed`, usually the first
        // rows of thousands (see docs/design/performance.md, "Memory claims"). The claims write
        // through other connections of the pool while this read is open, which WAL allows.
        .fetch(&self.pool);
        let mut claims = Vec::new();
        while claims.len() < params.max_claimed {
            let Some(row) = rows.try_next().await.map_err(|e| self.err(e))? else {
                break;
            };
            let thread = thread_from_row(&row).map_err(|e| self.err(e))?;
            let outcome = self
                .try_claim_stage1_job(&thread.id, worker_id, params.lease_seconds, now)
                .await?;
            if let Stage1ClaimOutcome::Claimed(ownership_token) = outcome {
                claims.push(Stage1Claim {
                    thread,
                    ownership_token,
                });
            }
        }
        Ok(claims)
    }

    /// Tries to claim the stage-1 job of `thread_id` in one `BEGIN IMMEDIATE` transaction.
    pub async fn try_claim_stage1_job(
        &self,
        thread_id: &str,
        worker_id: &str,
        lease_seconds: i64,
        now: i64,
    ) -> Result<Stage1ClaimOutcome, MemoryError> {
        retry_when_busy(|| self.try_claim_stage1_job_once(thread_id, worker_id, lease_seconds, now))
            .await
    }

    async fn try_claim_stage1_job_once(
        &self,
        thread_id: &str,
        worker_id: &str,
        lease_seconds: i64,
        now: i64,
    ) -> Result<Stage1ClaimOutcome, MemoryError> {
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(|e| self.err(e))?;
        let updated_at: Option<i64> =
            sqlx::query_scalar("SELECT updated_at FROM threads WHERE id = ?")
                .bind(thread_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        let Some(updated_at) = updated_at else {
            return Ok(Stage1ClaimOutcome::SkippedUnknownThread);
        };
        let job = fetch_job(&mut tx, JOB_KIND_STAGE1, thread_id)
            .await
            .map_err(|e| self.err(e))?;
        let mut retry_remaining = DEFAULT_RETRY_REMAINING;
        if let Some(job) = &job {
            if job
                .last_success_watermark
                .is_some_and(|wm| wm >= updated_at)
            {
                return Ok(Stage1ClaimOutcome::SkippedUpToDate);
            }
            if job.status == "running" && job.lease_until.is_some_and(|until| until > now) {
                return Ok(Stage1ClaimOutcome::SkippedRunning);
            }
            // A session that changed since it last failed gets a fresh set of retries.
            let changed = job.input_watermark.is_none_or(|wm| wm < updated_at);
            retry_remaining = if changed {
                DEFAULT_RETRY_REMAINING
            } else {
                job.retry_remaining
            };
            if !changed && job.status == "error" {
                if job.retry_remaining <= 0 {
                    return Ok(Stage1ClaimOutcome::SkippedRetryExhausted);
                }
                if job.retry_at.is_some_and(|at| at > now) {
                    return Ok(Stage1ClaimOutcome::SkippedRetryBackoff);
                }
            }
        }
        let token = uuid::Uuid::new_v4().to_string();
        sqlx::query(
            "INSERT INTO jobs (kind, job_key, status, worker_id, ownership_token, started_at,
                               lease_until, retry_remaining, input_watermark)
             VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)
             ON CONFLICT (kind, job_key) DO UPDATE SET status = 'running',
                 worker_id = excluded.worker_id, ownership_token = excluded.ownership_token,
                 started_at = excluded.started_at, lease_until = excluded.lease_until,
                 retry_remaining = excluded.retry_remaining,
                 input_watermark = excluded.input_watermark, finished_at = NULL",
        )
        .bind(JOB_KIND_STAGE1)
        .bind(thread_id)
        .bind(worker_id)
        .bind(&token)
        .bind(now)
        .bind(now.saturating_add(lease_seconds))
        .bind(retry_remaining)
        .bind(updated_at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(Stage1ClaimOutcome::Claimed(token))
    }

    /// Stores the output of an owned job, marks the job done and enqueues the consolidation,
    /// all in one transaction. Fails with [`MemoryError::LostOwnership`] (and stores nothing)
    /// when another worker took the job over.
    pub async fn mark_stage1_succeeded(
        &self,
        claim: &Stage1Claim,
        output: &Stage1Output,
        now: i64,
    ) -> Result<(), MemoryError> {
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(|e| self.err(e))?;
        self.finish_stage1(&mut tx, claim, now).await?;
        let seq: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) + 1 FROM stage1_outputs")
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        let stored = sqlx::query(
            "INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary,
                                         rollout_slug, generated_at, seq)
             VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (thread_id) DO UPDATE SET source_updated_at = excluded.source_updated_at,
                 raw_memory = excluded.raw_memory, rollout_summary = excluded.rollout_summary,
                 rollout_slug = excluded.rollout_slug, generated_at = excluded.generated_at,
                 seq = excluded.seq
             WHERE excluded.source_updated_at >= stage1_outputs.source_updated_at",
        )
        .bind(&claim.thread.id)
        .bind(claim.thread.updated_at)
        .bind(&output.raw_memory)
        .bind(&output.rollout_summary)
        .bind(&output.rollout_slug)
        .bind(now)
        .bind(seq)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        if stored.rows_affected() > 0 {
            sqlx::query(
                "INSERT INTO jobs (kind, job_key, status, retry_remaining, input_watermark)
                 VALUES (?, ?, 'pending', ?, ?)
                 ON CONFLICT (kind, job_key) DO UPDATE SET
                     status = CASE WHEN jobs.status = 'running' THEN 'running' ELSE 'pending' END,
                     input_watermark = MAX(COALESCE(jobs.input_watermark, 0), excluded.input_watermark),
                     retry_remaining = MAX(jobs.retry_remaining, excluded.retry_remaining)",
            )
            .bind(JOB_KIND_CONSOLIDATE_GLOBAL)
            .bind(GLOBAL_JOB_KEY)
            .bind(DEFAULT_RETRY_REMAINING)
            .bind(seq)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        }
        tx.commit().await.map_err(|e| self.err(e))
    }

    /// Marks an owned job done with nothing worth remembering (the no-op gate).
    pub async fn mark_stage1_succeeded_no_output(
        &self,
        claim: &Stage1Claim,
        now: i64,
    ) -> Result<(), MemoryError> {
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(|e| self.err(e))?;
        self.finish_stage1(&mut tx, claim, now).await?;
        tx.commit().await.map_err(|e| self.err(e))
    }

    async fn finish_stage1(
        &self,
        tx: &mut sqlx::SqliteConnection,
        claim: &Stage1Claim,
        now: i64,
    ) -> Result<(), MemoryError> {
        let done = sqlx::query(
            "UPDATE jobs SET status = 'done', finished_at = ?, lease_until = NULL,
                 last_success_watermark = input_watermark, last_error = NULL,
                 completions = completions + 1
             WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?",
        )
        .bind(now)
        .bind(JOB_KIND_STAGE1)
        .bind(&claim.thread.id)
        .bind(&claim.ownership_token)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        if done.rows_affected() == 0 {
            return Err(MemoryError::LostOwnership {
                kind: JOB_KIND_STAGE1,
                key: claim.thread.id.clone(),
            });
        }
        Ok(())
    }

    /// Marks an owned job failed: it may be claimed again after `retry_delay_seconds`, with one
    /// retry fewer. Returns false when the job was no longer owned.
    pub async fn mark_stage1_failed(
        &self,
        claim: &Stage1Claim,
        reason: &str,
        retry_delay_seconds: i64,
        now: i64,
    ) -> Result<bool, MemoryError> {
        self.mark_failed(
            JOB_KIND_STAGE1,
            &claim.thread.id,
            &claim.ownership_token,
            reason,
            retry_delay_seconds,
            now,
        )
        .await
    }

    async fn mark_failed(
        &self,
        kind: &str,
        key: &str,
        token: &str,
        reason: &str,
        retry_delay_seconds: i64,
        now: i64,
    ) -> Result<bool, MemoryError> {
        let failed = sqlx::query(
            "UPDATE jobs SET status = 'error', finished_at = ?, lease_until = NULL, retry_at = ?,
                 retry_remaining = retry_remaining - 1, last_error = ?
             WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?",
        )
        .bind(now)
        .bind(now.saturating_add(retry_delay_seconds))
        .bind(reason)
        .bind(kind)
        .bind(key)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(|e| self.err(e))?;
        Ok(failed.rows_affected() > 0)
    }

    /// Tries to take the global phase-2 job in one `BEGIN IMMEDIATE` transaction.
    pub async fn try_claim_global_job(
        &self,
        worker_id: &str,
        lease_seconds: i64,
        now: i64,
    ) -> Result<GlobalClaimOutcome, MemoryError> {
        retry_when_busy(|| self.try_claim_global_job_once(worker_id, lease_seconds, now)).await
    }

    async fn try_claim_global_job_once(
        &self,
        worker_id: &str,
        lease_seconds: i64,
        now: i64,
    ) -> Result<GlobalClaimOutcome, MemoryError> {
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(|e| self.err(e))?;
        let Some(job) = fetch_job(&mut tx, JOB_KIND_CONSOLIDATE_GLOBAL, GLOBAL_JOB_KEY)
            .await
            .map_err(|e| self.err(e))?
        else {
            return Ok(GlobalClaimOutcome::SkippedNotDirty);
        };
        let input = job.input_watermark.unwrap_or(0);
        let last = job.last_success_watermark.unwrap_or(0);
        if input <= last || job.retry_remaining <= 0 {
            return Ok(GlobalClaimOutcome::SkippedNotDirty);
        }
        if job.status == "running" && job.lease_until.is_some_and(|until| until > now) {
            return Ok(GlobalClaimOutcome::SkippedRunning);
        }
        // New outputs make a failed job pending again, but its backoff still applies.
        if job.retry_at.is_some_and(|at| at > now) {
            return Ok(GlobalClaimOutcome::SkippedRetryBackoff);
        }
        let token = uuid::Uuid::new_v4().to_string();
        sqlx::query(
            "UPDATE jobs SET status = 'running', worker_id = ?, ownership_token = ?,
                 started_at = ?, lease_until = ?, finished_at = NULL
             WHERE kind = ? AND job_key = ?",
        )
        .bind(worker_id)
        .bind(&token)
        .bind(now)
        .bind(now.saturating_add(lease_seconds))
        .bind(JOB_KIND_CONSOLIDATE_GLOBAL)
        .bind(GLOBAL_JOB_KEY)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(GlobalClaimOutcome::Claimed {
            ownership_token: token,
            input_watermark: input,
            last_success_watermark: last,
        })
    }

    /// Extends the global job's lease; false when `token` no longer owns it.
    pub async fn heartbeat_global_job(
        &self,
        token: &str,
        lease_seconds: i64,
        now: i64,
    ) -> Result<bool, MemoryError> {
        let beat = sqlx::query(
            "UPDATE jobs SET lease_until = ?
             WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?",
        )
        .bind(now.saturating_add(lease_seconds))
        .bind(JOB_KIND_CONSOLIDATE_GLOBAL)
        .bind(GLOBAL_JOB_KEY)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(|e| self.err(e))?;
        Ok(beat.rows_affected() > 0)
    }

    /// Marks the owned global job done up to `watermark` (never moving the watermark back);
    /// false when `token` no longer owns it.
    pub async fn mark_global_job_succeeded(
        &self,
        token: &str,
        watermark: i64,
        now: i64,
    ) -> Result<bool, MemoryError> {
        let done = sqlx::query(
            "UPDATE jobs SET status = 'done', finished_at = ?, lease_until = NULL,
                 last_success_watermark = MAX(COALESCE(last_success_watermark, 0), ?),
                 last_error = NULL, completions = completions + 1, retry_at = NULL,
                 retry_remaining = ?
             WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ?",
        )
        .bind(now)
        .bind(watermark)
        .bind(DEFAULT_RETRY_REMAINING)
        .bind(JOB_KIND_CONSOLIDATE_GLOBAL)
        .bind(GLOBAL_JOB_KEY)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(|e| self.err(e))?;
        Ok(done.rows_affected() > 0)
    }

    /// Marks the owned global job failed; false when `token` no longer owns it.
    pub async fn mark_global_job_failed(
        &self,
        token: &str,
        reason: &str,
        retry_delay_seconds: i64,
        now: i64,
    ) -> Result<bool, MemoryError> {
        self.mark_failed(
            JOB_KIND_CONSOLIDATE_GLOBAL,
            GLOBAL_JOB_KEY,
            token,
            reason,
            retry_delay_seconds,
            now,
        )
        .await
    }

    /// The newest `limit` outputs, newest (highest seq) first.
    pub async fn list_outputs(&self, limit: i64) -> Result<Vec<StoredOutput>, MemoryError> {
        let rows = sqlx::query(
            "SELECT t.id, t.rollout_path, t.source, t.cwd, t.git_branch, t.updated_at,
                    o.raw_memory, o.rollout_summary, o.rollout_slug, o.source_updated_at,
                    o.generated_at, o.seq
             FROM stage1_outputs o JOIN threads t ON t.id = o.thread_id
             ORDER BY o.seq DESC LIMIT ?",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.err(e))?;
        rows.iter()
            .map(|row| {
                Ok(StoredOutput {
                    thread: thread_from_row(row)?,
                    output: Stage1Output {
                        raw_memory: row.try_get(6)?,
                        rollout_summary: row.try_get(7)?,
                        rollout_slug: row.try_get(8)?,
                    },
                    source_updated_at: row.try_get(9)?,
                    generated_at: row.try_get(10)?,
                    seq: row.try_get(11)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.err(e))
    }

    /// Every job row, by kind and key.
    pub async fn jobs(&self) -> Result<Vec<JobRow>, MemoryError> {
        let rows = sqlx::query(&format!("{JOB_COLUMNS} ORDER BY kind, job_key"))
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.err(e))?;
        rows.iter()
            .map(job_from_row)
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))
    }

    /// Counts for `agentctx memory status`.
    pub async fn status(&self) -> Result<StateStatus, MemoryError> {
        let threads: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM threads")
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.err(e))?;
        let outputs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM stage1_outputs")
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.err(e))?;
        let rows = sqlx::query("SELECT status, COUNT(*) FROM jobs WHERE kind = ? GROUP BY status")
            .bind(JOB_KIND_STAGE1)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.err(e))?;
        let mut stage1_jobs = BTreeMap::new();
        for row in rows {
            let status: String = row.try_get(0).map_err(|e| self.err(e))?;
            let count: i64 = row.try_get(1).map_err(|e| self.err(e))?;
            stage1_jobs.insert(status, count);
        }
        let mut conn = self.pool.acquire().await.map_err(|e| self.err(e))?;
        let global_job = fetch_job(&mut conn, JOB_KIND_CONSOLIDATE_GLOBAL, GLOBAL_JOB_KEY)
            .await
            .map_err(|e| self.err(e))?;
        Ok(StateStatus {
            threads,
            outputs,
            stage1_jobs,
            global_job,
        })
    }
}

const JOB_COLUMNS: &str = "SELECT kind, job_key, status, worker_id, lease_until, retry_at,
    retry_remaining, last_error, input_watermark, last_success_watermark, completions,
    finished_at FROM jobs";

async fn fetch_job(
    conn: &mut sqlx::SqliteConnection,
    kind: &str,
    key: &str,
) -> Result<Option<JobRow>, sqlx::Error> {
    let row = sqlx::query(&format!("{JOB_COLUMNS} WHERE kind = ? AND job_key = ?"))
        .bind(kind)
        .bind(key)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(job_from_row).transpose()
}

fn job_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<JobRow, sqlx::Error> {
    Ok(JobRow {
        kind: row.try_get(0)?,
        job_key: row.try_get(1)?,
        status: row.try_get(2)?,
        worker_id: row.try_get(3)?,
        lease_until: row.try_get(4)?,
        retry_at: row.try_get(5)?,
        retry_remaining: row.try_get(6)?,
        last_error: row.try_get(7)?,
        input_watermark: row.try_get(8)?,
        last_success_watermark: row.try_get(9)?,
        completions: row.try_get(10)?,
        finished_at: row.try_get(11)?,
    })
}

fn thread_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<ThreadRecord, sqlx::Error> {
    let path: String = row.try_get(1)?;
    Ok(ThreadRecord {
        id: row.try_get(0)?,
        rollout_path: PathBuf::from(path),
        source: row.try_get(2)?,
        cwd: row.try_get(3)?,
        git_branch: row.try_get(4)?,
        updated_at: row.try_get(5)?,
    })
}

#[cfg(test)]
#[path = "state_db_tests.rs"]
mod tests;
