//! A huge rollout is streamed, never loaded whole: a child process reads a generated file
//! through `RolloutReader` and reports its peak resident memory (`VmHWM`), which must stay far
//! below the file's size.

use std::io::BufWriter;
use std::io::Write;
use std::path::Path;

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::peak_rss_kib;
use agentctx_test_support::child_process::spawn_test;

const CHILD: &str = "suite::bounded_memory::rollout_reader_child";
const PARENT: &str = "a_huge_rollout_is_read_in_bounded_memory";
/// Peak memory allowed to the reading child, whatever the file's size.
const MAX_PEAK_RSS_MIB: u64 = 64;

/// Writes a rollout of about `bytes` bytes: the fixture's header, then function-call outputs
/// of 4 KiB each, as a long tool-heavy session has.
fn write_rollout(path: &Path, bytes: u64) -> u64 {
    let header = include_str!("../fixtures/codex_current.jsonl")
        .lines()
        .next()
        .unwrap();
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    writeln!(out, "{header}").unwrap();
    let output = "o".repeat(4096);
    let mut written = header.len() as u64 + 1;
    let mut lines = 0u64;
    while written < bytes {
        let line = format!(
            r#"{{"timestamp":"2025-11-14T08:12:13.690Z","type":"response_item","payload":{{"type":"function_call_output","call_id":"call_{lines}","output":"{output}"}}}}"#
        );
        writeln!(out, "{line}").unwrap();
        written += line.len() as u64 + 1;
        lines += 1;
    }
    out.flush().unwrap();
    lines
}

/// The child's work: stream the file, print the record count and its own peak memory.
#[test]
#[ignore = "child process of a_huge_rollout_is_read_in_bounded_memory"]
fn rollout_reader_child() {
    let path = child_env("AGENTCTX_TEST_ROLLOUT", PARENT);
    let mut records = 0u64;
    let mut skipped = 0u64;
    for event in RolloutReader::open(Path::new(&path)).unwrap() {
        match event.unwrap() {
            ReadEvent::Record(_) => records += 1,
            ReadEvent::Skipped(_) => skipped += 1,
        }
    }
    let peak = peak_rss_kib(std::process::id()).unwrap();
    println!("records={records} skipped={skipped} peak_kib={peak}");
}

fn read_in_child(path: &Path) -> (u64, u64, u64) {
    let child = spawn_test(
        CHILD,
        &[("AGENTCTX_TEST_ROLLOUT", path.display().to_string())],
    );
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = stdout.lines().find_map(|line| {
        let at = line.find("records=")?;
        line.get(at..)
    });
    let field = |name: &str| -> u64 {
        report
            .unwrap()
            .split_whitespace()
            .find_map(|pair| pair.strip_prefix(name))
            .unwrap()
            .parse()
            .unwrap()
    };
    (field("records="), field("skipped="), field("peak_kib="))
}

/// Generates a rollout of `bytes` bytes, reads it in a child; returns the records read and the
/// child's peak RSS in KiB.
fn check(bytes: u64) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-huge.jsonl");
    let lines = write_rollout(&path, bytes);
    let (records, skipped, peak_kib) = read_in_child(&path);
    assert_eq!(skipped, 0);
    // The header plus every generated line.
    assert_eq!(records, lines + 1);
    assert!(
        peak_kib >> 10 <= MAX_PEAK_RSS_MIB,
        "peak RSS {peak_kib} KiB reading a {bytes}-byte rollout"
    );
    (records, peak_kib)
}

/// One gigabyte, generated in a temporary folder: about 23 s on a loaded two-core machine
/// with a debug build, so it runs with the rest (docs/reliability.md has the figures).
#[test]
fn a_huge_rollout_is_read_in_bounded_memory() {
    let (records, peak_kib) = check(1 << 30);
    println!(
        "rollout: 1024 MiB, {records} records, child peak RSS {} MiB",
        peak_kib >> 10
    );
}
