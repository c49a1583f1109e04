//! Micro-compaction on a generated history of 2,000 items and about 1,000,000 tokens: 40 turns,
//! each a user message, 24 tool calls with their results (reads of 100 files, shell commands,
//! searches and edits, about 1,040 tokens per result) and an assistant message.
//!
//! - `decision/fresh_1m`: `plan_micro_compact` on the whole history (what runs before the first
//!   request that finds it too big).
//! - `decision/compacted_1m`: the same decision on the history once compacted (what runs before
//!   every later request: it finds nothing to do).
//! - `apply/fresh_1m`: `micro_compact` (deciding, planning and applying in place) on a fresh
//!   copy into a new home, every cleared result over 1,000 tokens written to `tool-results/`
//!   (temp file, rename).
//!
//! Run with `cargo bench -p agentctx-compact --bench micro_compact`.
//!
//! The history is 1,058,600 tokens; micro-compaction clears and persists 858 results and saves
//! 876,018 tokens (182,582 left: the three newest results and the latest read of each of the 100
//! files stay).
//!
//! Last run (2 cores shared with other builds, load about 6; criterion medians), made when the
//! results of the current turn were still kept (848 cleared): the decision takes 3.9 ms on the
//! fresh history and 0.76 ms on the compacted one (every later turn). The first application
//! writes the 848 files: 0.77 s without fsync, 8.6 s with the fsync per file they get now (see
//! persisted_output.rs); a live session persists only the few results that age out before each
//! request.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    reason = "benchmark setup fails loudly and prints the history's figures beside criterion's"
)]

use std::hint::black_box;
use std::time::Duration;

use agentctx_compact::CompactConfig;
use agentctx_compact::CompactionMode;
use agentctx_compact::MicroCompactIndex;
use agentctx_compact::MicroCompactResult;
use agentctx_compact::MicroPersistence;
use agentctx_compact::ToolClasses;
use agentctx_compact::micro_compact;
use agentctx_compact::plan_micro_compact;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_context::TokenEstimator;
use agentctx_protocol::ResponseItem;
use criterion::BatchSize;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;

const TURNS: usize = 40;
const CALLS_PER_TURN: usize = 24;
const RESULT_BYTES: usize = 4_160;

fn tool_call(turn: usize, call: usize) -> (String, &'static str, String) {
    let id = format!("call_{turn:02}_{call:02}");
    let file = (turn * 7 + call * 13) % 100;
    match call % 4 {
        0 | 1 => (
            id,
            "Read",
            format!(r#"{{"file_path":"/repo/src/file_{file}.rs"}}"#),
        ),
        2 => (
            id,
            "Bash",
            format!(r#"{{"command":"cargo test -p crate_{file}"}}"#),
        ),
        _ => (
            id,
            "Grep",
            format!(r#"{{"pattern":"fn item_{file}","path":"/repo"}}"#),
        ),
    }
}

fn result_text(id: &str) -> String {
    let line = format!("{id}: a line of tool output as a model would see it, long enough\n");
    let mut text = line.repeat(RESULT_BYTES / line.len() + 1);
    text.truncate(RESULT_BYTES);
    text
}

fn generated_history() -> Vec<ResponseItem> {
    let mut history = Vec::with_capacity(TURNS * (CALLS_PER_TURN * 2 + 2));
    for turn in 0..TURNS {
        history.push(ResponseItem::user_text(format!(
            "turn {turn}: keep working on the refactoring"
        )));
        for call in 0..CALLS_PER_TURN {
            let (id, name, arguments) = tool_call(turn, call);
            history.push(ResponseItem::function_call(&id, name, arguments));
            history.push(ResponseItem::function_call_output(&id, result_text(&id)));
        }
        history.push(ResponseItem::assistant_text(format!("turn {turn} done")));
    }
    history
}

fn bench(c: &mut Criterion) {
    let history = generated_history();
    let estimator = ApproxTokenEstimator;
    let config = CompactConfig::default();
    let home = tempfile::tempdir().unwrap();
    let tokens = estimator.estimate_items(&history);
    eprintln!("history: {} items, {tokens} tokens", history.len());

    let tools = ToolClasses::new();
    let manager = |items: Vec<ResponseItem>| {
        let mut manager = ContextManager::new();
        manager.replace(items);
        manager
    };
    let mut compacted = manager(history.clone());
    let MicroCompactResult::Applied(outcome) = micro_compact(
        &mut compacted,
        &mut MicroCompactIndex::new(),
        &config,
        CompactionMode::Normal,
        home.path(),
        MicroPersistence::Write,
    )
    .unwrap() else {
        panic!("the generated history must be micro-compacted");
    };
    eprintln!(
        "micro-compaction: {} results cleared, {} persisted, {} tokens saved, {} tokens left",
        outcome.cleared_count(),
        outcome.persisted_paths.len(),
        outcome.tokens_saved,
        compacted.estimate_token_count()
    );
    let compacted = compacted.raw_items().to_vec();

    let mut decision = c.benchmark_group("decision");
    decision.bench_function("fresh_1m", |b| {
        b.iter(|| {
            plan_micro_compact(
                black_box(&history),
                &tools,
                &config.micro,
                CompactionMode::Normal,
                home.path(),
                &estimator,
            )
        });
    });
    decision.bench_function("compacted_1m", |b| {
        b.iter(|| {
            plan_micro_compact(
                black_box(&compacted),
                &tools,
                &config.micro,
                CompactionMode::Normal,
                home.path(),
                &estimator,
            )
        });
    });
    decision.finish();

    let mut apply = c.benchmark_group("apply");
    apply.sample_size(10);
    apply.measurement_time(Duration::from_secs(20));
    apply.bench_function("fresh_1m", |b| {
        // A new home per iteration: the first micro-compaction of a session writes new files
        // (rewriting existing ones would measure the file system's replace-by-rename flush).
        b.iter_batched(
            || (manager(history.clone()), tempfile::tempdir().unwrap()),
            |(mut fresh, home)| {
                let result = micro_compact(
                    &mut fresh,
                    &mut MicroCompactIndex::new(),
                    &config,
                    CompactionMode::Normal,
                    home.path(),
                    MicroPersistence::Write,
                )
                .unwrap();
                // Returned, so deleting the folder is not timed.
                (result, home)
            },
            BatchSize::PerIteration,
        );
    });
    apply.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
