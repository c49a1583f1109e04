//! System reminders: the context a coding agent injects into the conversation on each turn.
//!
//! `agentctx-reminders` sits on floor 2 (it depends on `agentctx-protocol` only). It holds the
//! attachment generators of the whole catalogue ([`generators`]), the [`AttachmentGenerator`]
//! trait and its [`GeneratorContext`], the [`SystemReminderOrchestrator`] that runs them
//! concurrently under a timeout with errors and panics isolated, the throttle
//! ([`ThrottleManager`]), the [`FileTracker`] behind `changed_files`, `nested_memory` and
//! `@` mentions, the config ([`SystemReminderConfig`]), placement into the history
//! ([`inject_system_reminders`], [`ReminderPlacement`]) and the [`providers`] traits through
//! which generators read outside state (IDE, LSP, MCP, hooks, teammate mailbox, queued
//! commands).
//!
//! The default placement is [`ReminderPlacement::Tail`]: reminders are appended after the turn's
//! user input and kept in history, so every prompt extends the previous one byte for byte and
//! the provider's prompt cache keeps hitting. [`ReminderPlacement::AfterEnvironmentContext`]
//! is the spec's placement (AC-5), rebuilt into each prompt.
//!
//! One turn: build the context, run every generator, place the reminders into the history.
//!
//! ```
//! use agentctx_protocol::ResponseItem;
//! use agentctx_reminders::GeneratorContext;
//! use agentctx_reminders::SystemReminderConfig;
//! use agentctx_reminders::SystemReminderOrchestrator;
//! use agentctx_reminders::inject_system_reminders;
//!
//! let config = SystemReminderConfig {
//!     critical_instruction: Some("Run the tests before you finish.".to_string()),
//!     ..SystemReminderConfig::default()
//! };
//! let orchestrator = SystemReminderOrchestrator::new(config.clone());
//! let ctx = GeneratorContext::new("/work/project")
//!     .with_config(&config)
//!     .with_user_prompt("fix the failing test");
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
//! let reminders = runtime.block_on(orchestrator.generate_all(&ctx));
//!
//! let mut history = vec![ResponseItem::user_text("fix the failing test")];
//! inject_system_reminders(&mut history, &reminders, config.placement);
//! assert_eq!(
//!     history[1].message_text().as_deref(),
//!     Some("<system-reminder>\nRun the tests before you finish.\n</system-reminder>")
//! );
//! # Ok::<(), std::io::Error>(())
//! ```

mod blocking;
mod config;
pub mod diff;
pub mod file_content;
mod file_tracker;
mod generator;
mod generator_context;
pub mod generators;
mod injection;
mod orchestrator;
pub mod providers;
mod throttle;
mod types;

pub use agentctx_protocol::XmlTag;
pub use agentctx_protocol::is_system_reminder_message;
pub use agentctx_protocol::is_system_reminder_text;
pub use config::AttachmentSettings;
pub use config::ConfigError;
pub use config::DEFAULT_CHANGED_FILES_TOKEN_CAP;
pub use config::DEFAULT_TELEMETRY_SAMPLE_RATE;
pub use config::DEFAULT_TIMEOUT_MS;
pub use config::ENV_PREFIXES;
pub use config::ReminderPlacement;
pub use config::SystemReminderConfig;
pub use file_tracker::FileChange;
pub use file_tracker::FileChangeKind;
pub use file_tracker::FileStamp;
pub use file_tracker::FileTracker;
pub use file_tracker::RACY_STAMP_MARGIN;
pub use file_tracker::ReadFileState;
pub use file_tracker::content_hash;
pub use generator::AttachmentGenerator;
pub use generator::GeneratorError;
pub use generator_context::BackgroundTaskInfo;
pub use generator_context::BackgroundTaskStatus;
pub use generator_context::BackgroundTaskType;
pub use generator_context::BudgetInfo;
pub use generator_context::DelegateState;
pub use generator_context::GeneratorContext;
pub use generator_context::InvokedSkill;
pub use generator_context::PlanState;
pub use generator_context::SessionMemoryEntry;
pub use generator_context::TodoState;
pub use generator_context::TokenUsageInfo;
pub use generator_context::ToolResultInfo;
pub use generators::default_generators;
pub use injection::after_environment_context_position;
pub use injection::filter_system_reminders;
pub use injection::inject_system_reminders;
pub use injection::is_environment_context;
pub use injection::is_reminder_item;
pub use injection::is_user_instructions;
pub use injection::remove_system_reminders;
pub use orchestrator::GenerationReport;
pub use orchestrator::GeneratorOutcome;
pub use orchestrator::GeneratorStatus;
pub use orchestrator::SystemReminderOrchestrator;
pub use orchestrator::TELEMETRY_TARGET;
pub use throttle::FULL_REMINDER_EVERY_N_ATTACHMENTS;
pub use throttle::PLAN_MODE_TURNS_BETWEEN;
pub use throttle::PROGRESS_TURN_THRESHOLD;
pub use throttle::TURNS_BETWEEN_TODO_REMINDERS;
pub use throttle::TURNS_SINCE_TODO_WRITE;
pub use throttle::ThrottleConfig;
pub use throttle::ThrottleManager;
pub use throttle::ThrottleState;
pub use throttle::default_throttle_config;
pub use throttle::is_full_plan_reminder;
pub use types::AttachmentType;
pub use types::ReminderTier;
pub use types::SystemReminder;
