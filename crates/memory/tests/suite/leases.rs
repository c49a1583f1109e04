//! Leases, re-claims, retry-after and heartbeat loss, with a clock the tests move.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::sync::atomic::Ordering;
use std::time::Duration;

use agentctx_memory::Clock;
use agentctx_memory::ConsolidationInput;
use agentctx_memory::ConsolidationOutput;
use agentctx_memory::Consolidator;
use agentctx_memory::Extractor;
use agentctx_memory::GlobalClaimOutcome;
use agentctx_memory::MEMORY_FILE;
use agentctx_memory::MemoryError;
use agentctx_memory::OfflineConsolidator;
use agentctx_memory::Phase2Outcome;
use agentctx_memory::Stage1Claim;
use agentctx_memory::Stage1ClaimOutcome;
use agentctx_memory::Stage1Output;
use agentctx_memory::StateDb;
use agentctx_memory::ThreadRecord;
use agentctx_memory::memory_root;
use agentctx_memory::run_phase2;
use async_trait::async_trait;
use pretty_assertions::assert_eq;
use tokio::sync::Notify;

use super::support::config;
use super::support::pipeline;
use super::support::write_session;

const T0: i64 = 1_800_000_000;
const LEASE: i64 = 3_600;

fn thread(id: &str, updated_at: i64) -> ThreadRecord {
    ThreadRecord {
        id: id.to_string(),
        rollout_path: PathBuf::from(format!("/sessions/{id}.jsonl")),
        source: Some("cli".to_string()),
        cwd: Some("/src/app".to_string()),
        git_branch: None,
        updated_at,
    }
}

fn output() -> Stage1Output {
    Stage1Output {
        raw_memory: "# raw".to_string(),
        rollout_summary: "summary".to_string(),
        rollout_slug: None,
    }
}

async fn claim(db: &StateDb, thread: &ThreadRecord, worker: &str, now: i64) -> Option<Stage1Claim> {
    match db
        .try_claim_stage1_job(&thread.id, worker, LEASE, now)
        .await
        .unwrap()
    {
        Stage1ClaimOutcome::Claimed(ownership_token) => Some(Stage1Claim {
            thread: thread.clone(),
            ownership_token,
        }),
        _ => None,
    }
}

#[tokio::test]
async fn an_expired_stage1_lease_is_reclaimed_and_the_old_owner_cannot_commit() {
    let home = tempfile::tempdir().unwrap();
    let db = StateDb::open(home.path()).await.unwrap();
    let t = thread("t1", T0 - 100);
    db.upsert_thread(&t).await.unwrap();

    let a = claim(&db, &t, "a", T0).await.unwrap();
    assert_eq!(
        db.try_claim_stage1_job("t1", "b", LEASE, T0 + LEASE - 1)
            .await
            .unwrap(),
        Stage1ClaimOutcome::SkippedRunning
    );
    let b = claim(&db, &t, "b", T0 + LEASE + 1)
        .await
        .expect("re-claimed after expiry");
    let stale = db
        .mark_stage1_succeeded(&a, &output(), T0 + LEASE + 2)
        .await;
    assert!(
        matches!(stale, Err(MemoryError::LostOwnership { .. })),
        "{stale:?}"
    );
    db.mark_stage1_succeeded(&b, &output(), T0 + LEASE + 3)
        .await
        .unwrap();

    let jobs = db.jobs().await.unwrap();
    let stage1 = jobs.iter().find(|j| j.job_key == "t1").unwrap();
    assert_eq!((stage1.status.as_str(), stage1.completions), ("done", 1));
    assert_eq!(stage1.lease_until, None);
    assert_eq!(
        db.try_claim_stage1_job("t1", "c", LEASE, T0 + 2 * LEASE)
            .await
            .unwrap(),
        Stage1ClaimOutcome::SkippedUpToDate
    );
    // The thread changed: it is extracted again.
    db.upsert_thread(&thread("t1", T0 + 2 * LEASE))
        .await
        .unwrap();
    assert!(
        claim(&db, &thread("t1", T0 + 2 * LEASE), "c", T0 + 2 * LEASE + 1)
            .await
            .is_some()
    );
}

#[tokio::test]
async fn a_failed_job_waits_for_its_retry_time_then_runs_out_of_retries() {
    let home = tempfile::tempdir().unwrap();
    let db = StateDb::open(home.path()).await.unwrap();
    let t = thread("t1", T0 - 100);
    db.upsert_thread(&t).await.unwrap();
    let mut now = T0;
    for attempt in 0..3 {
        let owned = claim(&db, &t, "w", now)
            .await
            .unwrap_or_else(|| panic!("attempt {attempt}"));
        assert!(
            db.mark_stage1_failed(&owned, "boom", LEASE, now)
                .await
                .unwrap()
        );
        let expected = if attempt < 2 {
            Stage1ClaimOutcome::SkippedRetryBackoff
        } else {
            Stage1ClaimOutcome::SkippedRetryExhausted
        };
        assert_eq!(
            db.try_claim_stage1_job("t1", "w", LEASE, now + LEASE - 1)
                .await
                .unwrap(),
            expected
        );
        now += LEASE;
    }
    assert_eq!(
        db.try_claim_stage1_job("t1", "w", LEASE, now + 10 * LEASE)
            .await
            .unwrap(),
        Stage1ClaimOutcome::SkippedRetryExhausted
    );
    // New content in the session gives it a fresh set of retries.
    let changed = thread("t1", now);
    db.upsert_thread(&changed).await.unwrap();
    assert!(claim(&db, &changed, "w", now + 1).await.is_some());
}

