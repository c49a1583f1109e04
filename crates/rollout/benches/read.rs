//! Target 4 of the performance work (docs/design/performance.md): reading session files.
//!
//! A generated Codex rollout and Claude Code transcript (the test fixtures repeated 400 times,
//! a few MB each; each copy of the Claude Code fixture gets its own uuids, so the transcript is
//! one tree of 400 conversations rather than one conversation written 400 times) are written to
//! temporary files and read back:
//!
//! - `read_rollout/codex_lazy` and `read_rollout/claude_lazy`: `RolloutReader::open` over the
//!   file, every lazy event consumed with its kind and payload type looked at (the records a
//!   pipeline gets before it types what it needs): the target's figure;
//! - `read_rollout/claude_tool_output_lazy` and `read_rollout/raw_read_claude_tool_output`: the
//!   lazy read and its yardstick over the Claude Code fixture whose two tool results each carry
//!   about 7 KB of output (in the block and in `toolUseResult`, as Claude Code writes it), so
//!   tool output is most of the file, as in a working session's transcript;
//! - `read_rollout/claude_lazy_no_helper`: the same two-pass read without the helper thread
//!   (`RolloutReader::with_helper_thread(false)`): each pass reads every line, on one thread;
//! - `read_rollout/claude_lazy_one_pass`: the Claude Code read from a source that cannot seek,
//!   in one pass, its records held until the end of the file (what the second pass costs);
//! - `read_rollout/codex` and `read_rollout/claude`: the same read typed, every record with its
//!   payload fidelity (what every reader paid before lazy lines);
//! - `read_rollout/raw_read_codex` and `read_rollout/raw_read_claude`: the yardstick, the same
//!   file read from the page cache in 256 KiB chunks and its newlines counted;
//! - `json_parse/serde_json_value`: parsing every line of the Codex file into a
//!   `serde_json::Value`, the typed reader's first step; `json_parse/serde_json_ignored_any`
//!   the same lines only validated (serde_json's floor for a reader that checks its input);
//!   `json_parse/lazy_envelope` the same lines read as `LazyRolloutLine`s;
//!   `json_parse/sonic_rs_to_serde_json_value` through sonic-rs (a drop-in for the first step),
//!   and `json_parse/sonic_rs_value` into sonic-rs's own tree.
//!
//! The file sizes are recorded so `cargo xtask bench` reports throughputs. Run with
//! `cargo bench -p agentctx-rollout --bench read`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::hint::black_box;
use std::io::Read;
use std::path::Path;

use agentctx_protocol::LazyRolloutLine;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use criterion::Criterion;
use criterion::Throughput;
use criterion::criterion_group;
use criterion::criterion_main;

const CODEX_TURN: &str = include_str!("../tests/fixtures/codex_current.jsonl");
const CLAUDE_TURN: &str = include_str!("../tests/fixtures/claude_2x.jsonl");
const COPIES: usize = 400;

