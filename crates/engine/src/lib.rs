//! The context engine: what the model sees on every request of a session, decided in one place.
//!
//! Floor 3: built on `agentctx-protocol`, `agentctx-context`, `agentctx-rollout`,
//! `agentctx-model`, `agentctx-reminders` and `agentctx-compact`. The live session of
//! `agentctx-core`, `agentctx replay` and `agentctx compact` all run this crate, so what is
//! measured offline is what runs live. The design, with the wiring a Codex fork copies into its
//! own turn loop, is in `docs/design/engine.md`.
//!
//! A [`ContextEngine`] owns a session's history and its token accounting, the reminder stage
//! and its state, and the compaction policy (thresholds, tier order, thrash guard, the
//! session-memory tier, full compaction with the model call supplied by the host, restoration
//! and its read ledger). A host calls it at the seams of its turn loop:
//!
//! ```
//! # tokio_test_block_on(async {
//! use agentctx_context::TurnSettings;
//! use agentctx_engine::ContextEngine;
//! use agentctx_engine::EngineOptions;
//! use agentctx_engine::HostState;
//! use agentctx_model::Prompt;
//!
//! let home = tempfile::tempdir().unwrap();
//! let mut engine = ContextEngine::new(EngineOptions {
//!     cwd: home.path().to_path_buf(),
//!     home: home.path().to_path_buf(),
//!     session_id: "s1".to_string(),
//!     reminders: Default::default(),
//!     compact: Default::default(),
//!     context_window: 200_000,
//!     max_output_tokens: None,
//! });
//! let settings = TurnSettings {
//!     model: "gpt-5".to_string(),
//!     ..TurnSettings::default()
//! };
//! let start = engine.begin_turn(&settings, "t1".to_string(), Vec::new, "Fix the tests");
//! assert_eq!(start.user_message.message_text().as_deref(), Some("Fix the tests"));
//!
//! let host = HostState { requests: 1, ..HostState::default() };
//! let reminders = engine.reminder_context(&host, true);
//! let prepared = engine.prepare_request(reminders).await;
//! let prompt = Prompt {
//!     input: engine.prompt_input(&prepared),
//!     ..Prompt::default()
//! };
//! assert!(!engine.check_prompt(&prompt).blocked());
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(future: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
//! # }
//! ```

mod compaction_policy;
mod context_engine;
mod error;
mod file_observer;
mod host_state;
mod recorded_session;
mod reminder_pipeline;
mod remote_compaction;
pub mod replay;

pub use agentctx_compact::CompactConfig;
pub use agentctx_reminders::SystemReminderConfig;
pub use compaction_policy::CompactPoint;
pub use compaction_policy::Compactor;
pub use compaction_policy::PreCompactHook;
pub use compaction_policy::PromptEstimate;
pub use compaction_policy::RestorationSnapshot;
pub use context_engine::Compaction;
pub use context_engine::CompactionTier;
pub use context_engine::ContextEngine;
pub use context_engine::EngineOptions;
pub use context_engine::MicroCompaction;
pub use context_engine::PreparedRequest;
pub use context_engine::PromptCheck;
pub use context_engine::PromptParts;
pub use context_engine::TurnStart;
pub use error::ReplayError;
pub use file_observer::FileObserver;
pub use host_state::HostPlan;
pub use host_state::HostState;
pub use reminder_pipeline::FiredReminder;
pub use reminder_pipeline::PlacedReminders;
pub use reminder_pipeline::ReminderEngine;
pub use reminder_pipeline::RequestFacts;
pub use reminder_pipeline::ResumedState;

// Recorded sessions (helper-owned block: the reconstruction of a history from a rollout).
pub use recorded_session::RecordedSession;
pub use recorded_session::StopPoint;
pub use recorded_session::read_recorded_session;

// Recorded reads and offline compaction (helper-owned block: the files a recorded history read,
// and compaction tier by tier for `agentctx compact`).
mod offline_compaction;
mod recorded_reads;
pub use offline_compaction::CompactionTiers;
pub use offline_compaction::MicroCompactNow;
pub use offline_compaction::MicroCompacted;
pub use offline_compaction::OfflineCompaction;
pub use offline_compaction::OfflineResult;
pub use offline_compaction::OfflineTier;
pub use offline_compaction::TierNotApplied;
pub use offline_compaction::TieredCompaction;
pub use recorded_reads::RecordedAccess;
pub use recorded_reads::RecordedRead;
pub use recorded_reads::recorded_reads;