#[tokio::test]
async fn an_unreadable_session_fails_alone_and_is_retried_after_the_delay() {
    let home = tempfile::tempdir().unwrap();
    write_session(home.path(), "/src/app", "Fix the login test");
    let corrupt = home.path().join("sessions/2025/01/01/rollout-2025-01-01T00-00-00-0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
    std::fs::create_dir_all(corrupt.parent().unwrap()).unwrap();
    std::fs::write(&corrupt, "this is not json\n\u{0}\u{1}garbage\n").unwrap();
    let time = Arc::new(AtomicI64::new(chrono::Utc::now().timestamp()));
    let mut config = config(home.path());
    config.clock = Clock::manual(Arc::clone(&time));
    let run = pipeline(config, Extractor::Offline, Arc::new(OfflineConsolidator));

    let first = run.run_once().await.unwrap();
    assert_eq!(first.phase1.succeeded_with_output, 1);
    assert_eq!(first.phase1.failed, 1);
    let db = StateDb::open(home.path()).await.unwrap();
    let failed = db
        .jobs()
        .await
        .unwrap()
        .into_iter()
        .find(|j| j.status == "error")
        .unwrap();
    let reason = failed.last_error.clone().unwrap();
    assert!(reason.contains(&corrupt.display().to_string()), "{reason}");

    time.fetch_add(60, Ordering::SeqCst);
    assert_eq!(
        run.run_once().await.unwrap().phase1.claimed,
        0,
        "still backing off"
    );
    time.fetch_add(3_600, Ordering::SeqCst);
    let retried = run.run_once().await.unwrap();
    assert_eq!((retried.phase1.claimed, retried.phase1.failed), (1, 1));
}

#[tokio::test]
async fn an_expired_global_lease_is_reclaimed() {
    let home = tempfile::tempdir().unwrap();
    let db = StateDb::open(home.path()).await.unwrap();
    let t = thread("t1", T0 - 100);
    db.upsert_thread(&t).await.unwrap();
    let owned = claim(&db, &t, "w", T0).await.unwrap();
    db.mark_stage1_succeeded(&owned, &output(), T0)
        .await
        .unwrap();

    let GlobalClaimOutcome::Claimed {
        ownership_token: first,
        ..
    } = db.try_claim_global_job("a", LEASE, T0).await.unwrap()
    else {
        panic!("not claimed");
    };
    assert_eq!(
        db.try_claim_global_job("b", LEASE, T0 + 100).await.unwrap(),
        GlobalClaimOutcome::SkippedRunning
    );
    let GlobalClaimOutcome::Claimed {
        ownership_token: second,
        ..
    } = db
        .try_claim_global_job("b", LEASE, T0 + LEASE + 1)
        .await
        .unwrap()
    else {
        panic!("not re-claimed after expiry");
    };
    assert!(
        !db.heartbeat_global_job(&first, LEASE, T0 + LEASE + 2)
            .await
            .unwrap()
    );
    assert!(
        !db.mark_global_job_succeeded(&first, 1, T0 + LEASE + 2)
            .await
            .unwrap()
    );
    assert!(
        db.mark_global_job_succeeded(&second, 1, T0 + LEASE + 3)
            .await
            .unwrap()
    );
    assert_eq!(
        db.try_claim_global_job("c", LEASE, T0 + LEASE + 4)
            .await
            .unwrap(),
        GlobalClaimOutcome::SkippedNotDirty
    );
}

/// Signals when it starts, then never finishes.
struct StuckConsolidator(Arc<Notify>);

#[async_trait]
impl Consolidator for StuckConsolidator {
    async fn consolidate(
        &self,
        _input: &ConsolidationInput,
    ) -> Result<ConsolidationOutput, MemoryError> {
        self.0.notify_one();
        std::future::pending().await
    }
}

#[tokio::test]
async fn losing_the_heartbeat_abandons_the_consolidation_without_writing() {
    let home = tempfile::tempdir().unwrap();
    write_session(home.path(), "/src/app", "Fix the login test");
    let time = Arc::new(AtomicI64::new(chrono::Utc::now().timestamp()));
    let mut config = config(home.path());
    config.clock = Clock::manual(Arc::clone(&time));
    config.phase2_heartbeat = Duration::from_millis(20);
    // Phase 1 only (the offline consolidator is not reached: phase 2 runs below).
    let db = StateDb::open(home.path()).await.unwrap();
    agentctx_memory::sync_threads(&db, &[home.path().join("sessions")])
        .await
        .unwrap();
    agentctx_memory::run_phase1(&db, &config, &Extractor::Offline)
        .await
        .unwrap();

    let started = Arc::new(Notify::new());
    let consolidator = StuckConsolidator(Arc::clone(&started));
    let phase2 = {
        let db = db.clone();
        let config = config.clone();
        tokio::spawn(async move { run_phase2(&db, &config, &consolidator).await })
    };
    started.notified().await;
    // The owner stalls past its lease; another worker takes the job over.
    let later = time.fetch_add(LEASE + 1, Ordering::SeqCst) + LEASE + 1;
    assert!(matches!(
        db.try_claim_global_job("thief", LEASE, later)
            .await
            .unwrap(),
        GlobalClaimOutcome::Claimed { .. }
    ));
    let outcome = tokio::time::timeout(Duration::from_secs(30), phase2)
        .await
        .expect("the heartbeat notices the loss")
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Phase2Outcome::LostOwnership);
    assert!(!memory_root(home.path()).join(MEMORY_FILE).exists());
    let global = db.status().await.unwrap().global_job.unwrap();
    assert_eq!(global.worker_id.as_deref(), Some("thief"));
    assert_eq!(global.completions, 0);
}
