//! Target 4 of the performance work (docs/design/performance.md): reading session files.
//!
//! A generated Codex rollout and Claude Code transcript (the test fixtures repeated 400 times,
//! a few MB each) are written to temporary files and read back:
//!
//! - `read_rollout/codex` and `read_rollout/claude`: `RolloutReader::open` over the file, every
//!   event consumed (what `agentctx replay` does before its own work);
//! - `read_rollout/raw_read_codex` and `read_rollout/raw_read_claude`: the yardstick, the same
//!   file read from the page cache in 256 KiB chunks and its newlines counted;
//! - `json_parse/serde_json_value`: parsing every line of the Codex file into a
//!   `serde_json::Value`, the first step of the reader; `json_parse/sonic_rs_to_serde_json_value`
//!   the same through sonic-rs (a drop-in for that step), and `json_parse/sonic_rs_value` into
//!   sonic-rs's own tree (what a reader rewritten around sonic-rs would get).
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

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use criterion::Criterion;
use criterion::Throughput;
use criterion::criterion_group;
use criterion::criterion_main;

const CODEX_TURN: &str = include_str!("../tests/fixtures/codex_current.jsonl");
const CLAUDE_TURN: &str = include_str!("../tests/fixtures/claude_2x.jsonl");
const COPIES: usize = 400;

/// `copies` repetitions of a fixture (the first line, a header, only once).
fn session(fixture: &str, copies: usize) -> Vec<u8> {
    let mut lines = fixture.lines();
    let mut out = String::new();
    if let Some(header) = lines.next() {
        out.push_str(header);
        out.push('\n');
    }
    let body: Vec<&str> = lines.collect();
    for _ in 0..copies {
        for line in &body {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.into_bytes()
}

fn read_all(path: &Path) -> usize {
    RolloutReader::open(path)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|event| matches!(event, ReadEvent::Record(_)))
        .count()
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

fn bench_read(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("read_rollout");
    for (name, fixture) in [("codex", CODEX_TURN), ("claude", CLAUDE_TURN)] {
        let bytes = session(fixture, COPIES);
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, &bytes).unwrap();
        record(&format!("rollout_{name}_bytes"), bytes.len() as f64);
        assert!(read_all(&path) > COPIES);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(name, |b| b.iter(|| read_all(black_box(&path))));
        group.bench_function(format!("raw_read_{name}"), |b| {
            b.iter(|| raw_read(black_box(&path)));
        });
    }
    group.finish();

    let codex = session(CODEX_TURN, COPIES);
    let mut json = c.benchmark_group("json_parse");
    json.throughput(Throughput::Bytes(codex.len() as u64));
    json.bench_function("serde_json_value", |b| {
        b.iter(|| {
            codex
                .split(|byte| *byte == b'\n')
                .filter(|line| !line.is_empty())
                .filter(|line| serde_json::from_slice::<serde_json::Value>(line).is_ok())
                .count()
        });
    });
    json.bench_function("sonic_rs_to_serde_json_value", |b| {
        b.iter(|| {
            codex
                .split(|byte| *byte == b'\n')
                .filter(|line| !line.is_empty())
                .filter(|line| sonic_rs::from_slice::<serde_json::Value>(line).is_ok())
                .count()
        });
    });
    json.bench_function("sonic_rs_value", |b| {
        b.iter(|| {
            codex
                .split(|byte| *byte == b'\n')
                .filter(|line| !line.is_empty())
                .filter(|line| sonic_rs::from_slice::<sonic_rs::Value>(line).is_ok())
                .count()
        });
    });
    json.finish();
}

criterion_group!(benches, bench_read);
criterion_main!(benches);
