//! Estimating a one-million-token history: fully, and incrementally after appending one item.
//!
//! `cargo bench -p agentctx-context --bench estimate` (add `--features tiktoken` for the exact
//! o200k estimator).

use std::hint::black_box;

use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_context::TokenEstimator;
use agentctx_context::TruncationPolicy;
use agentctx_protocol::ResponseItem;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;

/// A realistic mix of turns: user prompt, assistant text, tool call and a large tool output.
fn history_of(target_tokens: u64) -> Vec<ResponseItem> {
    let mut items = Vec::new();
    let mut tokens = 0;
    let mut turn = 0u64;
    while tokens < target_tokens {
        let call_id = format!("call-{turn}");
        let turn_items = [
            ResponseItem::user_text(format!(
                "Please look at module {turn} and fix the failing test. {}",
                "Context words. ".repeat(10)
            )),
            ResponseItem::assistant_text(format!(
                "I will inspect module {turn}. {}",
                "Reasoning about the code. ".repeat(20)
            )),
            ResponseItem::function_call(
                &call_id,
                "shell",
                format!(r#"{{"command":["cat","src/module_{turn}.rs"]}}"#),
            ),
            ResponseItem::function_call_output(
                &call_id,
                format!("fn module_{turn}() {{}}\n").repeat(120),
            ),
        ];
        for item in turn_items {
            tokens += ApproxTokenEstimator.estimate_item(&item);
            items.push(item);
        }
        turn += 1;
    }
    items
}

fn bench_estimate(c: &mut Criterion) {
    let items = history_of(1_000_000);
    let total = ApproxTokenEstimator.estimate_items(&items);
    #[expect(clippy::print_stderr, reason = "a bench reports the size of its input")]
    {
        eprintln!("history: {} items, {total} estimated tokens", items.len());
    }

    let mut group = c.benchmark_group("estimate_1m_tokens");
    group.sample_size(20);
    group.bench_function("full_approx", |b| {
        b.iter(|| ApproxTokenEstimator.estimate_items(black_box(&items)));
    });

    let mut manager = ContextManager::new();
    manager.record_items(items.iter().cloned(), TruncationPolicy::Tokens(10_000));
    let appended = ResponseItem::user_text("One more question about the last change.");
    group.bench_function("incremental_append_one_approx", |b| {
        b.iter(|| {
            manager.record_items([appended.clone()], TruncationPolicy::Tokens(10_000));
            let tokens = black_box(manager.estimate_token_count());
            manager.remove_last_item();
            tokens
        });
    });

    #[cfg(feature = "tiktoken")]
    {
        use std::sync::Arc;

        use agentctx_context::O200kTokenEstimator;

        let estimator = O200kTokenEstimator::new();
        group.sample_size(10);
        group.bench_function("full_o200k", |b| {
            b.iter(|| estimator.estimate_items(black_box(&items)));
        });
        let mut manager = ContextManager::with_estimator(Arc::new(estimator));
        manager.record_items(items.iter().cloned(), TruncationPolicy::Tokens(10_000));
        group.bench_function("incremental_append_one_o200k", |b| {
            b.iter(|| {
                manager.record_items([appended.clone()], TruncationPolicy::Tokens(10_000));
                let tokens = black_box(manager.estimate_token_count());
                manager.remove_last_item();
                tokens
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_estimate);
criterion_main!(benches);
