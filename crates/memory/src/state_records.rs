//! The records the state database stores and returns: threads, claims and their outcomes,
//! stage-1 outputs, job rows and the status summary. See docs/design/memory.md, "State".

use std::collections::BTreeMap;
use std::path::PathBuf;

/// A session file as the pipeline records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRecord {
    /// The thread id (the session id of a Codex rollout, the file stem of a transcript).
    pub id: String,
    /// The session file.
    pub rollout_path: PathBuf,
    /// Where the session came from (`cli`, `vscode`, `exec`, `claude_code`, `subagent`, ...);
    /// `None` when its header could not be read.
    pub source: Option<String>,
    /// Working directory of the session.
    pub cwd: Option<String>,
    /// Git branch at the start of the session.
    pub git_branch: Option<String>,
    /// When the session was last written (unix seconds).
    pub updated_at: i64,
}

/// What the startup claim looks at.
#[derive(Debug, Clone)]
pub struct Stage1ClaimParams {
    /// The thread of the running session, never claimed.
    pub current_thread_id: Option<String>,
    /// At most this many threads are scanned.
    pub scan_limit: i64,
    /// At most this many jobs are claimed.
    pub max_claimed: usize,
    /// Threads last written longer ago than this are left out.
    pub max_age_days: i64,
    /// Threads written more recently than this are left out (they may still be in use).
    pub min_idle_hours: i64,
    /// Sources a thread must come from.
    pub allowed_sources: Vec<String>,
    /// How long a claim is held before another worker may take the job over.
    pub lease_seconds: i64,
}

/// A stage-1 job this worker owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage1Claim {
    /// The thread.
    pub thread: ThreadRecord,
    /// Proves ownership when the result is written.
    pub ownership_token: String,
}

/// Why a thread was or was not claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage1ClaimOutcome {
    /// Claimed; the token proves ownership.
    Claimed(String),
    /// Its output is as new as the thread.
    SkippedUpToDate,
    /// Another worker holds a live lease.
    SkippedRunning,
    /// It failed recently; it is tried again after its retry time.
    SkippedRetryBackoff,
    /// It failed too often; it waits for the session to change.
    SkippedRetryExhausted,
    /// The thread is not known.
    SkippedUnknownThread,
}

/// What phase 1 stores for a thread (already redacted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage1Output {
    /// The raw memory (markdown).
    pub raw_memory: String,
    /// The rollout summary (markdown).
    pub rollout_summary: String,
    /// A filesystem-safe slug, when one was given.
    pub rollout_slug: Option<String>,
}

/// A stored stage-1 output with its thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredOutput {
    /// The thread it came from.
    pub thread: ThreadRecord,
    /// The output.
    pub output: Stage1Output,
    /// The thread's `updated_at` the output was made from.
    pub source_updated_at: i64,
    /// When it was made.
    pub generated_at: i64,
    /// Its place in the global order of outputs (the watermark counts in it).
    pub seq: i64,
}

/// The outcome of trying to take the global phase-2 job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GlobalClaimOutcome {
    /// Claimed.
    Claimed {
        /// Proves ownership on heartbeat and completion.
        ownership_token: String,
        /// The newest output seq enqueued for consolidation.
        input_watermark: i64,
        /// The seq up to which outputs were already consolidated (0 for none).
        last_success_watermark: i64,
    },
    /// Nothing new to consolidate (or retries exhausted).
    SkippedNotDirty,
    /// Another worker holds a live lease.
    SkippedRunning,
    /// It failed recently; it is tried again after its retry time.
    SkippedRetryBackoff,
}

/// One job row, for status reports and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRow {
    /// Job kind.
    pub kind: String,
    /// Job key.
    pub job_key: String,
    /// `pending`, `running`, `done` or `error`.
    pub status: String,
    /// The worker that last claimed it.
    pub worker_id: Option<String>,
    /// Lease end (unix seconds) while running.
    pub lease_until: Option<i64>,
    /// When a failed job may be tried again.
    pub retry_at: Option<i64>,
    /// Retries left.
    pub retry_remaining: i64,
    /// Why it last failed.
    pub last_error: Option<String>,
    /// Input watermark (stage 1: the thread's `updated_at` claimed; global: newest seq enqueued).
    pub input_watermark: Option<i64>,
    /// Watermark of the last success.
    pub last_success_watermark: Option<i64>,
    /// Successful completions.
    pub completions: i64,
    /// When it last finished.
    pub finished_at: Option<i64>,
}

/// The summary `agentctx memory status` prints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StateStatus {
    /// Threads seen.
    pub threads: i64,
    /// Stage-1 outputs stored.
    pub outputs: i64,
    /// Stage-1 jobs by status.
    pub stage1_jobs: BTreeMap<String, i64>,
    /// The global job, when it exists.
    pub global_job: Option<JobRow>,
}
