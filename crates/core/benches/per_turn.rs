//! The work agentctx does before every model request, on a generated history of 2,000 items and
//! about 1,000,000 tokens (40 turns, each a user message, 24 tool calls with their results of
//! about 1,040 tokens, and an assistant message), with 50 tracked files for the reminders.
//!
//! - `per_turn/pipeline`: one turn's pipeline as the session runs it: the micro-compaction
//!   decision (a `MicroCompactIndex` that has seen the history up to the newest turn looks at
//!   that turn's 50 items, then decides on the sizes the context manager keeps, stopping once
//!   the answer is known), the reminders (every generator, 50 tracked files, none changed), the
//!   prompt view (`ContextManager::prompt_view`: items borrowed, normalisation known to change
//!   nothing from the counts kept as items entered) and the token accounting (the history's
//!   usage, the compactor's usage and threshold check).
//! - `per_turn/pipeline_planning`: the same with the whole micro-compaction plan built from a
//!   walk over the whole history (`plan_micro_compact_sized`), as the session did before the
//!   index and the early stop.
//! - `per_turn/pipeline_copying`: the pipeline as it was before this bench: the prompt from
//!   `ContextManager::for_prompt`, which copies every item, and the micro-compaction decision
//!   measuring every result again (`plan_micro_compact`) instead of taking the sizes the context
//!   manager keeps (`plan_micro_compact_sized`).
//! - `per_turn/serialize_prompt`: the yardstick, `serde_json` writing that prompt once (the
//!   request body the model call needs anyway).
//! - `per_turn_parts/request_json` and `per_turn_parts/request_through_tree`: the Responses
//!   request body of that prompt as the model client writes it (items written straight from
//!   the borrowed prompt), and as it was written before (a JSON tree of the body first).
//! - `per_turn_parts/*`: each step alone, and `per_turn_parts/history_clone` (a deep copy of
//!   the history).
//!
//! Run with `cargo bench -p agentctx-core --bench per_turn` (or `cargo xtask bench`). Figures
//! and the analysis are in docs/design/performance.md, "Per-turn pipeline".

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    reason = "benchmark setup fails loudly and prints the history's figures beside criterion's"
)]

use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use std::time::SystemTime;

use agentctx_compact::CompactConfig;
use agentctx_compact::CompactionMode;
use agentctx_compact::CompactionThresholds;
use agentctx_compact::ContextUsage;
use agentctx_compact::ContextWindow;
use agentctx_compact::LastRequestUsage;
use agentctx_compact::MicroCompactIndex;
use agentctx_compact::ToolClasses;
use agentctx_compact::decide_micro_compact;
use agentctx_compact::plan_micro_compact;
use agentctx_compact::plan_micro_compact_sized;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_context::InputModality;
use agentctx_context::TruncationPolicy;
use agentctx_model::HttpModelClient;
use agentctx_model::Prompt;
use agentctx_model::ProviderConfig;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use agentctx_reminders::FileStamp;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use criterion::BatchSize;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;

const TURNS: usize = 40;
const CALLS_PER_TURN: usize = 24;
const RESULT_BYTES: usize = 4_160;
const TRACKED_FILES: usize = 50;
const FILE_LINES: usize = 2_000;
const CONTEXT_WINDOW: u64 = 2_000_000;

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

fn generated_history() -> ContextManager {
    let mut history = ContextManager::new();
    // Large enough that no generated result is truncated on the way in.
    let policy = TruncationPolicy::Bytes(2 * RESULT_BYTES);
    for turn in 0..TURNS {
        let mut items = vec![ResponseItem::user_text(format!(
            "turn {turn}: keep working on the refactoring"
        ))];
        for call in 0..CALLS_PER_TURN {
            let (id, name, arguments) = tool_call(turn, call);
            items.push(ResponseItem::function_call(&id, name, arguments));
            items.push(ResponseItem::function_call_output(&id, result_text(&id)));
        }
        items.push(ResponseItem::assistant_text(format!("turn {turn} done")));
        history.record_items(items, policy);
    }
    history
}

fn set_mtime(path: &Path, secs_ago: u64) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
        .unwrap();
}

/// 50 files of 2,000 lines the model has read, unchanged since.
fn tracked_workspace(dir: &Path) -> GeneratorContext {
    let ctx = GeneratorContext::new(dir);
    for file in 0..TRACKED_FILES {
        let path = dir.join(format!("src/module_{file}.rs"));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = (1..=FILE_LINES)
            .map(|line| {
                format!("    let value_{file}_{line} = compute({line}, \"file {file}\");\n")
            })
            .collect();
        fs::write(&path, &text).unwrap();
        // Old enough that the stamp is trusted (no racy re-read).
        set_mtime(&path, 3_600);
        let stamp = FileStamp::of(&path).unwrap();
        ctx.file_tracker
            .track_read_with_stamp(&path, text.as_str(), Some(stamp), 1, None, None);
    }
    ctx
}

