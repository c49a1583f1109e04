//! System reminders: the context a coding agent injects into the conversation on each turn.
//!
//! `agentctx-reminders` sits on floor 2 (it depends on `agentctx-protocol` and
//! `agentctx-context`). It holds the attachment generators of the whole catalogue
//! ([`default_generators`]), the [`AttachmentGenerator`] trait and its [`GeneratorContext`], the
//! [`SystemReminderOrchestrator`] that runs them concurrently under a timeout with errors and
//! panics isolated, the throttle ([`ThrottleManager`]), the [`FileTracker`] behind
//! `changed_files`, `nested_memory` and `@` mentions, the config ([`SystemReminderConfig`]),
//! placement into the history ([`inject_system_reminders`], [`ReminderPlacement`]), the
//! provider traits through which generators read outside state (IDE, LSP, MCP, hooks, teammate
//! mailbox, queued commands; see [`Providers`]) and [`ReminderState`], the state a resuming
//! session derives from its recorded history.
//!
//! The default placement is [`ReminderPlacement::Tail`]: reminders are appended after the turn's
//! user input and kept in history, so every prompt extends the previous one byte for byte and
//! the provider's prompt cache keeps hitting. [`ReminderPlacement::AfterEnvironmentContext`]
//! rebuilds them into each prompt right after the environment context. The behaviour, the
//! constants and the texts the model sees are described in `docs/design/reminders.md`.
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
mod diff;
mod file_content;
mod file_system;
mod file_tracker;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod generator;
mod generator_context;
mod generators;
mod injection;
mod orchestrator;
mod providers;
mod reminder_clock;
mod reminder_state;
mod standing;
mod throttle;
#[cfg(test)]
mod timed_out_run;
mod types;

pub use agentctx_protocol::XmlTag;
pub use agentctx_protocol::is_system_reminder_message;
pub use agentctx_protocol::is_system_reminder_text;
pub use config::AttachmentSettings;
pub use config::ConfigError;
pub use config::ReminderPlacement;
pub use config::SystemReminderConfig;
pub use diff::DiffOptions;
pub use diff::unified_diff_with_line_numbers;
pub use file_system::FileSystemKind;
pub use file_tracker::FileChange;
pub use file_tracker::FileChangeKind;
pub use file_tracker::FileStamp;
pub use file_tracker::FileTracker;
pub use file_tracker::ReadFileState;
pub use generator::AttachmentGenerator;
pub use generator::GeneratorError;
pub use generator::GeneratorResult;
pub use generator_context::BackgroundTaskInfo;
pub use generator_context::BackgroundTaskStatus;
pub use generator_context::BackgroundTaskType;
pub use generator_context::BudgetInfo;
pub use generator_context::ContextTokenUsage;
pub use generator_context::DelegateState;
pub use generator_context::GeneratorContext;
pub use generator_context::InvokedSkill;
pub use generator_context::PlanState;
pub use generator_context::SessionMemoryEntry;
pub use generator_context::TodoState;
pub use generator_context::ToolResultInfo;
pub use generators::changed_files::ChangedFilesGenerator;
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
pub use providers::AsyncHookResponse;
pub use providers::CollabChat;
pub use providers::Diagnostic;
pub use providers::DiagnosticFile;
pub use providers::DiagnosticSeverity;
pub use providers::DiagnosticsProvider;
pub use providers::HookEventType;
pub use providers::HookOutcome;
pub use providers::HookResponse;
pub use providers::HookResponseProvider;
pub use providers::IdeOpenedFile;
pub use providers::IdeProvider;
pub use providers::IdeSelection;
pub use providers::McpResource;
pub use providers::McpResourceContent;
pub use providers::McpResourceProvider;
pub use providers::NoopProvider;
pub use providers::ProviderError;
pub use providers::Providers;
pub use providers::QueuedCommand;
pub use providers::QueuedCommandsProvider;
pub use providers::TeammateMailbox;
pub use providers::TeammateMessage;
pub use reminder_clock::ReminderClock;
pub use reminder_clock::is_todo_write;
pub use reminder_state::HistoryEvent;
pub use reminder_state::ItemFlags;
pub use reminder_state::ReminderState;
pub use throttle::ThrottleConfig;
pub use throttle::ThrottleManager;
pub use throttle::ThrottleState;
pub use throttle::is_full_plan_reminder;
pub use types::AttachmentType;
pub use types::ReminderTier;
pub use types::SystemReminder;
