//! `agentctx replay` through the engine (docs/design/performance.md, "`agentctx replay` through
//! the engine"): the replay of one Codex session repeated into two files of different sizes.
//!
//! The bundled Codex sample (`examples/sessions/rollout-2025-11-24T09-31-07-*.jsonl`) is written
//! to temporary files with its header once and the rest of its lines repeated 50 and 400 times
//! (8.6 and 68.8 MB), then replayed as `agentctx replay --json` replays it: the default reminder
//! settings, the engine run before every recorded model request, the file read ahead on a second
//! thread, the turns serialised as the JSON report writes them (each turn's JSON, the two halves
//! of the turns on two threads, `agentctx_engine::replay::turns_json`), and the binary's allocator
//! (mimalloc).
//!
//! - `replay_throughput/codex_small` and `replay_throughput/codex_large`: the replay of the two
//!   files. Their throughputs should be within 1.3× of each other (the replay is linear in the
//!   session) and the large one at least 300 MB/s;
//! - `replay_throughput/codex_large_one_thread`: the large file read on the replay's thread
//!   (`ReplayOptions::read_ahead` off), and `replay_throughput/codex_large_no_reminders` without
//!   reminders (`--no-reminders`), for comparison;
//! - `replay_throughput/lazy_read_large`: the yardstick, the large file read lazily (each
//!   record's kind and payload type looked at, nothing typed): what a replay costs at least.
//!
//! The sample compacts, so the replayed history never grows past one copy of it. A session that
//! never compacts is generated beside it (`replay_throughput/uncompacted_session.rs`: units of
//! six turns and 39 shell calls, about 335 KB each, as one session whose history and recorded
//! input grow to the end), 25 and 200 units (8.3 and 67.1 MB):
//!
//! - `replay_throughput/uncompacted_small` and `replay_throughput/uncompacted_large`: its
//!   replay, with the same goals (at least 300 MB/s at 67.1 MB, the two within 1.3×): only our
//!   own tiers (micro-compaction, and full compaction where the engine decides it) keep the
//!   replayed history from growing with the file, so a step whose cost grows with the history
//!   shows here and not in the sample's lines;
//! - `replay_throughput/lazy_read_uncompacted_large`: its yardstick, the large file read lazily.
//!
//! The file sizes are recorded so `cargo xtask bench` reports throughputs. Run with
//! `cargo bench -p agentctx-engine --bench replay_throughput`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::hint::black_box;
use std::path::Path;

use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::replay_file;
use agentctx_engine::replay::turns_json;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::RolloutReader;
use criterion::Criterion;
use criterion::Throughput;
use criterion::criterion_group;
use criterion::criterion_main;

#[path = "replay_throughput/uncompacted_session.rs"]
mod uncompacted_session;

/// The allocator of the `agentctx` binary, so the bench measures what the command does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The bundled Codex sample (`examples/sessions/rollout-2025-11-24T09-31-07-*.jsonl` of the
/// repository), copied here so the crate benches on its own when vendored.
const SAMPLE: &str = include_str!("fixtures/codex-sample.jsonl");
const SMALL_COPIES: usize = 50;
const LARGE_COPIES: usize = 400;
/// Units of the generated session that never compacts (341 KB each).
const UNCOMPACTED_SMALL_UNITS: usize = 25;
const UNCOMPACTED_LARGE_UNITS: usize = 200;
const UNCOMPACTED_SEED: u64 = 0x5e55_1011;

/// The sample's header line, then the rest of its lines `copies` times.
fn session(copies: usize) -> String {
    let (header, rest) = SAMPLE.split_once('\n').unwrap();
    let mut out = String::with_capacity(header.len() + 1 + rest.len() * copies);
    out.push_str(header);
    out.push('\n');
    for _ in 0..copies {
        out.push_str(rest);
    }
    out
}

/// Replays `path` as `agentctx replay --json` does, the turns written as its JSON report does.
fn replay(path: &Path, options: &ReplayOptions) -> usize {
    let replay = replay_file(path, options, None).unwrap();
    serde_json::to_writer(std::io::sink(), &turns_json(&replay.turns).unwrap()).unwrap();
    replay.requests.len()
}

/// The yardstick: every record of `path` read lazily, its kind and payload type looked at.
fn read_lazy(path: &Path) -> usize {
    let mut reader = RolloutReader::open(path).unwrap();
    let mut seen = 0;
    for event in reader.lazy() {
        if let LazyReadEvent::Record(record) = event.unwrap() {
            seen += record.kind().len() + record.payload_type().map_or(0, str::len);
        }
    }
    seen
}

/// Writes a figure for `cargo xtask bench` when it asked for them.
fn record(key: &str, value: f64) {
    if let Some(dir) = std::env::var_os("AGENTCTX_BENCH_FIGURES") {
        std::fs::write(Path::new(&dir).join(key), value.to_string()).unwrap();
    }
}

fn bench_replay(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let options = ReplayOptions {
        home: dir.path().join("home"),
        read_ahead: true,
        ..ReplayOptions::default()
    };
    let one_thread = ReplayOptions {
        read_ahead: false,
        ..options.clone()
    };
    let without_reminders = ReplayOptions {
        reminders: None,
        ..options.clone()
    };
    let mut group = c.benchmark_group("replay_throughput");
    group.sample_size(10);
    for (name, copies) in [("codex_small", SMALL_COPIES), ("codex_large", LARGE_COPIES)] {
        let text = session(copies);
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, &text).unwrap();
        record(&format!("replay_{name}_bytes"), text.len() as f64);
        assert!(replay(&path, &options) > copies);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| replay(black_box(&path), &options)));
        if copies == LARGE_COPIES {
            group.bench_function(format!("{name}_one_thread"), |b| {
                b.iter(|| replay(black_box(&path), &one_thread));
            });
            group.bench_function(format!("{name}_no_reminders"), |b| {
                b.iter(|| replay(black_box(&path), &without_reminders));
            });
            group.bench_function("lazy_read_large", |b| {
                b.iter(|| read_lazy(black_box(&path)));
            });
        }
    }
    for (name, units) in [
        ("uncompacted_small", UNCOMPACTED_SMALL_UNITS),
        ("uncompacted_large", UNCOMPACTED_LARGE_UNITS),
    ] {
        let session = uncompacted_session::uncompacted_session(units, UNCOMPACTED_SEED);
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, &session.text).unwrap();
        record(&format!("replay_{name}_bytes"), session.text.len() as f64);
        let replayed = replay_file(&path, &options, None).unwrap();
        assert!(
            replayed.skipped.is_empty(),
            "{:?}",
            replayed.skipped.first()
        );
        assert_eq!(
            (
                replayed.turns.len(),
                replayed.tool_calls,
                replayed.compactions
            ),
            (session.turns, session.shell_calls, 0)
        );
        assert!(replayed.requests.len() >= session.requests);
        group.throughput(Throughput::Bytes(session.text.len() as u64));
        group.bench_function(name, |b| b.iter(|| replay(black_box(&path), &options)));
        if units == UNCOMPACTED_LARGE_UNITS {
            assert!(session.last_input_tokens > 10_000_000);
            group.bench_function("lazy_read_uncompacted_large", |b| {
                b.iter(|| read_lazy(black_box(&path)));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_replay);
criterion_main!(benches);
