//! `agentctx memory` on the bundled sample sessions and on a folder of generated ones: build
//! offline, status, show, `AGENTCTX_HOME`, and the offline throughput on 200 sessions.

use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;

use super::memory_sessions::remembered;
use super::memory_sessions::write_session;

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

/// `agentctx memory --home <home> <args>` with an empty environment.
fn memory(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(crate_dir())
        .env_clear()
        .arg("memory")
        .arg("--home")
        .arg(home)
        .args(args);
    cmd
}

fn stdout_of(mut cmd: Command) -> String {
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn offline_build_on_the_bundled_sessions_produces_the_memory_folder() {
    let home = tempfile::tempdir().unwrap();
    let out = stdout_of(memory(
        home.path(),
        &[
            "build",
            "--from",
            "examples/sessions",
            "--offline",
            "--min-idle-hours",
            "0",
        ],
    ));
    assert!(out.contains("offline: --offline was given"), "{out}");
    // The Claude Code sub-agent transcript is not an interactive session.
    assert!(
        out.contains("threads: 3 found, 3 new or changed, 0 unreadable"),
        "{out}"
    );
    assert!(out.contains("phase 1: 2 claimed, 2 remembered"), "{out}");
    assert!(
        out.contains("phase 2: consolidated (INIT) 2 new memories, watermark 2"),
        "{out}"
    );

    let root = home.path().join("memories");
    for file in ["MEMORY.md", "memory_summary.md", "raw_memories.md"] {
        assert!(root.join(file).is_file(), "{file} missing");
    }
    let summaries = std::fs::read_dir(root.join("rollout_summaries"))
        .unwrap()
        .count();
    assert_eq!(summaries, 2);

    let status = stdout_of(memory(home.path(), &["status"]));
    assert!(status.contains("threads seen: 3\n"), "{status}");
    assert!(status.contains("stage-1 outputs: 2\n"), "{status}");
    assert!(status.contains("stage-1 jobs: done=2\n"), "{status}");
    assert!(
        status.contains("consolidation: done (runs: 1)\n"),
        "{status}"
    );
    assert!(
        status.contains("watermark: 2 consolidated of 2 stored\n"),
        "{status}"
    );

    let summary = stdout_of(memory(home.path(), &["show"]));
    assert!(summary.starts_with("## User Profile\n"), "{summary}");
    assert!(summary.contains("## What's in Memory"));
    let handbook = stdout_of(memory(home.path(), &["show", "--memory"]));
    assert!(handbook.contains("# Task Group: tally"), "{handbook}");
    assert!(handbook.contains("# Task Group: feedkit"), "{handbook}");
    let rollout = stdout_of(memory(home.path(), &["show", "--rollout", "tally_report"]));
    assert!(
        rollout.starts_with("thread_id: 019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8\n"),
        "{rollout}"
    );

    // A second build finds nothing new.
    let again = stdout_of(memory(
        home.path(),
        &[
            "build",
            "--from",
            "examples/sessions",
            "--offline",
            "--min-idle-hours",
            "0",
        ],
    ));
    assert!(again.contains("phase 1: 0 claimed"), "{again}");
    assert!(
        again.contains("phase 2: nothing new to consolidate"),
        "{again}"
    );
}

#[test]
fn agentctx_home_moves_all_state_and_missing_files_are_explained() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    let output = cmd
        .current_dir(crate_dir())
        .env_clear()
        .env("AGENTCTX_HOME", home.path())
        .args([
            "memory",
            "build",
            "--from",
            "examples/sessions",
            "--offline",
            "--min-idle-hours",
            "0",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(home.path().join("state.sqlite").is_file());
    assert!(home.path().join("memories/MEMORY.md").is_file());

    let empty = tempfile::tempdir().unwrap();
    let output = memory(empty.path(), &["show", "--memory"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("MEMORY.md does not exist yet: run `agentctx memory build`"),
        "{stderr}"
    );
    let output = memory(empty.path(), &["show", "--rollout", "nothing"])
        .output()
        .unwrap();
    assert!(!output.status.success());
}

#[test]
fn a_corrupt_database_is_named_in_the_error() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("state.sqlite"), vec![b'x'; 8192]).unwrap();
    let output = memory(home.path(), &["status"]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("state.sqlite is corrupt or not ours"),
        "{stderr}"
    );
}

/// Offline throughput on 200 generated sessions (printed; wall-clock time is not asserted).
#[test]
fn offline_build_throughput_on_200_sessions() {
    const SESSIONS: usize = 200;
    let sessions = tempfile::tempdir().unwrap();
    for n in 0..SESSIONS {
        write_session(sessions.path(), n);
    }
    let home = tempfile::tempdir().unwrap();
    let from = sessions.path().join("sessions");
    let out = stdout_of(memory(
        home.path(),
        &[
            "build",
            "--from",
            from.to_str().unwrap(),
            "--offline",
            "--min-idle-hours",
            "0",
        ],
    ));
    let expected_remembered = (0..SESSIONS).filter(|n| remembered(*n)).count();
    assert!(
        out.contains(&format!(
            "phase 1: {SESSIONS} claimed, {expected_remembered} remembered, {} with nothing to remember, 0 failed",
            SESSIONS - expected_remembered
        )),
        "{out}"
    );
    let line = out
        .lines()
        .find(|line| line.starts_with("processed "))
        .unwrap();
    assert!(
        line.starts_with(&format!("processed {SESSIONS} sessions in ")),
        "{line}"
    );
    println!("memory build --offline throughput: {line}");
    let summaries = std::fs::read_dir(home.path().join("memories/rollout_summaries"))
        .unwrap()
        .count();
    assert_eq!(summaries, expected_remembered);
}
