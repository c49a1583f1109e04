//! [`SystemReminderOrchestrator`]: runs the generators of a turn (see docs/design/reminders.md,
//! "Orchestrator").
//!
//! All enabled generators of the allowed tiers run concurrently (`join_all`), each under the
//! timeout. An error, a panic or a timeout of one generator is logged and costs only its own
//! reminder. Output is ordered user prompt → core → main agent, in catalogue order within a tier.
//! A sample of generator runs (5% by default) logs its timing through `tracing`; the sampler's
//! RNG can be seeded so tests are deterministic.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::time::Duration;

use futures::FutureExt;
use futures::future::join_all;
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::time::Instant;

use crate::config::SystemReminderConfig;
use crate::generator::AttachmentGenerator;
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
    /// How long it ran (zero when throttled), on tokio's clock.
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
        self.generate_all_with_report(ctx).await.reminders
    }

    /// The reminders of this turn and what each eligible generator did.
    pub async fn generate_all_with_report(&self, ctx: &GeneratorContext) -> GenerationReport {
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
        let runs = eligible
            .iter()
            .zip(samples)
            .map(|(generator, sampled)| self.run_one(generator.as_ref(), ctx, sampled));
        let results = join_all(runs).await;

        let mut report = GenerationReport::default();
        for (outcome, reminder) in results {
            if let Some(reminder) = reminder {
                ctx.throttle
                    .mark_generated(outcome.attachment_type, ctx.turn_number);
                report.reminders.push(reminder);
            }
            report.outcomes.push(outcome);
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

    async fn run_one(
        &self,
        generator: &dyn AttachmentGenerator,
        ctx: &GeneratorContext,
        sampled: bool,
    ) -> (GeneratorOutcome, Option<SystemReminder>) {
        let name = generator.name().to_string();
        let attachment_type = generator.attachment_type();
        let throttle = generator.throttle_config();
        let allowed = ctx.throttle.should_generate(
            attachment_type,
            &throttle,
            ctx.turn_number,
            generator.trigger_turn(ctx),
        );
        if !allowed {
            tracing::trace!(generator = %name, "throttled");
            let outcome = GeneratorOutcome {
                name,
                attachment_type,
                status: GeneratorStatus::Throttled,
                duration: Duration::ZERO,
                sampled: false,
            };
            return (outcome, None);
        }

        let start = Instant::now();
        let guarded = AssertUnwindSafe(generator.generate(ctx)).catch_unwind();
        let result = tokio::time::timeout(self.timeout, guarded).await;
        let duration = start.elapsed();
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
        let outcome = GeneratorOutcome {
            name,
            attachment_type,
            status,
            duration,
            sampled,
        };
        (outcome, reminder)
    }
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
