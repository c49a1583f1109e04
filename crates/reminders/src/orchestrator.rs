//! [`SystemReminderOrchestrator`]: runs the generators of a turn (see docs/design/reminders.md,
//! "Orchestrator").
//!
//! All enabled generators of the allowed tiers run concurrently, each under the timeout: each
//! is polled once in place, and those that do not answer at once go on together (`join_all`)
//! until the timeout, counted from the start of the turn. An error, a panic or a timeout of one generator is logged and costs only its own
//! reminder. Output is ordered user prompt → core → main agent, in catalogue order within a tier.
//! A sample of generator runs (5% by default) logs its timing through `tracing`; the sampler's
//! RNG can be seeded so tests are deterministic.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::task::Poll;
use std::time::Duration;

use futures::FutureExt;
use futures::future::join_all;
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::time::Instant;

use crate::config::SystemReminderConfig;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator_context::GeneratorContext;
use crate::generators::default_generators;
use crate::types::AttachmentType;
use crate::types::ReminderTier;
use crate::types::SystemReminder;

/// The `tracing` target of timing telemetry.
pub const TELEMETRY_TARGET: &str = "agentctx_reminders::telemetry";

/// Why a generator did or did not contribute on a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GeneratorStatus {
    /// It produced a reminder.
    Produced,
    /// It ran and had nothing to say.
    Empty,
    /// The throttle held it back; it did not run.
    Throttled,
    /// It did not finish within the timeout.
    TimedOut,
    /// It returned an error (the message).
    Failed(String),
    /// It panicked (the panic message).
    Panicked(String),
}

/// What happened to one generator on one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratorOutcome {
    /// The generator's name.
    pub name: String,
    /// Its attachment type.
    pub attachment_type: AttachmentType,
    /// What happened.
    pub status: GeneratorStatus,
    /// How long it ran, on tokio's clock: measured for a sampled run and for a run that did
    /// not answer on its first poll (from the start of the turn); zero for a throttled one and
    /// for an unsampled one that answered at once (whose time is not taken: the clock would
    /// cost more than most generators).
    pub duration: Duration,
    /// Whether its timing was sampled for telemetry.
    pub sampled: bool,
}

/// The reminders of a turn and what each generator did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenerationReport {
    /// The reminders, in injection order.
    pub reminders: Vec<SystemReminder>,
    /// One outcome per generator that was eligible this turn (enabled and of an allowed tier).
    pub outcomes: Vec<GeneratorOutcome>,
}

/// Runs the attachment generators of each turn.
#[derive(Debug)]
pub struct SystemReminderOrchestrator {
    generators: Vec<Arc<dyn AttachmentGenerator>>,
    config: SystemReminderConfig,
    timeout: Duration,
    sample_rate: f64,
    sampler: Mutex<StdRng>,
}

impl SystemReminderOrchestrator {
    /// An orchestrator with every generator of the catalogue.
    pub fn new(config: SystemReminderConfig) -> Self {
        Self::with_generators(config, default_generators())
    }

    /// An orchestrator with the given generators.
    pub fn with_generators(
        config: SystemReminderConfig,
        generators: Vec<Arc<dyn AttachmentGenerator>>,
    ) -> Self {
        let timeout = config.timeout();
        let sample_rate = if config.telemetry_sample_rate.is_finite() {
            config.telemetry_sample_rate.clamp(0.0, 1.0)
        } else {
            0.0
        };
        Self {
            generators,
            config,
            timeout,
            sample_rate,
            sampler: Mutex::new(StdRng::from_os_rng()),
        }
    }

