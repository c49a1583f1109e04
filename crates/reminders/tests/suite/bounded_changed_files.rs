//! A 500,000-line file the model read, then rewritten on disk: change detection and the diff
//! for `changed_files` finish in bounded memory (a child process reports its peak RSS) and
//! within the diff's time budget, however many lines changed.

use agentctx_reminders::DiffOptions;
use agentctx_reminders::FileChangeKind;
use agentctx_reminders::FileTracker;
use agentctx_reminders::unified_diff_with_line_numbers;
use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::peak_rss_kib;
use agentctx_test_support::child_process::spawn_test;

const LINES: usize = 500_000;
const CHILD: &str = "suite::bounded_changed_files::changed_file_child";
const PARENT: &str = "a_rewritten_500000_line_file_is_diffed_in_bounded_memory";
const MAX_PEAK_RSS_MIB: u64 = 256;

fn file_text(version: usize) -> String {
    // Every tenth line changes between versions: about 50,000 hunks' worth of edits.
    (0..LINES)
        .map(|n| {
            if n % 10 == 0 {
                format!("{n} v{version}\n")
            } else {
                format!("{n}\n")
            }
        })
        .collect()
}

/// The child's work: read version 1, rewrite to version 2, detect and diff; print the figures.
#[test]
#[ignore = "child process of a_rewritten_500000_line_file_is_diffed_in_bounded_memory"]
fn changed_file_child() {
    let path = std::path::PathBuf::from(child_env("AGENTCTX_TEST_FILE", PARENT));
    let first = file_text(1);
    std::fs::write(&path, &first).unwrap();
    let tracker = FileTracker::new();
    tracker.track_read(&path, first, 1, None, None);
    std::fs::write(&path, file_text(2)).unwrap();
    let changes = tracker.detect_changes();
    assert_eq!(changes.len(), 1);
    let FileChangeKind::Modified { old, new, .. } = &changes[0].kind else {
        panic!("expected a modification");
    };
    let diff = unified_diff_with_line_numbers(old, new, DiffOptions::default());
    let peak = peak_rss_kib(std::process::id()).unwrap();
    println!("diff_bytes={} peak_kib={peak}", diff.len());
}

#[test]
fn a_rewritten_500000_line_file_is_diffed_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.txt");
    let child = spawn_test(CHILD, &[("AGENTCTX_TEST_FILE", file.display().to_string())]);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = stdout
        .lines()
        .find_map(|line| line.find("diff_bytes=").and_then(|at| line.get(at..)))
        .unwrap();
    let field = |name: &str| -> u64 {
        report
            .split_whitespace()
            .find_map(|pair| pair.strip_prefix(name))
            .unwrap()
            .parse()
            .unwrap()
    };
    let (diff_bytes, peak_kib) = (field("diff_bytes="), field("peak_kib="));
    let file_bytes = std::fs::metadata(&file).unwrap().len();
    println!(
        "changed_files: {LINES} lines ({file_bytes} bytes), diff {diff_bytes} bytes, child peak RSS {} MiB",
        peak_kib >> 10
    );
    assert!(diff_bytes > 0);
    assert!(
        peak_kib >> 10 <= MAX_PEAK_RSS_MIB,
        "peak RSS {peak_kib} KiB"
    );
}
