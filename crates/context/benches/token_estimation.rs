//! Target 2 of the performance work (docs/design/performance.md): the calibrated estimator
//! against the o200k tokenizer on the mixed corpus of `benches/fixtures/tokens/`.
//!
//! Times `CalibratedTokenEstimator`, `O200kTokenEstimator` (tiktoken-rs) and the bytes/4
//! heuristic over the whole corpus, and records the token totals of each so `cargo xtask bench`
//! can print the accuracy beside the speed. Run with
//! `cargo bench -p agentctx-context --features tiktoken --bench token_estimation`.

use std::hint::black_box;

use agentctx_context::ApproxTokenEstimator;
use agentctx_context::CalibratedTokenEstimator;
use agentctx_context::O200kTokenEstimator;
use agentctx_context::TokenEstimator;
use criterion::Criterion;
use criterion::Throughput;
use criterion::criterion_group;
use criterion::criterion_main;

const CORPUS: [&str; 7] = [
    include_str!("fixtures/tokens/code_truncate.rs.txt"),
    include_str!("fixtures/tokens/code_diff.rs.txt"),
    include_str!("fixtures/tokens/code_reader.rs.txt"),
    include_str!("fixtures/tokens/prose_context.md"),
    include_str!("fixtures/tokens/prose_reminders.md"),
    include_str!("fixtures/tokens/tool_output.json"),
    include_str!("fixtures/tokens/cjk.txt"),
];

fn total(estimator: &dyn TokenEstimator) -> u64 {
    CORPUS
        .iter()
        .map(|text| estimator.estimate_text(black_box(text)))
        .sum()
}

/// Writes a figure for `cargo xtask bench` when it asked for them.
fn record(key: &str, value: f64) {
    if let Some(dir) = std::env::var_os("AGENTCTX_BENCH_FIGURES") {
        let path = std::path::Path::new(&dir).join(key);
        if let Err(err) = std::fs::write(&path, value.to_string()) {
            #[expect(clippy::print_stderr, reason = "a bench reports what it cannot record")]
            {
                eprintln!("cannot record {}: {err}", path.display());
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let exact = O200kTokenEstimator::new();
    record("tokens_o200k", total(&exact) as f64);
    record("tokens_calibrated", total(&CalibratedTokenEstimator) as f64);
    record("tokens_bytes4", total(&ApproxTokenEstimator) as f64);

    let bytes: usize = CORPUS.iter().map(|text| text.len()).sum();
    let mut group = c.benchmark_group("token_estimation");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("calibrated", |b| {
        b.iter(|| total(&CalibratedTokenEstimator));
    });
    group.bench_function("bytes4", |b| b.iter(|| total(&ApproxTokenEstimator)));
    group.sample_size(10);
    group.bench_function("o200k", |b| b.iter(|| total(&exact)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