fn record(name: &str, value: impl std::fmt::Display) {
    if let Ok(folder) = std::env::var("AGENTCTX_BENCH_FIGURES") {
        fs::write(Path::new(&folder).join(name), value.to_string()).unwrap();
    }
}

/// Everything a turn computes before the request, from borrowed or copied prompt items.
struct Turn<'a> {
    history: &'a ContextManager,
    config: &'a CompactConfig,
    home: &'a Path,
    runtime: &'a tokio::runtime::Runtime,
    orchestrator: &'a SystemReminderOrchestrator,
    reminder_ctx: &'a GeneratorContext,
    window: ContextWindow,
    thresholds: CompactionThresholds,
    last_request: LastRequestUsage,
}

impl Turn<'_> {
    /// The decision as the session takes it: stops once the answer is known.
    fn micro_decision(&self) -> bool {
        decide_micro_compact(
            self.history.raw_items(),
            self.history.item_sizes(),
            &ToolClasses::new(),
            &self.config.micro,
            CompactionMode::Normal,
            self.home,
            &ApproxTokenEstimator,
        )
        .worthwhile
    }

    /// An index that has seen every item but the newest turn's (`CALLS_PER_TURN * 2 + 2`): it
    /// looked at a history of those items only, appended as the full one was (same version).
    fn index_before_the_newest_turn(&self) -> MicroCompactIndex {
        let seen = self.history.len() - (CALLS_PER_TURN * 2 + 2);
        let mut before = ContextManager::new();
        before.record_items(
            self.history.raw_items()[..seen].iter().cloned(),
            TruncationPolicy::Bytes(2 * RESULT_BYTES),
        );
        let mut index = MicroCompactIndex::new();
        index.decide(
            &before,
            &self.config.micro,
            CompactionMode::Normal,
            self.home,
        );
        index
    }

    /// The decision as the session takes it: the index looks at the newest turn, then decides.
    fn micro_decision_indexed(&self, index: &mut MicroCompactIndex) -> bool {
        index
            .decide(
                self.history,
                &self.config.micro,
                CompactionMode::Normal,
                self.home,
            )
            .worthwhile
    }

    /// The whole plan on known sizes.
    fn micro_plan(&self) -> usize {
        plan_micro_compact_sized(
            self.history.raw_items(),
            self.history.item_sizes(),
            &ToolClasses::new(),
            &self.config.micro,
            CompactionMode::Normal,
            self.home,
            &ApproxTokenEstimator,
        )
        .clears
        .len()
    }

    /// The decision measuring every result again (before `plan_micro_compact_sized`).
    fn micro_decision_measuring(&self) -> usize {
        plan_micro_compact(
            self.history.raw_items(),
            &ToolClasses::new(),
            &self.config.micro,
            CompactionMode::Normal,
            self.home,
            &ApproxTokenEstimator,
        )
        .clears
        .len()
    }

    fn reminders(&self) -> usize {
        self.runtime
            .block_on(self.orchestrator.generate_all(self.reminder_ctx))
            .len()
    }

    fn token_accounting(&self) -> bool {
        let history_usage = self.history.get_total_token_usage(true);
        let usage = ContextUsage::measure(
            self.history.raw_items(),
            Some(self.last_request),
            self.window,
            &ApproxTokenEstimator,
        );
        let used = usage
            .used_tokens()
            .max(u64::try_from(history_usage).unwrap_or(0));
        self.thresholds
            .should_auto_compact(used, self.history.len(), self.config)
    }
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut history = generated_history();
    let usage = TokenUsage {
        input_tokens: i64::try_from(history.estimate_token_count()).unwrap(),
        total_tokens: i64::try_from(history.estimate_token_count()).unwrap(),
        ..TokenUsage::default()
    };
    history.update_token_info(&usage, Some(i64::try_from(CONTEXT_WINDOW).unwrap()));
    let config = CompactConfig::default();
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let reminder_ctx = tracked_workspace(workspace.path());
    let orchestrator =
        SystemReminderOrchestrator::new(SystemReminderConfig::default()).with_sampler_seed(1);
    let window = ContextWindow::new(CONTEXT_WINDOW, None, &config);
    let turn = Turn {
        history: &history,
        config: &config,
        home: home.path(),
        runtime: &runtime,
        orchestrator: &orchestrator,
        reminder_ctx: &reminder_ctx,
        window,
        thresholds: CompactionThresholds::new(window, &config, 0),
        // The last request carried all but the newest turn's closing message.
        last_request: LastRequestUsage::from_token_usage(&usage, history.len() - 1),
    };

    let prompt = history.for_prompt(&InputModality::TEXT_AND_IMAGE);
    let body = serde_json::to_vec(&prompt).unwrap();
    assert_eq!(
        serde_json::to_vec(&history.prompt_view(&InputModality::TEXT_AND_IMAGE)).unwrap(),
        body
    );
    eprintln!(
        "history: {} items, {} tokens; request body {} bytes; micro-compaction would clear {} results",
        history.len(),
        history.estimate_token_count(),
        body.len(),
        turn.micro_plan(),
    );
    assert!(turn.micro_decision());
    assert!(turn.micro_decision_indexed(&mut turn.index_before_the_newest_turn()));
    record("per_turn_items", history.len());
    record("per_turn_tokens", history.estimate_token_count());
    record("per_turn_body_bytes", body.len());

    let mut group = c.benchmark_group("per_turn");
    group.bench_function("pipeline", |b| {
        // The index is built before each turn outside the timing, so every measured turn
        // indexes the newest 50 items as a session's turn does. (Built, not cloned: a clone's
        // vectors have no spare capacity, and the first append would copy them, which a
        // session's index, grown by appends, does not do every turn.)
        b.iter_batched(
            || turn.index_before_the_newest_turn(),
            |mut index| {
                let clears = turn.micro_decision_indexed(&mut index);
                let reminders = turn.reminders();
                let prompt = history.prompt_view(&InputModality::TEXT_AND_IMAGE);
                let compact = turn.token_accounting();
                // The prompt is dropped within the turn, as a session drops it once sent;
                // returning it would keep every iteration's 32 KB vector alive until the
                // batch ends and time the page faults of a growing heap instead.
                black_box((clears, reminders, prompt, compact));
                index
            },
            BatchSize::SmallInput,
        );
    });
    group.bench_function("pipeline_planning", |b| {
        b.iter(|| {
            let clears = turn.micro_plan();
            let reminders = turn.reminders();
            let prompt = history.prompt_view(&InputModality::TEXT_AND_IMAGE);
            let compact = turn.token_accounting();
            black_box((clears, reminders, prompt, compact))
        });
    });
    group.bench_function("pipeline_copying", |b| {
        b.iter(|| {
            let clears = turn.micro_decision_measuring();
            let reminders = turn.reminders();
            let prompt = history.for_prompt(&InputModality::TEXT_AND_IMAGE);
            let compact = turn.token_accounting();
            black_box((clears, reminders, prompt, compact))
        });
    });
    group.bench_function("serialize_prompt", |b| {
        b.iter(|| serde_json::to_vec(black_box(&prompt)).unwrap());
    });
    group.finish();

    let mut parts = c.benchmark_group("per_turn_parts");
    parts.bench_function("micro_decision_indexed", |b| {
        b.iter_batched(
            || turn.index_before_the_newest_turn(),
            |mut index| (turn.micro_decision_indexed(&mut index), index),
            BatchSize::SmallInput,
        );
    });
    parts.bench_function("micro_decision_synced", |b| {
        let mut index = turn.index_before_the_newest_turn();
        turn.micro_decision_indexed(&mut index);
        b.iter(|| turn.micro_decision_indexed(&mut index));
    });
    parts.bench_function("micro_decision", |b| b.iter(|| turn.micro_decision()));
    parts.bench_function("micro_plan", |b| b.iter(|| turn.micro_plan()));
    parts.bench_function("micro_decision_measuring", |b| {
        b.iter(|| turn.micro_decision_measuring());
    });
    parts.bench_function("reminders_50_files", |b| b.iter(|| turn.reminders()));
    parts.bench_function("prompt_view", |b| {
        b.iter(|| history.prompt_view(&InputModality::TEXT_AND_IMAGE));
    });
    parts.bench_function("for_prompt_copy", |b| {
        b.iter(|| history.for_prompt(&InputModality::TEXT_AND_IMAGE));
    });
    parts.bench_function("token_accounting", |b| b.iter(|| turn.token_accounting()));
    parts.bench_function("history_clone", |b| b.iter(|| history.raw_items().to_vec()));

    // What the model call then does with the prompt: the Responses request body, written
    // straight from the borrowed items, and (as before) through a JSON tree of the body.
    let client = HttpModelClient::new(ProviderConfig::openai(), "gpt-5", &|_| {
        Some("sk-bench".to_string())
    })
    .unwrap();
    let request = Prompt {
        instructions: "You are a coding agent.".to_string(),
        input: history.prompt_view(&InputModality::TEXT_AND_IMAGE),
        ..Prompt::default()
    };
    record(
        "per_turn_request_bytes",
        client.request_json(&request).unwrap().len(),
    );
    parts.bench_function("request_json", |b| {
        b.iter(|| client.request_json(black_box(&request)).unwrap());
    });
    parts.bench_function("request_through_tree", |b| {
        b.iter(|| serde_json::to_vec(&client.request_body(black_box(&request))).unwrap());
    });
    parts.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
