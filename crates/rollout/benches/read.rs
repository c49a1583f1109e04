//! Throughput of the rollout reader on a generated Codex rollout and Claude Code transcript.

use std::hint::black_box;
use std::io::BufReader;
use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use criterion::Criterion;
use criterion::Throughput;
use criterion::criterion_group;
use criterion::criterion_main;

const CODEX_TURN: &str = include_str!("../tests/fixtures/codex_current.jsonl");
const CLAUDE_TURN: &str = include_str!("../tests/fixtures/claude_2x.jsonl");

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

fn read_all(bytes: &[u8]) -> usize {
    let reader = RolloutReader::new(Path::new("bench.jsonl"), BufReader::new(Cursor::new(bytes)));
    reader
        .filter_map(Result::ok)
        .filter(|event| matches!(event, ReadEvent::Record(_)))
        .count()
}

fn bench_read(c: &mut Criterion) {
    let mut group = c.benchmark_group("read_rollout");
    for (name, fixture) in [("codex", CODEX_TURN), ("claude", CLAUDE_TURN)] {
        let bytes = session(fixture, 400);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(name, |b| b.iter(|| read_all(black_box(&bytes))));
    }
    group.finish();
}

criterion_group!(benches, bench_read);
criterion_main!(benches);
