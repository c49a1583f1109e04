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
use std::task::Context;
use std::task::Poll;
use std::time::Duration;

use futures::FutureExt;
use futures::future::join_all;
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::time::Instant;

use crate::config::SystemReminderConfig;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::generators::default_generators;
use crate::standing::StandingReminders;
use crate::throttle::ThrottleConfig;
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
    /// It produced a standing reminder the model was already sent unchanged in this user turn,
    /// so it was held back (see docs/design/reminders.md, "Standing reminders").
    Unchanged,
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
    /// What each generator says of itself that does not change from turn to turn, asked once.
    profiles: Vec<Profile>,
    config: SystemReminderConfig,
    timeout: Duration,
    sample_rate: f64,
    /// The telemetry sample's draws: a small, fast generator (one draw per generator before
    /// every request); nothing about it needs to be unpredictable.
    sampler: Mutex<SmallRng>,
    /// What each standing type last told the model, for the within-turn rule.
    standing: StandingReminders,
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
        let profiles = generators
            .iter()
            .map(|generator| Profile {
                attachment_type: generator.attachment_type(),
                tier: generator.tier(),
                enabled: generator.is_enabled(&config),
                throttle: generator.throttle_config(),
            })
            .collect();
        Self {
            generators,
            profiles,
            config,
            timeout,
            sample_rate,
            sampler: Mutex::new(SmallRng::from_os_rng()),
            standing: StandingReminders::default(),
        }
    }

    /// Seeds the telemetry sampler, for deterministic tests.
    pub fn with_sampler_seed(self, seed: u64) -> Self {
        Self {
            sampler: Mutex::new(SmallRng::seed_from_u64(seed)),
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
    /// reported, the standing reminders may be restated at once, the throttle is cleared,
    /// memory files may be included again and files read before count as no longer in the
    /// context (an `@` mention shows them again). Files read stay tracked, so later edits are
    /// still reported.
    pub fn reset(&self, ctx: &GeneratorContext) {
        for generator in &self.generators {
            generator.reset();
        }
        self.standing.forget();
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
        for (generator, profile) in self.generators.iter().zip(&self.profiles) {
            if !profile.enabled {
                generator.discard_pending(ctx);
            }
        }
        let turn_start = Instant::now();
        let mut turn =
            std::future::poll_fn(|cx| Poll::Ready(self.first_polls(ctx, cx, outcomes))).await;
        if !turn.pending.is_empty() {
            let deadline = turn_start + self.timeout;
            let waits = std::mem::take(&mut turn.pending)
                .into_iter()
                .map(|pending| {
                    let run = AssertUnwindSafe(pending.run).catch_unwind();
                    async move {
                        let result = tokio::time::timeout_at(deadline, run).await;
                        (pending.index, pending.sampled, result)
                    }
                });
            for (index, sampled, result) in join_all(waits).await {
                if let Some(generator) = self.generators.get(index) {
                    let (outcome, reminder) = self.finish(
                        generator.as_ref(),
                        result,
                        turn_start.elapsed(),
                        sampled,
                        outcomes,
                    );
                    turn.outcomes
                        .extend(outcome.map(|outcome| (index, outcome)));
                    turn.reminders
                        .extend(reminder.map(|reminder| (index, reminder)));
                }
            }
            // Back in catalogue order.
            turn.outcomes.sort_by_key(|(index, _)| *index);
            turn.reminders.sort_by_key(|(index, _)| *index);
        }

        // Standing reminders the model already has unchanged in this user turn stay back; the
        // throttle records only what goes out.
        let mut reminders = Vec::with_capacity(turn.reminders.len());
        for (index, reminder) in turn.reminders {
            if self.standing.admit(&reminder, ctx) {
                let clock = self
                    .generators
                    .get(index)
                    .map_or(ctx.turn_number, |generator| generator.throttle_clock(ctx));
                ctx.throttle.mark_generated(reminder.attachment_type, clock);
                reminders.push(reminder);
                continue;
            }
            tracing::trace!(
                attachment_type = %reminder.attachment_type,
                "unchanged in this user turn"
            );
            if let Some((_, outcome)) = turn.outcomes.iter_mut().find(|(at, _)| *at == index) {
                outcome.status = GeneratorStatus::Unchanged;
            }
        }
        reminders.sort_by_key(|reminder| reminder.attachment_type.sort_key());
        GenerationReport {
            reminders,
            outcomes: turn
                .outcomes
                .into_iter()
                .map(|(_, outcome)| outcome)
                .collect(),
        }
    }

    /// The first poll of every generator that runs this turn, in catalogue order, on the task
    /// of `cx`: the sample of each eligible one is drawn (in order, so a seeded run is
    /// reproducible), the throttle asked, and the generator polled once; what answered is
    /// finished, what did not is handed back pending.
    fn first_polls<'a>(
        &'a self,
        ctx: &'a GeneratorContext,
        cx: &mut Context<'_>,
        outcomes: bool,
    ) -> Turn<'a> {
        let mut turn = Turn {
            reminders: Vec::new(),
            outcomes: Vec::new(),
            pending: Vec::new(),
        };
        let mut sampler = self.sampler.lock().unwrap_or_else(PoisonError::into_inner);
        for (index, (generator, profile)) in self.generators.iter().zip(&self.profiles).enumerate()
        {
            if !profile.enabled || !is_eligible(profile.tier, ctx) {
                continue;
            }
            let sampled = sampler.random::<f64>() < self.sample_rate;
            let generator = generator.as_ref();
            let allowed = ctx.throttle.should_generate(
                profile.attachment_type,
                &profile.throttle,
                generator.throttle_clock(ctx),
                generator.trigger_turn(ctx),
            );
            if !allowed {
                tracing::trace!(generator = %generator.name(), "throttled");
                if outcomes {
                    let outcome = GeneratorOutcome {
                        name: generator.name().to_string(),
                        attachment_type: profile.attachment_type,
                        status: GeneratorStatus::Throttled,
                        duration: Duration::ZERO,
                        sampled: false,
                    };
                    turn.outcomes.push((index, outcome));
                }
                continue;
            }
            let started = sampled.then(Instant::now);
            // Most generators answer at once, without a future to start; the others are polled
            // once here.
            let result =
                match std::panic::catch_unwind(AssertUnwindSafe(|| generator.generate_now(ctx))) {
                    Ok(Some(result)) => Ok(result),
                    Err(panic) => Err(panic),
                    Ok(None) => {
                        let mut run = generator.generate(ctx);
                        match std::panic::catch_unwind(AssertUnwindSafe(|| run.as_mut().poll(cx))) {
                            Ok(Poll::Pending) => {
                                turn.pending.push(Pending {
                                    index,
                                    sampled,
                                    run,
                                });
                                continue;
                            }
                            Ok(Poll::Ready(result)) => Ok(result),
                            Err(panic) => Err(panic),
                        }
                    }
                };
            if !sampled
                && !outcomes
                && let Ok(Ok(None)) = result
            {
                // The common answer: nothing to say, nothing to log or report.
                continue;
            }
            let duration = started.map_or(Duration::ZERO, |started| started.elapsed());
            let (outcome, reminder) =
                self.finish(generator, Ok(result), duration, sampled, outcomes);
            turn.outcomes
                .extend(outcome.map(|outcome| (index, outcome)));
            turn.reminders
                .extend(reminder.map(|reminder| (index, reminder)));
        }
        turn
    }

    /// What a generator's run came to: its `result` (`Err` when it timed out), after `duration`;
    /// its outcome when `outcomes` asks for them.
    fn finish(
        &self,
        generator: &dyn AttachmentGenerator,
        result: Result<std::thread::Result<GeneratorResult>, tokio::time::error::Elapsed>,
        duration: Duration,
        sampled: bool,
        outcomes: bool,
    ) -> (Option<GeneratorOutcome>, Option<SystemReminder>) {
        let (status, reminder) = match result {
            Ok(Ok(Ok(Some(reminder)))) => {
                tracing::debug!(generator = %generator.name(), "produced a reminder");
                (GeneratorStatus::Produced, Some(reminder))
            }
            Ok(Ok(Ok(None))) => (GeneratorStatus::Empty, None),
            Ok(Ok(Err(error))) => {
                tracing::warn!(generator = %generator.name(), %error, "reminder generator failed");
                (GeneratorStatus::Failed(error.to_string()), None)
            }
            Ok(Err(payload)) => {
                let message = panic_message(payload.as_ref());
                tracing::warn!(
                    generator = %generator.name(),
                    panic = %message,
                    "reminder generator panicked"
                );
                (GeneratorStatus::Panicked(message), None)
            }
            Err(_elapsed) => {
                tracing::warn!(
                    generator = %generator.name(),
                    timeout_ms = self.timeout.as_millis(),
                    "reminder generator timed out"
                );
                (GeneratorStatus::TimedOut, None)
            }
        };
        if sampled {
            tracing::info!(
                target: TELEMETRY_TARGET,
                generator = %generator.name(),
                duration_ms = duration.as_millis(),
                attachment_count = usize::from(reminder.is_some()),
                "attachment_compute_duration"
            );
        }
        let outcome = outcomes.then(|| GeneratorOutcome {
            name: generator.name().to_string(),
            attachment_type: generator.attachment_type(),
            status,
            duration,
            sampled,
        });
        (outcome, reminder)
    }
}

/// Whether a generator of `tier` runs this turn.
fn is_eligible(tier: ReminderTier, ctx: &GeneratorContext) -> bool {
    match tier {
        ReminderTier::UserPrompt => ctx.has_user_input,
        ReminderTier::Core => true,
        ReminderTier::MainAgentOnly => ctx.is_main_agent,
    }
}

/// What a generator says of itself that does not change from turn to turn.
#[derive(Debug, Clone, Copy)]
struct Profile {
    attachment_type: AttachmentType,
    tier: ReminderTier,
    /// Whether the orchestrator's config enables it.
    enabled: bool,
    throttle: ThrottleConfig,
}

/// A generator's run that did not answer on its first poll.
struct Pending<'a> {
    /// Its generator's place in the catalogue.
    index: usize,
    sampled: bool,
    run: Pin<Box<dyn Future<Output = GeneratorResult> + Send + 'a>>,
}

/// A turn after the first polls: what answered (by catalogue place) and what is pending.
struct Turn<'a> {
    reminders: Vec<(usize, SystemReminder)>,
    outcomes: Vec<(usize, GeneratorOutcome)>,
    pending: Vec<Pending<'a>>,
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
