//! Crash safety of `agentctx memory build`: the real binary runs as a child process over a
//! folder of sessions and is killed (SIGKILL) at a random point in each of 50 runs, with new
//! sessions arriving between runs; a last run after the leases expire finishes the work. The
//! end state must hold every eligible session processed exactly once (one committed output, one
//! successful completion), no torn or temp file in the memory folder, and no lease held past
//! its expiry. The figures are printed.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use agentctx_memory::JOB_KIND_STAGE1;
use agentctx_memory::StateDb;
use agentctx_memory::TEMP_FILE_PREFIX;
use assert_cmd::cargo::CommandCargoExt;
use pretty_assertions::assert_eq;

use super::memory_sessions::remembered;
use super::memory_sessions::write_session;

const RUNS: usize = 50;
const INITIAL_SESSIONS: usize = 10;
const NEW_SESSIONS_PER_RUN: usize = 3;
/// The lease the killed runs hold; the last run waits it out.
const LEASE_SECONDS: &str = "1";

/// xorshift64*: a small deterministic generator (the seed is printed to replay a failure).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }
}

fn build_command(home: &Path, sessions: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::cargo_bin("agentctx").unwrap();
    cmd.env_clear()
        .arg("memory")
        .arg("--home")
        .arg(home)
        .arg("build")
        .arg("--from")
        .arg(sessions)
        .args([
            "--offline",
            "--min-idle-hours",
            "0",
            "--lease-seconds",
            LEASE_SECONDS,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    cmd
}

#[test]
fn killed_builds_leave_a_consistent_state_and_a_restart_finishes_the_work() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        | 1;
    let mut rng = Rng(seed);
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let sessions = root.path().join("sessions");
    let mut written = 0;
    for _ in 0..INITIAL_SESSIONS {
        write_session(root.path(), written);
        written += 1;
    }

    let started = Instant::now();
    let mut killed_while_running = 0;
    let mut finished_before_kill = 0;
    let mut delays = Vec::new();
    for _ in 0..RUNS {
        for _ in 0..NEW_SESSIONS_PER_RUN {
            write_session(root.path(), written);
            written += 1;
        }
        let delay = rng.between(2, 200);
        delays.push(delay);
        let mut child = build_command(home.path(), &sessions).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        match child.try_wait().unwrap() {
            Some(status) => {
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    std::io::Read::read_to_string(&mut pipe, &mut stderr).unwrap();
                }
                assert!(status.success(), "a run failed on its own: {stderr}");
                finished_before_kill += 1;
            }
            None => {
                // `Child::kill` sends SIGKILL on Unix.
                child.kill().unwrap();
                child.wait().unwrap();
                killed_while_running += 1;
            }
        }
    }
    let killing = started.elapsed();

    // Restart: once the killed runs' leases have expired, one run finishes everything.
    std::thread::sleep(Duration::from_millis(1_100));
    let output = build_command(home.path(), &sessions).output().unwrap();
    assert!(
        output.status.success(),
        "the final run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let total = started.elapsed();
    println!(
        "memory kill test: seed {seed}, {RUNS} runs, {killed_while_running} killed while running, \
         {finished_before_kill} finished before the kill, delays {}..{} ms, {written} sessions, \
         {:.1} s of kills, {:.1} s in all",
        delays.iter().min().unwrap(),
        delays.iter().max().unwrap(),
        killing.as_secs_f64(),
        total.as_secs_f64()
    );
    assert!(
        killed_while_running > 0,
        "no run was killed while it worked"
    );

    check_end_state(home.path(), written);
}

fn check_end_state(home: &Path, written: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (jobs, outputs, status) = runtime.block_on(async {
        let db = StateDb::open(home).await.unwrap();
        let jobs = db.jobs().await.unwrap();
        let outputs = db.list_outputs(i64::MAX).await.unwrap();
        let status = db.status().await.unwrap();
        db.close().await;
        (jobs, outputs, status)
    });
    let now = chrono::Utc::now().timestamp();

    // Every eligible session processed exactly once.
    let stage1: Vec<_> = jobs.iter().filter(|j| j.kind == JOB_KIND_STAGE1).collect();
    assert_eq!(stage1.len(), written, "one job per session");
    let mut by_state: BTreeMap<(&str, i64), usize> = BTreeMap::new();
    for job in &stage1 {
        *by_state
            .entry((job.status.as_str(), job.completions))
            .or_default() += 1;
    }
    assert_eq!(by_state, BTreeMap::from([(("done", 1), written)]));
    let expected_outputs = (0..written).filter(|n| remembered(*n)).count();
    assert_eq!(outputs.len(), expected_outputs);
    assert_eq!(status.threads, i64::try_from(written).unwrap());

    // No lease held past its expiry, and the consolidation covered everything.
    for job in &jobs {
        assert!(
            job.status != "running" || job.lease_until.is_some_and(|until| until > now),
            "stale lease: {job:?}"
        );
    }
    let global = status.global_job.unwrap();
    assert_eq!(global.status, "done");
    assert_eq!(global.last_success_watermark, global.input_watermark);

    // No torn file and no temp file in the memory folder.
    let root = home.join("memories");
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(
                !name.starts_with(TEMP_FILE_PREFIX),
                "temp file left: {name}"
            );
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            }
        }
    }
    let summaries: Vec<_> = std::fs::read_dir(root.join("rollout_summaries"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(summaries.len(), expected_outputs);
    for output in &outputs {
        let matching: Vec<_> = summaries
            .iter()
            .filter(|path| {
                std::fs::read_to_string(path)
                    .unwrap()
                    .starts_with(&format!("thread_id: {}\n", output.thread.id))
            })
            .collect();
        assert_eq!(
            matching.len(),
            1,
            "one summary file for {}",
            output.thread.id
        );
        let text = std::fs::read_to_string(matching[0]).unwrap();
        assert!(
            text.ends_with(&format!("{}\n", output.output.rollout_summary.trim())),
            "torn summary {}",
            matching[0].display()
        );
    }
    let raw = std::fs::read_to_string(root.join("raw_memories.md")).unwrap();
    let handbook = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
    for output in &outputs {
        let heading = format!("## Thread `{}`\n", output.thread.id);
        assert_eq!(raw.matches(&heading).count(), 1, "{heading}");
        let cited = format!("thread={})", output.thread.id);
        assert_eq!(
            handbook.matches(&cited).count(),
            1,
            "MEMORY.md cites {} once",
            output.thread.id
        );
    }
    assert!(
        handbook
            .trim_end()
            .ends_with("- User preference: Always run the tests before you finish.")
    );
    let summary = std::fs::read_to_string(root.join("memory_summary.md")).unwrap();
    for section in ["## User Profile", "## General Tips", "## What's in Memory"] {
        assert!(
            summary.contains(section),
            "memory_summary.md lacks {section}"
        );
    }
}
