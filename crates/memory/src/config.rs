//! What the pipeline is configured with, and the clock it reads (a test can move it).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Threads claimed per startup by default.
pub const DEFAULT_MAX_ROLLOUTS_PER_STARTUP: usize = 2;
/// Upper clamp of the per-startup claims.
pub const MAX_ROLLOUTS_PER_STARTUP_LIMIT: usize = 128;
/// Threads older than this are not extracted.
pub const DEFAULT_MAX_ROLLOUT_AGE_DAYS: i64 = 10;
/// Threads written more recently than this are not extracted (they may still be in use).
pub const DEFAULT_MIN_ROLLOUT_IDLE_HOURS: i64 = 6;
/// A claim is held this long before another worker may take the job over.
pub const JOB_LEASE_SECONDS: i64 = 3_600;
/// A failed job is tried again after this long.
pub const JOB_RETRY_DELAY_SECONDS: i64 = 3_600;
/// The phase-2 owner renews its lease this often.
pub const JOB_HEARTBEAT: Duration = Duration::from_secs(90);
/// Most stage-1 outputs a consolidation looks at (the newest).
pub const DEFAULT_MAX_RAW_MEMORIES_FOR_CONSOLIDATION: i64 = 256;
/// Sources whose sessions are learned from: interactive sessions of Codex and Claude Code
/// (not `exec`, `mcp` or sub-agents).
pub const INTERACTIVE_SOURCES: [&str; 3] = ["cli", "vscode", "claude_code"];

/// The time in unix seconds.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> i64 + Send + Sync>);

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self(Arc::new(|| chrono::Utc::now().timestamp()))
    }

    /// A clock that reads `time` (tests move it).
    pub fn manual(time: Arc<AtomicI64>) -> Self {
        Self(Arc::new(move || time.load(Ordering::SeqCst)))
    }

    /// Now, in unix seconds.
    pub fn now(&self) -> i64 {
        (self.0)()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Clock({})", self.now())
    }
}

/// The pipeline's settings.
#[derive(Debug, Clone)]
pub struct MemoryConfig {
    /// `AGENTCTX_HOME`: `state.sqlite` and `memories/` live here.
    pub home: PathBuf,
    /// The running session's thread, never extracted.
    pub current_thread_id: Option<String>,
    /// Threads claimed per run (clamped to 1..=128).
    pub max_rollouts_per_startup: usize,
    /// Threads older than this many days are left out.
    pub max_rollout_age_days: i64,
    /// Threads idle for less than this many hours are left out.
    pub min_rollout_idle_hours: i64,
    /// Sources learned from.
    pub allowed_sources: Vec<String>,
    /// Stage-1 lease.
    pub stage1_lease_seconds: i64,
    /// Stage-1 retry delay.
    pub stage1_retry_delay_seconds: i64,
    /// Phase-2 lease.
    pub phase2_lease_seconds: i64,
    /// Phase-2 retry delay.
    pub phase2_retry_delay_seconds: i64,
    /// Phase-2 heartbeat interval.
    pub phase2_heartbeat: Duration,
    /// Most outputs consolidated.
    pub max_raw_memories_for_consolidation: i64,
    /// Who this worker is (stored with its claims).
    pub worker_id: String,
    /// The clock.
    pub clock: Clock,
}

impl MemoryConfig {
    /// The defaults for `home`, with a fresh worker id and the system clock.
    pub fn new(home: impl Into<PathBuf>) -> Self {
        Self {
            home: home.into(),
            current_thread_id: None,
            max_rollouts_per_startup: DEFAULT_MAX_ROLLOUTS_PER_STARTUP,
            max_rollout_age_days: DEFAULT_MAX_ROLLOUT_AGE_DAYS,
            min_rollout_idle_hours: DEFAULT_MIN_ROLLOUT_IDLE_HOURS,
            allowed_sources: INTERACTIVE_SOURCES
                .iter()
                .map(ToString::to_string)
                .collect(),
            stage1_lease_seconds: JOB_LEASE_SECONDS,
            stage1_retry_delay_seconds: JOB_RETRY_DELAY_SECONDS,
            phase2_lease_seconds: JOB_LEASE_SECONDS,
            phase2_retry_delay_seconds: JOB_RETRY_DELAY_SECONDS,
            phase2_heartbeat: JOB_HEARTBEAT,
            max_raw_memories_for_consolidation: DEFAULT_MAX_RAW_MEMORIES_FOR_CONSOLIDATION,
            worker_id: format!("{}-{}", std::process::id(), uuid::Uuid::new_v4()),
            clock: Clock::system(),
        }
    }

    /// Sets the per-run claim limit, clamped to 1..=128.
    pub fn with_max_rollouts_per_startup(mut self, max: usize) -> Self {
        self.max_rollouts_per_startup = max.clamp(1, MAX_ROLLOUTS_PER_STARTUP_LIMIT);
        self
    }
}
