//! The per-request pipeline with and without the cost model (docs/design/cost-model.md,
//! "What it costs"): an engine on a 1,000,000-token window holding a generated history (40
//! turns, each a user message and 24 shell calls with results of about 1,000 tokens, and an
//! assistant message; one request sent after the first turn), then requests, each after one more
//! shell call: the reminders (none configured), micro-compaction and the usage accounting of
//! `ContextEngine::prepare_request`.
//!
//! - `per_request_cost/first_*`: the first request after the history piled up, alone.
//!   `first_without` (`micro.cost_aware` off) clears the old results; `first_cold` (the cost
//!   model on, the request 6 minutes after the last one, past the 5-minute cache) takes the same
//!   decision, priced first; `first_warm` (10 seconds after) prices the clear on a whole plan and
//!   keeps the results.
//! - `per_request_cost/{without,cold,warm}`: the 20 requests after that first one (sent in the
//!   setup), 10 seconds, 6 minutes and 10 seconds apart. `without` and `cold` take the same
//!   decisions (nothing is left worth clearing), `cold` pricing them: their difference is what
//!   the cost model adds to the pipeline. `warm` keeps the old results and prices each request
//!   on the kept plan (a new plan only when even an optimistic update of it would pay).
//!
//! Run with `cargo bench -p agentctx-engine --bench per_request_cost`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::hint::black_box;
use std::time::Duration;

use agentctx_compact::CompactConfig;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::HostState;
use agentctx_engine::cost_model::CostModel;
use agentctx_protocol::ResponseItem;
use criterion::BatchSize;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;

const TURNS: usize = 40;
const CALLS_PER_TURN: usize = 24;
const REQUESTS: usize = 20;
const START: &str = "2025-11-24T09:00:00Z";

fn output(n: usize) -> String {
    let lines: String = (0..70)
        .map(|line| format!("src/module_{n}/file.rs:{line}: let value = compute({line});\n"))
        .collect();
    format!("Exit code: 0\nOutput:\n{lines}")
}

fn call(n: usize) -> [ResponseItem; 2] {
    let id = format!("call_{n}");
    [
        ResponseItem::function_call(&id, "shell", format!(r#"{{"command":["cat","f{n}"]}}"#)),
        ResponseItem::function_call_output(&id, output(n)),
    ]
}

fn at(engine: &mut ContextEngine, secs: u64) {
    let start = chrono::DateTime::parse_from_rfc3339(START).unwrap();
    let time = start + chrono::Duration::seconds(i64::try_from(secs).unwrap());
    engine.observe_recorded_time(&time.to_rfc3339());
}

/// The engine with the generated history, its last request sent at second 0.
fn engine(
    cost_aware: bool,
    runtime: &tokio::runtime::Runtime,
) -> (tempfile::TempDir, ContextEngine) {
    let home = tempfile::tempdir().unwrap();
    let mut config = CompactConfig::default();
    config.micro.cost_aware = cost_aware;
    let reminders = agentctx_reminders::SystemReminderConfig {
        enabled: false,
        ..Default::default()
    };
    let options = EngineOptions::new(home.path(), home.path(), "bench", reminders, config)
        .with_window(1_000_000, Some(64_000));
    let mut engine = ContextEngine::for_replay(options, false);
    engine.set_cost_model(CostModel::for_model("claude-sonnet-4-5", None));
    let mut n = 0;
    for turn in 0..TURNS {
        engine.record_items(&[ResponseItem::user_text(format!("task {turn}"))]);
        for _ in 0..CALLS_PER_TURN {
            engine.record_items(&call(n));
            n += 1;
        }
        engine.record_items(&[ResponseItem::assistant_text("done")]);
        if turn == 0 {
            // The session's first request, before old results pile up: nothing to clear.
            at(&mut engine, 0);
            let context = engine.reminder_context(&HostState::default(), false);
            let prepared = runtime.block_on(engine.prepare_request(context));
            assert!(prepared.micro.is_none());
        }
    }
    (home, engine)
}

/// Requests `from..from + count` of a run `step` seconds apart, each after one more shell
/// call: the results cleared.
fn requests(
    engine: &mut ContextEngine,
    step: u64,
    from: usize,
    count: usize,
    runtime: &tokio::runtime::Runtime,
) -> usize {
    let mut cleared = 0;
    for request in from..from + count {
        at(engine, step * u64::try_from(request).unwrap());
        engine.record_items(&call(100_000 + request));
        let context = engine.reminder_context(&HostState::default(), false);
        let prepared = runtime.block_on(engine.prepare_request(context));
        cleared += prepared.micro.map_or(0, |micro| micro.cleared);
        black_box(prepared.usage);
    }
    cleared
}

fn per_request_cost(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("per_request_cost");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    // The first request after the history piled up: where the old results are cleared, or
    // (warm) priced on a whole plan and kept.
    for (name, cost_aware, step) in [
        ("first_without", false, 10),
        ("first_cold", true, 360),
        ("first_warm", true, 10),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || engine(cost_aware, &runtime),
                |(home, mut engine)| {
                    black_box(requests(&mut engine, step, 1, 1, &runtime));
                    (home, engine)
                },
                BatchSize::LargeInput,
            );
        });
    }
    // The next requests, the first one sent in the setup.
    for (name, cost_aware, step) in [
        ("without", false, 10),
        ("cold", true, 360),
        ("warm", true, 10),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let (home, mut engine) = engine(cost_aware, &runtime);
                    requests(&mut engine, step, 1, 1, &runtime);
                    (home, engine)
                },
                |(home, mut engine)| {
                    black_box(requests(&mut engine, step, 2, REQUESTS, &runtime));
                    (home, engine)
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, per_request_cost);
criterion_main!(benches);
