//! A process killed (SIGKILL) at any point while it rewrites session memory leaves every file
//! whole: `summary.md` and `metadata.json` are each some complete version, and the metadata is
//! never newer than the summary (the summary is written first). The kill instants are spread
//! over the write steps (temp file, write, fsync, rename, folder fsync) by a seeded generator.

use std::io::Read;
use std::time::Duration;

use agentctx_compact::SessionMemoryMetadata;
use agentctx_compact::SessionMemoryStore;
use agentctx_test_support::child_process::Lcg;
use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::spawn_test;
use agentctx_test_support::child_process::wait_for_line;
use chrono::DateTime;

const KILLS: usize = 40;
const CHILD: &str = "suite::kill_during_writes::session_memory_writer_child";
const PARENT: &str = "a_kill_at_any_step_of_a_session_memory_write_leaves_whole_files";

/// A summary of version `n`: a header, a body long enough to take more than one write call,
/// and a footer naming the same version.
fn summary(n: u64) -> String {
    format!(
        "# version {n}\n{}\n# end of version {n}\n",
        format!("fact {n} ").repeat(20_000)
    )
}

/// The version a whole summary carries; panics on a torn one.
fn summary_version(text: &str) -> u64 {
    let header = text.lines().next().unwrap();
    let n: u64 = header.strip_prefix("# version ").unwrap().parse().unwrap();
    assert_eq!(text, summary(n), "summary.md is torn");
    n
}

fn metadata(n: u64) -> SessionMemoryMetadata {
    SessionMemoryMetadata {
        last_summarized_id: format!("item-{n}"),
        last_extraction: DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
        summary_token_count: n,
        messages_summarized: n,
    }
}

/// The child's work: rewrite the store with versions 1, 2, 3, ... until killed.
#[test]
#[ignore = "child process of a_kill_at_any_step_of_a_session_memory_write_leaves_whole_files"]
fn session_memory_writer_child() {
    let home = child_env("AGENTCTX_TEST_HOME", PARENT);
    let start: u64 = child_env("AGENTCTX_TEST_START", PARENT).parse().unwrap();
    let store = SessionMemoryStore::new(home.as_ref(), "killed-session").unwrap();
    println!("ready-to-be-killed");
    for n in start.. {
        store.write(&summary(n), &metadata(n)).unwrap();
    }
}

#[test]
fn a_kill_at_any_step_of_a_session_memory_write_leaves_whole_files() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "killed-session").unwrap();
    let mut delays = Lcg::new(15);
    let mut next_version = 1;
    let mut leftovers = 0;
    for _ in 0..KILLS {
        let mut child = spawn_test(
            CHILD,
            &[
                ("AGENTCTX_TEST_HOME", home.path().display().to_string()),
                ("AGENTCTX_TEST_START", next_version.to_string()),
            ],
        );
        let _rest = wait_for_line(child.stdout.take().unwrap(), "ready-to-be-killed");
        // One write of both files takes a few milliseconds; kill somewhere within the first
        // few writes.
        std::thread::sleep(Duration::from_micros(delays.below(20_000)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(
            !status.success(),
            "the child is killed, it never finishes: {stderr}"
        );

        let summary_text = store.read_summary().unwrap();
        let metadata_read = store.read_metadata().unwrap();
        match (summary_text, metadata_read) {
            (None, None) => {}
            (Some(text), None) => {
                summary_version(&text);
            }
            (Some(text), Some(meta)) => {
                let version = summary_version(&text);
                assert_eq!(
                    meta.last_summarized_id,
                    format!("item-{}", meta.messages_summarized)
                );
                assert!(
                    meta.messages_summarized <= version,
                    "metadata {} is newer than summary {version}",
                    meta.messages_summarized
                );
                next_version = version + 1;
            }
            (None, Some(meta)) => panic!("metadata {meta:?} without a summary"),
        }
        // Temporary files a kill left behind: counted, they never replace a target.
        leftovers = std::fs::read_dir(store.dir())
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                name != "summary.md" && name != "metadata.json"
            })
            .count();
    }
    println!(
        "session memory: {KILLS} kills, last version {next_version}, {leftovers} temp files left"
    );
}
