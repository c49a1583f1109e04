//! Test support: a generator run that times out while its blocking work is still queued.
//!
//! The orchestrator drops a generator's future when the timeout fires, but work already handed
//! to tokio's blocking pool cannot be stopped and still runs to its end. [`time_out_then_finish`]
//! reproduces that without depending on how fast the machine is: the pool has one thread, held
//! by a gate until the orchestrator has given up, so the generator's work cannot finish in time;
//! then the gate opens and a task queued behind the work (the pool runs its queue in order)
//! proves the work has finished before the caller looks at the shared state.

use std::sync::Arc;

use crate::config::SystemReminderConfig;
use crate::generator::AttachmentGenerator;
use crate::generator_context::GeneratorContext;
use crate::orchestrator::GeneratorStatus;
use crate::orchestrator::SystemReminderOrchestrator;

/// Runs `generator` once through an orchestrator whose timeout fires before the generator's
/// blocking work can start, then waits until that work has run to its end.
pub(crate) fn time_out_then_finish(
    generator: Arc<dyn AttachmentGenerator>,
    ctx: &GeneratorContext,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let config = SystemReminderConfig {
        timeout_ms: Some(1),
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::with_generators(config, vec![generator]);
    runtime.block_on(async {
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let held = tokio::task::spawn_blocking(move || gate.recv());
        let report = orchestrator.generate_all_with_report(ctx).await;
        let statuses: Vec<_> = report.outcomes.iter().map(|o| o.status.clone()).collect();
        assert_eq!(statuses, vec![GeneratorStatus::TimedOut]);
        release.send(()).unwrap();
        held.await.unwrap().unwrap();
        tokio::task::spawn_blocking(|| ()).await.unwrap();
    });
}