    /// Seeds the telemetry sampler, for deterministic tests.
    pub fn with_sampler_seed(self, seed: u64) -> Self {
        Self {
            sampler: Mutex::new(StdRng::seed_from_u64(seed)),
            ..self
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SystemReminderConfig {
        &self.config
    }

    /// The generators.
    pub fn generators(&self) -> &[Arc<dyn AttachmentGenerator>] {
        &self.generators
    }

    /// The per-generator timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Starts over after compaction (or at session start): every generator forgets what it
    /// reported, the throttle is cleared, memory files may be included again and files read
    /// before count as no longer in the context (an `@` mention shows them again). Files read
    /// stay tracked, so later edits are still reported.
    pub fn reset(&self, ctx: &GeneratorContext) {
        for generator in &self.generators {
            generator.reset();
        }
        ctx.throttle.reset();
        ctx.file_tracker.forget_loaded_memory_files();
        ctx.file_tracker.forget_reads_in_context();
    }

    /// The reminders of this turn, in injection order.
    pub async fn generate_all(&self, ctx: &GeneratorContext) -> Vec<SystemReminder> {
        self.run(ctx, false).await.reminders
    }

    /// The reminders of this turn and what each eligible generator did.
    pub async fn generate_all_with_report(&self, ctx: &GeneratorContext) -> GenerationReport {
        self.run(ctx, true).await
    }

    /// Runs the turn; `outcomes` says whether the report lists what each generator did (each
    /// outcome owns its generator's name: [`SystemReminderOrchestrator::generate_all`], which
    /// only returns the reminders, builds none).
    ///
    /// Most generators answer without waiting for anything (they look at the context and the
    /// state they keep). So each one that runs is polled once in place, in catalogue order, and
    /// only the ones still pending then go on concurrently under the timeout, counted from the
    /// start of the turn (as if all had started together, which they did: `join_all` polled
    /// them one after the other in its first poll). A turn where every generator answers at
    /// once arms no timer and reads the clock once.
    async fn run(&self, ctx: &GeneratorContext, outcomes: bool) -> GenerationReport {
        if !self.config.enabled {
            for generator in &self.generators {
                generator.discard_pending(ctx);
            }
            return GenerationReport::default();
        }
        // The config's critical instruction and placement apply even when the host did not copy
        // them into the context with `GeneratorContext::with_config`; a context's own critical
        // instruction (a sub-agent's) wins.
        let configured;
        let missing_instruction =
            ctx.critical_instruction.is_none() && self.config.critical_instruction.is_some();
        let ctx = if missing_instruction || ctx.placement != self.config.placement {
            let mut with_config = ctx.clone();
            if missing_instruction {
                with_config
                    .critical_instruction
                    .clone_from(&self.config.critical_instruction);
            }
            with_config.placement = self.config.placement;
            configured = with_config;
            &configured
        } else {
            ctx
        };
        let mut eligible: Vec<&Arc<dyn AttachmentGenerator>> = Vec::new();
        for generator in &self.generators {
            if !generator.is_enabled(&self.config) {
                generator.discard_pending(ctx);
            } else if self.is_eligible(generator.as_ref(), ctx) {
                eligible.push(generator);
            }
        }
        // Draw the samples up front, in generator order, so a seeded run is reproducible.
        let samples: Vec<bool> = {
            let mut rng = self.sampler.lock().unwrap_or_else(PoisonError::into_inner);
            eligible
                .iter()
                .map(|_| rng.random::<f64>() < self.sample_rate)
                .collect()
        };

        let turn_start = Instant::now();
        // One slot per eligible generator, in catalogue order: its outcome (when reported) and
        // reminder, once known.
        let mut slots: Vec<Option<Finished>> = Vec::with_capacity(eligible.len());
        let mut pending = Vec::new();
        for (generator, sampled) in eligible.iter().zip(samples) {
            let generator = generator.as_ref();
            if !self.allowed(generator, ctx) {
                slots.push(Some(Finished {
                    outcome: outcomes.then(|| GeneratorOutcome {
                        name: generator.name().to_string(),
                        attachment_type: generator.attachment_type(),
                        status: GeneratorStatus::Throttled,
                        duration: Duration::ZERO,
                        sampled: false,
                    }),
                    reminder: None,
                }));
                continue;
            }
            let started = sampled.then(Instant::now);
            let mut run = AssertUnwindSafe(generator.generate(ctx)).catch_unwind();
            match poll_once(&mut run).await {
                Poll::Ready(result) => {
                    let duration = started.map_or(Duration::ZERO, |started| started.elapsed());
                    slots.push(Some(self.finish(
                        generator,
                        Ok(result),
                        duration,
                        sampled,
                        outcomes,
                    )));
                }
                Poll::Pending => {
                    pending.push((slots.len(), generator, sampled, run));
                    slots.push(None);
                }
            }
        }
        if !pending.is_empty() {
            let deadline = turn_start + self.timeout;
            let waits = pending
                .into_iter()
                .map(|(slot, generator, sampled, run)| async move {
                    let result = tokio::time::timeout_at(deadline, run).await;
                    (slot, generator, sampled, result)
                });
            for (slot, generator, sampled, result) in join_all(waits).await {
                let finished =
                    self.finish(generator, result, turn_start.elapsed(), sampled, outcomes);
                if let Some(entry) = slots.get_mut(slot) {
                    *entry = Some(finished);
                }
            }
        }

        let mut report = GenerationReport::default();
        for finished in slots.into_iter().flatten() {
            if let Some(reminder) = finished.reminder {
                ctx.throttle
                    .mark_generated(reminder.attachment_type, ctx.turn_number);
                report.reminders.push(reminder);
            }
            report.outcomes.extend(finished.outcome);
        }
        report
            .reminders
            .sort_by_key(|reminder| reminder.attachment_type.sort_key());
        report
    }

    /// Whether an enabled generator runs this turn: its tier must apply.
    fn is_eligible(&self, generator: &dyn AttachmentGenerator, ctx: &GeneratorContext) -> bool {
        match generator.tier() {
            ReminderTier::UserPrompt => ctx.has_user_input,
            ReminderTier::Core => true,
            ReminderTier::MainAgentOnly => ctx.is_main_agent,
        }
    }

    /// Whether the throttle lets an eligible generator run this turn.
    fn allowed(&self, generator: &dyn AttachmentGenerator, ctx: &GeneratorContext) -> bool {
        let attachment_type = generator.attachment_type();
        let allowed = ctx.throttle.should_generate(
            attachment_type,
            &generator.throttle_config(),
            ctx.turn_number,
            generator.trigger_turn(ctx),
        );
        if !allowed {
            tracing::trace!(generator = %generator.name(), "throttled");
        }
        allowed
    }

    /// What a generator's run came to: its `result` (`Err` when it timed out), after `duration`.
    fn finish(
        &self,
        generator: &dyn AttachmentGenerator,
        result: Result<std::thread::Result<GeneratorResult>, tokio::time::error::Elapsed>,
        duration: Duration,
        sampled: bool,
        outcomes: bool,
    ) -> Finished {
        let name = generator.name();
        let (status, reminder) = match result {
            Ok(Ok(Ok(Some(reminder)))) => {
                tracing::debug!(generator = %name, "produced a reminder");
                (GeneratorStatus::Produced, Some(reminder))
            }
            Ok(Ok(Ok(None))) => (GeneratorStatus::Empty, None),
            Ok(Ok(Err(error))) => {
                tracing::warn!(generator = %name, %error, "reminder generator failed");
                (GeneratorStatus::Failed(error.to_string()), None)
            }
            Ok(Err(payload)) => {
                let message = panic_message(payload.as_ref());
                tracing::warn!(generator = %name, panic = %message, "reminder generator panicked");
                (GeneratorStatus::Panicked(message), None)
            }
            Err(_elapsed) => {
                tracing::warn!(
                    generator = %name,
                    timeout_ms = self.timeout.as_millis(),
                    "reminder generator timed out"
                );
                (GeneratorStatus::TimedOut, None)
            }
        };
        if sampled {
            tracing::info!(
                target: TELEMETRY_TARGET,
                generator = %name,
                duration_ms = duration.as_millis(),
                attachment_count = usize::from(reminder.is_some()),
                "attachment_compute_duration"
            );
        }
        Finished {
            outcome: outcomes.then(|| GeneratorOutcome {
                name: name.to_string(),
                attachment_type: generator.attachment_type(),
                status,
                duration,
                sampled,
            }),
            reminder,
        }
    }
}

/// What one generator's `generate` returns.
type GeneratorResult = Result<Option<SystemReminder>, GeneratorError>;

/// One generator's part of the turn.
struct Finished {
    /// What it did, when the report lists it.
    outcome: Option<GeneratorOutcome>,
    /// Its reminder.
    reminder: Option<SystemReminder>,
}

/// Polls `future` once with the task's waker: its output when it is ready, else `Pending` (the
/// waker is registered, so a later poll of the same future carries on).
async fn poll_once<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *future).poll(cx))).await
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
