//! Two pipelines (separate connection pools, as two processes have) racing on one database
//! file: every job is done exactly once and none is lost.

use std::collections::BTreeMap;
use std::sync::Arc;

use agentctx_memory::Extractor;
use agentctx_memory::JOB_KIND_STAGE1;
use agentctx_memory::OfflineConsolidator;
use agentctx_memory::StateDb;
use pretty_assertions::assert_eq;

use super::support::config;
use super::support::pipeline;
use super::support::write_session;

const SESSIONS: usize = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_pipelines_racing_on_one_database_do_each_job_once() {
    let home = tempfile::tempdir().unwrap();
    for n in 0..SESSIONS {
        write_session(
            home.path(),
            &format!("/src/project{}", n % 3),
            &format!("Fix bug number {n}"),
        );
    }
    let mut first = config(home.path());
    first.max_rollouts_per_startup = 16;
    let mut second = config(home.path());
    second.max_rollouts_per_startup = 16;
    let a = pipeline(first, Extractor::Offline, Arc::new(OfflineConsolidator));
    let b = pipeline(second, Extractor::Offline, Arc::new(OfflineConsolidator));

    // Each pipeline keeps claiming until it finds nothing; both start at once.
    let drain = |run: agentctx_memory::MemoryPipeline| async move {
        let mut reports = Vec::new();
        loop {
            let report = run.run_once().await.unwrap();
            let claimed = report.phase1.claimed;
            reports.push(report);
            if claimed == 0 {
                return reports;
            }
        }
    };
    let (ra, rb) = tokio::join!(tokio::spawn(drain(a)), tokio::spawn(drain(b)));
    let reports: Vec<_> = ra.unwrap().into_iter().chain(rb.unwrap()).collect();

    let stored: usize = reports.iter().map(|r| r.phase1.succeeded_with_output).sum();
    let lost: usize = reports.iter().map(|r| r.phase1.lost).sum();
    let failed: usize = reports.iter().map(|r| r.phase1.failed).sum();
    assert_eq!(
        (stored, lost, failed),
        (SESSIONS, 0, 0),
        "no job done twice, none lost"
    );

    let db = StateDb::open(home.path()).await.unwrap();
    let jobs = db.jobs().await.unwrap();
    let stage1: Vec<_> = jobs.iter().filter(|j| j.kind == JOB_KIND_STAGE1).collect();
    assert_eq!(stage1.len(), SESSIONS);
    let mut by_state: BTreeMap<(&str, i64), usize> = BTreeMap::new();
    for job in &stage1 {
        *by_state
            .entry((job.status.as_str(), job.completions))
            .or_default() += 1;
    }
    assert_eq!(by_state, BTreeMap::from([(("done", 1), SESSIONS)]));
    let status = db.status().await.unwrap();
    assert_eq!(status.outputs, i64::try_from(SESSIONS).unwrap());
    // The last consolidation covered every output.
    let global = status.global_job.unwrap();
    assert_eq!(global.status, "done");
    assert_eq!(global.last_success_watermark, global.input_watermark);
    assert_eq!(global.lease_until, None);
}