/// `copies` repetitions of a fixture (the first line, a header, only once), each copy's uuids
/// made its own when `fresh_uuids`.
fn session(fixture: &str, copies: usize, fresh_uuids: bool) -> Vec<u8> {
    let mut lines = fixture.lines();
    let mut out = String::new();
    if let Some(header) = lines.next() {
        out.push_str(header);
        out.push('\n');
    }
    let body: Vec<&str> = lines.collect();
    for copy in 0..copies {
        for line in &body {
            if fresh_uuids {
                out.push_str(&with_copy_uuids(line, copy));
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// `line` with the last 12 digits of every canonical uuid replaced by the copy's number.
fn with_copy_uuids(line: &str, copy: usize) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    let mut copied = 0;
    while at + 36 <= bytes.len() {
        // Of the forms the `uuid` crate reads, only the hyphenated one is 36 bytes long.
        if uuid::Uuid::try_parse_ascii(&bytes[at..at + 36]).is_ok() {
            out.push_str(&line[copied..at + 24]);
            out.push_str(&format!("{copy:012x}"));
            at += 36;
            copied = at;
        } else {
            at += 1;
        }
    }
    out.push_str(&line[copied..]);
    out
}

fn read_typed(path: &Path) -> usize {
    RolloutReader::open(path)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|event| matches!(event, ReadEvent::Record(_)))
        .count()
}

/// Every lazy record, its kind and payload type looked at (as a pipeline choosing what to type).
fn read_lazy(path: &Path) -> usize {
    let mut reader = RolloutReader::open(path).unwrap();
    let mut seen = 0;
    for event in reader.lazy() {
        if let Ok(LazyReadEvent::Record(record)) = event {
            seen += record.kind().len() + record.payload_type().map_or(0, str::len);
        }
    }
    seen
}

/// [`read_lazy`] without the helper thread: both passes read every line, on this thread.
fn read_lazy_without_helper(path: &Path) -> usize {
    let mut reader = RolloutReader::open(path).unwrap().with_helper_thread(false);
    let mut seen = 0;
    for event in reader.lazy() {
        if let Ok(LazyReadEvent::Record(record)) = event {
            seen += record.kind().len() + record.payload_type().map_or(0, str::len);
        }
    }
    seen
}

/// The tool output every tool result of [`with_long_tool_outputs`] carries: 120 numbered lines
/// of code (about 7 KB), with the tabs and quotes a file read has.
fn long_tool_output() -> String {
    (1..=120)
        .map(|n| {
            format!("{n:>6}\t    let value_{n} = compute(\"item {n}\", &config)?; // step {n}\n")
        })
        .collect()
}

/// `fixture` with every tool result carrying [`long_tool_output`], in its block and in the
/// record's `toolUseResult` (Claude Code writes a tool's output twice), so tool output is most
/// of the bytes, as in a working session's transcript. Other lines stay as they are.
fn with_long_tool_outputs(fixture: &str) -> String {
    use serde_json::Value;
    let output = Value::String(long_tool_output());
    let mut out = String::new();
    for line in fixture.lines() {
        let mut record: Value = match serde_json::from_str(line) {
            Ok(record) => record,
            Err(_) => {
                out.push_str(line);
                out.push('\n');
                continue;
            }
        };
        let mut changed = false;
        if let Some(blocks) = record
            .pointer_mut("/message/content")
            .and_then(Value::as_array_mut)
        {
            for block in blocks {
                if block.get("type").and_then(Value::as_str) == Some("tool_result") {
                    block["content"] = output.clone();
                    changed = true;
                }
            }
        }
        if changed {
            if let Some(result) = record
                .get_mut("toolUseResult")
                .and_then(Value::as_object_mut)
            {
                result.insert("content".to_string(), output.clone());
            }
            out.push_str(&serde_json::to_string(&record).unwrap());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// [`read_lazy`] in one pass, the records held until the end of the file (a source that cannot
/// seek).
fn read_lazy_one_pass(path: &Path) -> usize {
    let file = std::fs::File::open(path).unwrap();
    let mut reader = RolloutReader::new(path, std::io::BufReader::with_capacity(256 * 1024, file));
    let mut seen = 0;
    for event in reader.lazy() {
        if let Ok(LazyReadEvent::Record(record)) = event {
            seen += record.kind().len() + record.payload_type().map_or(0, str::len);
        }
    }
    seen
}

/// The yardstick: the file's bytes from the page cache, newlines counted so the read is used.
fn raw_read(path: &Path) -> usize {
    let mut file = std::fs::File::open(path).unwrap();
    let mut buffer = vec![0u8; 256 * 1024];
    let mut lines = 0;
    loop {
        let read = file.read(&mut buffer).unwrap();
        if read == 0 {
            return lines;
        }
        lines += buffer[..read].iter().filter(|byte| **byte == b'\n').count();
    }
}

/// Writes a figure for `cargo xtask bench` when it asked for them.
fn record(key: &str, value: f64) {
    if let Some(dir) = std::env::var_os("AGENTCTX_BENCH_FIGURES") {
        std::fs::write(std::path::Path::new(&dir).join(key), value.to_string()).unwrap();
    }
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
}

fn bench_read(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("read_rollout");
    for (name, fixture, fresh_uuids) in
        [("codex", CODEX_TURN, false), ("claude", CLAUDE_TURN, true)]
    {
        let bytes = session(fixture, COPIES, fresh_uuids);
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, &bytes).unwrap();
        record(&format!("rollout_{name}_bytes"), bytes.len() as f64);
        assert!(read_typed(&path) > COPIES);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("{name}_lazy"), |b| {
            b.iter(|| read_lazy(black_box(&path)));
        });
        if fresh_uuids {
            group.bench_function(format!("{name}_lazy_no_helper"), |b| {
                b.iter(|| read_lazy_without_helper(black_box(&path)));
            });
            group.bench_function(format!("{name}_lazy_one_pass"), |b| {
                b.iter(|| read_lazy_one_pass(black_box(&path)));
            });
        }
        group.bench_function(name, |b| b.iter(|| read_typed(black_box(&path))));
        group.bench_function(format!("raw_read_{name}"), |b| {
            b.iter(|| raw_read(black_box(&path)));
        });
    }
    // The Claude Code transcript again, its tool results long (the lazy read and its yardstick).
    let bytes = session(&with_long_tool_outputs(CLAUDE_TURN), COPIES, true);
    let path = dir.path().join("claude_tool_output.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    record("rollout_claude_tool_output_bytes", bytes.len() as f64);
    assert!(read_typed(&path) > COPIES);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("claude_tool_output_lazy", |b| {
        b.iter(|| read_lazy(black_box(&path)));
    });
    group.bench_function("raw_read_claude_tool_output", |b| {
        b.iter(|| raw_read(black_box(&path)));
    });
    group.finish();

    let codex = session(CODEX_TURN, COPIES, false);
    let mut json = c.benchmark_group("json_parse");
    json.throughput(Throughput::Bytes(codex.len() as u64));
    json.bench_function("serde_json_value", |b| {
        b.iter(|| {
            lines(&codex)
                .filter(|line| serde_json::from_slice::<serde_json::Value>(line).is_ok())
                .count()
        });
    });
    json.bench_function("serde_json_ignored_any", |b| {
        b.iter(|| {
            lines(&codex)
                .filter(|line| serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok())
                .count()
        });
    });
    json.bench_function("lazy_envelope", |b| {
        b.iter(|| {
            lines(&codex)
                .filter(|line| LazyRolloutLine::parse(line).is_ok())
                .count()
        });
    });
    json.bench_function("sonic_rs_to_serde_json_value", |b| {
        b.iter(|| {
            lines(&codex)
                .filter(|line| sonic_rs::from_slice::<serde_json::Value>(line).is_ok())
                .count()
        });
    });
    json.bench_function("sonic_rs_value", |b| {
        b.iter(|| {
            lines(&codex)
                .filter(|line| sonic_rs::from_slice::<sonic_rs::Value>(line).is_ok())
                .count()
        });
    });
    json.finish();
}

criterion_group!(benches, bench_read);
criterion_main!(benches);
