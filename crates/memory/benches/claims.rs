//! The memory pipeline's startup on a state database (a real SQLite file in WAL mode, in a
//! temporary folder) that knows 5,000 threads.
//!
//! - `memory_claim/5000_threads`: `StateDb::claim_stage1_jobs` as phase 1 runs it at startup
//!   (scan limit 5,000, the default two claims), every thread eligible. Each iteration runs an
//!   hour and a second after the previous one, so the leases it took have expired and the same
//!   claim work is done again (two `BEGIN IMMEDIATE` transactions over the same scan).
//! - `memory_idle_start/open_and_run`: `MemoryPipeline::run_once` when nothing is eligible (every
//!   thread written within the idle window, no session folder): open the database (pool and
//!   migration check), sync, phase 1 and phase 2 find nothing, close.
//! - `memory_idle_start/run_on_open_db`: the same run on a database already open.
//!
//! Run with `cargo bench -p agentctx-memory --bench claims` (or `cargo xtask bench`). Figures
//! are in docs/design/performance.md, "Memory claims".

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::sync::atomic::Ordering;

use agentctx_memory::Clock;
use agentctx_memory::Extractor;
use agentctx_memory::INTERACTIVE_SOURCES;
use agentctx_memory::JOB_LEASE_SECONDS;
use agentctx_memory::MemoryConfig;
use agentctx_memory::MemoryPipeline;
use agentctx_memory::OfflineConsolidator;
use agentctx_memory::Stage1ClaimParams;
use agentctx_memory::StateDb;
use agentctx_memory::THREAD_SCAN_LIMIT;
use agentctx_memory::ThreadRecord;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;

const THREADS: usize = 5_000;
/// A fixed "now" (2026-01-01), so the generated history does not depend on the clock.
const BASE_NOW: i64 = 1_767_225_600;

async fn fill(db: &StateDb, newest: i64, spacing: i64) {
    for index in 0..THREADS {
        let offset = i64::try_from(index).unwrap();
        db.upsert_thread(&ThreadRecord {
            id: format!("thread-{index:05}"),
            rollout_path: format!("/home/user/.codex/sessions/rollout-{index:05}.jsonl").into(),
            source: Some(INTERACTIVE_SOURCES[index % INTERACTIVE_SOURCES.len()].to_owned()),
            cwd: Some(format!("/src/project-{}", index % 40)),
            git_branch: Some("main".to_owned()),
            // One every `spacing` seconds, going back from `newest`.
            updated_at: newest - offset * spacing,
        })
        .await
        .unwrap();
    }
}

fn record(name: &str, value: impl std::fmt::Display) {
    if let Ok(folder) = std::env::var("AGENTCTX_BENCH_FIGURES") {
        std::fs::write(Path::new(&folder).join(name), value.to_string()).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    // Phase-1 claim: every thread idle for more than the six hours and young enough.
    let claim_home = tempfile::tempdir().unwrap();
    let db = runtime.block_on(async {
        let db = StateDb::open(claim_home.path()).await.unwrap();
        fill(&db, BASE_NOW - 7 * 3_600, 60).await;
        db
    });
    let params = Stage1ClaimParams {
        current_thread_id: None,
        scan_limit: THREAD_SCAN_LIMIT,
        max_claimed: agentctx_memory::DEFAULT_MAX_ROLLOUTS_PER_STARTUP,
        // Each iteration moves the clock on by a lease; the threads must stay young enough.
        max_age_days: 100 * 365,
        min_idle_hours: agentctx_memory::DEFAULT_MIN_ROLLOUT_IDLE_HOURS,
        allowed_sources: INTERACTIVE_SOURCES
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        lease_seconds: JOB_LEASE_SECONDS,
    };
    let now = AtomicI64::new(BASE_NOW);
    let claims = runtime
        .block_on(db.claim_stage1_jobs(&params, "bench", now.load(Ordering::Relaxed)))
        .unwrap();
    assert_eq!(claims.len(), params.max_claimed);
    record("memory_threads", THREADS);

    let mut group = c.benchmark_group("memory_claim");
    group.bench_function("5000_threads", |b| {
        b.iter(|| {
            let at =
                now.fetch_add(JOB_LEASE_SECONDS + 1, Ordering::Relaxed) + JOB_LEASE_SECONDS + 1;
            let claims = runtime
                .block_on(db.claim_stage1_jobs(&params, "bench", at))
                .unwrap();
            assert_eq!(claims.len(), params.max_claimed);
            claims
        });
    });
    group.finish();
    runtime.block_on(db.close());

    // Idle start: every thread written within the last 84 minutes (one a second), so none has
    // been idle for the six hours phase 1 waits.
    let idle_home = tempfile::tempdir().unwrap();
    runtime.block_on(async {
        let db = StateDb::open(idle_home.path()).await.unwrap();
        fill(&db, BASE_NOW, 1).await;
        db.close().await;
    });
    let mut config = MemoryConfig::new(idle_home.path());
    config.clock = Clock::manual(Arc::new(AtomicI64::new(BASE_NOW)));
    let pipeline = MemoryPipeline {
        config,
        session_roots: vec![idle_home.path().join("sessions")],
        extractor: Extractor::Offline,
        consolidator: Arc::new(OfflineConsolidator),
    };
    let report = runtime.block_on(pipeline.run_once()).unwrap();
    assert_eq!(report.phase1.claimed, 0);

    let mut group = c.benchmark_group("memory_idle_start");
    group.bench_function("open_and_run", |b| {
        b.iter(|| runtime.block_on(pipeline.run_once()).unwrap());
    });
    let db = runtime.block_on(StateDb::open(idle_home.path())).unwrap();
    group.bench_function("run_on_open_db", |b| {
        b.iter(|| runtime.block_on(pipeline.run_with(&db)).unwrap());
    });
    group.finish();
    runtime.block_on(db.close());
}

criterion_group!(benches, bench);
criterion_main!(benches);
