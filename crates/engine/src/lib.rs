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
//! use agentctx_engine::Action;
//! use agentctx_engine::ContextEngine;
//! use agentctx_engine::EngineOptions;
//! use agentctx_engine::HostState;
//! use agentctx_engine::PromptParts;
//! use agentctx_engine::RequestStep;
//!
//! let home = tempfile::tempdir().unwrap();
//! let options = EngineOptions::new(home.path(), home.path(), "s1", Default::default(), Default::default())
//!     .with_window(200_000, None);
//! let mut engine = ContextEngine::new(options);
//! // Before the turn: the engine says whether to compact first.
//! assert_eq!(engine.before_turn().action, Action::Continue);
//! let settings = TurnSettings {
//!     model: "gpt-5".to_string(),
//!     ..TurnSettings::default()
//! };
//! let start = engine.begin_turn(&settings, "t1".to_string(), Vec::new, "Fix the tests");
//! assert_eq!(start.user_message.message_text().as_deref(), Some("Fix the tests"));
//!
//! // Before every request: reminders and micro-compaction, then the engine's decision.
//! let host = HostState { requests: 1, ..HostState::default() };
//! let reminders = engine.reminder_context(&host, true);
//! let prepared = engine.prepare_request(reminders).await;
//! let RequestStep::Send { prompt, .. } = engine.before_request(&prepared, PromptParts::default()) else {
//!     panic!("a short history is sent as it is");
//! };
//! assert!(!prompt.input.is_empty());
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(future: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
//! # }
//! ```

mod compaction_policy;
mod context_engine;
pub mod cost_model;
mod decision;
mod engine_options;
mod error;
mod file_observer;
mod host_state;
mod recorded_session;
mod recording;
mod reminder_pipeline;
mod remote_compaction;
pub mod replay;
mod response_stream;
pub mod survival;
mod usage_prediction;

pub use agentctx_compact::CompactConfig;
pub use agentctx_reminders::SystemReminderConfig;
pub use compaction_policy::CompactPoint;
pub use compaction_policy::Compactor;
pub use compaction_policy::PreCompactHook;
pub use compaction_policy::RestorationSnapshot;
pub use compaction_policy::STAGE_TARGET_PERCENT;
pub use compaction_policy::prompt_overhead_tokens;
pub use context_engine::Compaction;
pub use context_engine::CompactionTier;
pub use context_engine::ContextEngine;
pub use context_engine::MicroCompaction;
pub use context_engine::PreparedRequest;
pub use context_engine::PromptParts;
pub use context_engine::TurnStart;
pub use decision::Action;
pub use decision::CompactReason;
pub use decision::CompactTrigger;
pub use decision::CompactionFigures;
pub use decision::ContextFull;
pub use decision::Decision;
pub use decision::DecisionPoint;
pub use decision::MicroCostDecision;
pub use decision::MicroCostReason;
pub use decision::OVERFLOW_SUSPECT_PERCENT;
pub use decision::RequestFailure;
pub use decision::RequestStep;
pub use decision::SummaryEstimate;
pub use engine_options::DEFAULT_CONTEXT_WINDOW;
pub use engine_options::EngineOptions;
pub use error::ReplayError;
pub use file_observer::FileObserver;
pub use host_state::HostPlan;
pub use host_state::HostState;
pub use recording::RECORDED_TOOL_CLASSES_FIELD;
pub use recording::session_meta;
pub use reminder_pipeline::FiredReminder;
pub use reminder_pipeline::PlacedReminders;
pub use reminder_pipeline::ReminderEngine;
pub use reminder_pipeline::RequestFacts;
pub use reminder_pipeline::ResumedState;
pub use response_stream::CollectedResponse;
pub use response_stream::StreamFailure;
pub use response_stream::collect_response;
pub use usage_prediction::ImageCosts;

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
