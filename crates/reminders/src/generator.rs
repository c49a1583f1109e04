//! The [`AttachmentGenerator`] trait every reminder source implements.

use std::fmt;
use std::path::PathBuf;

use async_trait::async_trait;

use crate::config::SystemReminderConfig;
use crate::generator_context::GeneratorContext;
use crate::providers::ProviderError;
use crate::throttle::ThrottleConfig;
use crate::throttle::default_throttle_config;
use crate::types::AttachmentType;
use crate::types::ReminderTier;
use crate::types::SystemReminder;

/// Why a generator could not produce its reminder. The orchestrator logs it and goes on.
#[derive(Debug, thiserror::Error)]
pub enum GeneratorError {
    /// Reading a file failed.
    #[error("failed to read {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An outside-state provider failed.
    #[error("provider failed: {0}")]
    Provider(#[from] ProviderError),
    /// The generator's input was not usable.
    #[error("{generator}: {message}")]
    Invalid {
        /// The generator's name.
        generator: String,
        /// What was wrong.
        message: String,
    },
}

impl GeneratorError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

/// What a generator's run answers: its reminder, `None` when it has nothing to say, or why it
/// could not say it.
pub type GeneratorResult = Result<Option<SystemReminder>, GeneratorError>;

/// A source of one kind of reminder.
///
/// The orchestrator calls [`AttachmentGenerator::is_enabled`], checks the tier and the throttle
/// (using [`AttachmentGenerator::throttle_config`] and [`AttachmentGenerator::trigger_turn`]),
/// then takes the answer of [`AttachmentGenerator::generate_now`] or, when it has none, awaits
/// [`AttachmentGenerator::generate`] under a timeout, catching errors and panics.
#[async_trait]
pub trait AttachmentGenerator: Send + Sync + fmt::Debug {
    /// A unique name, used in logs and telemetry; defaults to the attachment type's name.
    fn name(&self) -> &str {
        self.attachment_type().as_str()
    }

    /// The type of attachment this generator produces (its throttle and config key).
    fn attachment_type(&self) -> AttachmentType;

    /// The tier this generator runs in; defaults to the attachment type's tier.
    fn tier(&self) -> ReminderTier {
        self.attachment_type().tier()
    }

    /// Whether the config enables this generator: the master switch and the per-type switch
    /// (see [`SystemReminderConfig::is_type_enabled`]).
    fn is_enabled(&self, config: &SystemReminderConfig) -> bool {
        config.is_type_enabled(self.attachment_type())
    }

    /// The throttle rule; defaults to the attachment type's rule (see docs/design/reminders.md,
    /// "Throttles").
    fn throttle_config(&self) -> ThrottleConfig {
        default_throttle_config(self.attachment_type())
    }

    /// The clock the throttle counts this generator's turns on: the turn number by default;
    /// the todo reminder counts assistant messages, as Claude Code does.
    fn throttle_clock(&self, ctx: &GeneratorContext) -> i32 {
        ctx.turn_number
    }

    /// The turn of the event the throttle's `min_turns_after_trigger` counts from (for the todo
    /// reminder: the last TodoWrite), on [`AttachmentGenerator::throttle_clock`]. `None` when
    /// there is no such event.
    fn trigger_turn(&self, _ctx: &GeneratorContext) -> Option<i32> {
        None
    }

    /// Forgets what this generator remembers having reported (session start, or after
    /// compaction dropped the reminders from the history). Called by
    /// [`crate::SystemReminderOrchestrator::reset`]; stateless generators keep the default.
    fn reset(&self) {}

    /// Called on each turn the config disables this generator, instead of
    /// [`AttachmentGenerator::generate`]: drops input queued for it that would otherwise pile up
    /// and never be read (the hook outcomes of a disabled hook type). Most generators queue
    /// nothing and keep the default.
    fn discard_pending(&self, _ctx: &GeneratorContext) {}

    /// This turn's answer when it is known without awaiting anything: `Some` holds what
    /// [`AttachmentGenerator::generate`] would answer, and the orchestrator takes it without
    /// starting (and allocating) the generator's future. `None`, the default, sends the
    /// orchestrator to `generate`.
    ///
    /// The reminders run before every model request, about thirty generators each time, and most
    /// of them never await: each such generator answers here, and its `generate` returns the
    /// same by calling the same code. One that awaits may answer here the turns it can tell at
    /// once (it has nothing to say); when it answers `None` it must leave its state as it found
    /// it, since `generate` runs next.
    fn generate_now(&self, _ctx: &GeneratorContext) -> Option<GeneratorResult> {
        None
    }

    /// Produces the reminder for this turn, or `None` when there is nothing to say.
    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError>;
}
