//! Eight processes append to one `history.jsonl` with the soft cap active: every line left is
//! whole JSON, the newest entries are the ones kept, and no process fails.

use std::collections::BTreeMap;

use agentctx_context::HistoryEntry;
use agentctx_context::MessageHistory;
use pretty_assertions::assert_eq;

use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::spawn_test;

const PROCESSES: usize = 8;
const ENTRIES_PER_PROCESS: usize = 10_000;
/// Small enough that the file is trimmed a few hundred times during the run.
const MAX_BYTES: u64 = 256 * 1024;
const CHILD: &str = "suite::history_concurrency::history_writer_child";
const PARENT: &str = "eight_processes_append_to_a_capped_history_without_loss_or_torn_lines";

/// The child's work: append `ENTRIES` entries as session `writer-<ID>`, numbered in order.
#[test]
#[ignore = "child process of eight_processes_append_to_a_capped_history_without_loss_or_torn_lines"]
fn history_writer_child() {
    let path = child_env("AGENTCTX_TEST_HISTORY", PARENT);
    let writer = child_env("AGENTCTX_TEST_WRITER", PARENT);
    let entries: usize = child_env("AGENTCTX_TEST_ENTRIES", PARENT).parse().unwrap();
    let max_bytes: u64 = child_env("AGENTCTX_TEST_MAX_BYTES", PARENT)
        .parse()
        .unwrap();
    let history = MessageHistory::new(path).with_max_bytes(Some(max_bytes));
    for seq in 0..entries {
        let entry = HistoryEntry {
            session_id: format!("writer-{writer}"),
            ts: seq as u64,
            // Padding makes lines long enough for PIPE_BUF-sized interleaving to show.
            text: format!("prompt {seq} from writer {writer} {}", "x".repeat(seq % 97)),
        };
        if let Err(err) = history.append_entry(&entry) {
            panic!("writer {writer} failed at entry {seq}: {err}");
        }
    }
}

#[test]
fn eight_processes_append_to_a_capped_history_without_loss_or_torn_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let children: Vec<_> = (0..PROCESSES)
        .map(|writer| {
            spawn_test(
                CHILD,
                &[
                    ("AGENTCTX_TEST_HISTORY", path.display().to_string()),
                    ("AGENTCTX_TEST_WRITER", writer.to_string()),
                    ("AGENTCTX_TEST_ENTRIES", ENTRIES_PER_PROCESS.to_string()),
                    ("AGENTCTX_TEST_MAX_BYTES", MAX_BYTES.to_string()),
                ],
            )
        })
        .collect();
    let mut failures = Vec::new();
    for (writer, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        if !output.status.success() {
            failures.push(format!(
                "writer {writer}: {}: {}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .find(|line| line.contains("failed at entry"))
                    .unwrap_or("no panic message")
            ));
        }
    }
    assert_eq!(failures, Vec::<String>::new(), "no process may fail");

    // Every surviving line is one whole entry.
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(raw.ends_with('\n'), "the file ends with a whole line");
    let mut kept: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (index, line) in raw.lines().enumerate() {
        let entry: HistoryEntry = serde_json::from_str(line).unwrap_or_else(|err| {
            panic!("line {} is not a whole entry ({err}): {line:?}", index + 1)
        });
        kept.entry(entry.session_id).or_default().push(entry.ts);
    }
    assert!(
        raw.len() as u64 <= MAX_BYTES,
        "{} bytes over the cap",
        raw.len()
    );

    // Trimming drops the oldest lines only, so what is left of each writer is its newest
    // entries, in order, without a gap: a suffix of 0..ENTRIES.
    let last = ENTRIES_PER_PROCESS as u64 - 1;
    for (session, seqs) in &kept {
        let first = seqs[0];
        let expected: Vec<u64> = (first..=last).collect();
        assert_eq!(
            seqs, &expected,
            "{session} kept a gap or lost its newest entries"
        );
    }
    // The newest line overall is some writer's last entry.
    let newest: HistoryEntry = serde_json::from_str(raw.lines().last().unwrap()).unwrap();
    assert_eq!(newest.ts, last);
    println!(
        "history: {PROCESSES} processes x {ENTRIES_PER_PROCESS} entries, {} lines kept from {} writers, {} bytes",
        raw.lines().count(),
        kept.len(),
        raw.len()
    );
}
