//! Target 6 of the performance work (docs/design/performance.md): the orchestrator's own cost.
//!
//! - `orchestrator/30_instant`: `generate_all` over 30 generators that each return a reminder at
//!   once (unthrottled), so the time is the orchestrator's: eligibility, sampling, the
//!   per-generator timeout and panic guard, `join_all`, ordering.
//! - `orchestrator/one_hung`: the same with one generator that never returns, under a 50 ms
//!   timeout; `generate_all` should return at the timeout plus a few milliseconds at most. The
//!   timeout is recorded so `cargo xtask bench` reports the excess.
//!
//! Run with `cargo bench -p agentctx-reminders --bench orchestrator`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::sync::Arc;

use agentctx_reminders::AttachmentGenerator;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::GeneratorError;
use agentctx_reminders::ReminderTier;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::ThrottleConfig;
use async_trait::async_trait;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;

const GENERATORS: usize = 30;
const HUNG_TIMEOUT_MS: i64 = 50;

/// Returns its reminder at once, or never when `hung`.
#[derive(Debug)]
struct Instant {
    attachment_type: AttachmentType,
    hung: bool,
}

#[async_trait]
impl AttachmentGenerator for Instant {
    fn attachment_type(&self) -> AttachmentType {
        self.attachment_type
    }

    fn tier(&self) -> ReminderTier {
        ReminderTier::Core
    }

    fn is_enabled(&self, _config: &SystemReminderConfig) -> bool {
        true
    }

    fn throttle_config(&self) -> ThrottleConfig {
        ThrottleConfig::default()
    }

    async fn generate(
        &self,
        _ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        if self.hung {
            std::future::pending::<()>().await;
        }
        Ok(Some(SystemReminder::new(
            self.attachment_type,
            "The file src/lib.rs was modified.",
        )))
    }
}

fn generators(hung: usize) -> Vec<Arc<dyn AttachmentGenerator>> {
    AttachmentType::ALL
        .iter()
        .cycle()
        .take(GENERATORS)
        .enumerate()
        .map(|(index, attachment_type)| {
            Arc::new(Instant {
                attachment_type: *attachment_type,
                hung: index < hung,
            }) as Arc<dyn AttachmentGenerator>
        })
        .collect()
}

/// Writes a figure for `cargo xtask bench` when it asked for them.
fn record(key: &str, value: f64) {
    if let Some(dir) = std::env::var_os("AGENTCTX_BENCH_FIGURES") {
        std::fs::write(std::path::Path::new(&dir).join(key), value.to_string()).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ctx = GeneratorContext::new(dir.path());

    let instant =
        SystemReminderOrchestrator::with_generators(SystemReminderConfig::default(), generators(0))
            .with_sampler_seed(1);
    assert_eq!(
        runtime.block_on(instant.generate_all(&ctx)).len(),
        GENERATORS
    );

    let config = SystemReminderConfig {
        timeout_ms: Some(HUNG_TIMEOUT_MS),
        ..SystemReminderConfig::default()
    };
    let hung =
        SystemReminderOrchestrator::with_generators(config, generators(1)).with_sampler_seed(1);
    assert_eq!(
        runtime.block_on(hung.generate_all(&ctx)).len(),
        GENERATORS - 1
    );
    record("orchestrator_timeout_seconds", hung.timeout().as_secs_f64());

    let mut group = c.benchmark_group("orchestrator");
    group.bench_function("30_instant", |b| {
        b.iter(|| runtime.block_on(instant.generate_all(&ctx)));
    });
    group.sample_size(10);
    group.bench_function("one_hung", |b| {
        b.iter(|| runtime.block_on(hung.generate_all(&ctx)));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
