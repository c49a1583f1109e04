//! The two-phase cross-session memory pipeline.
//!
//! `agentctx-memory` sits on floor 2 and depends on `agentctx-protocol`, `agentctx-context`,
//! `agentctx-rollout` and `agentctx-model`. It learns from finished sessions (Codex rollouts
//! and Claude Code transcripts alike) and keeps what it learned in `AGENTCTX_HOME/memories`:
//!
//! - state in SQLite (`AGENTCTX_HOME/state.sqlite`, WAL, one busy timeout, embedded migrations):
//!   threads, stage-1 jobs with leases and retry-after, stage-1 outputs, and one global phase-2
//!   job with a heartbeat and a watermark ([`StateDb`]); every claim is one `BEGIN IMMEDIATE`
//!   transaction, so many processes can run the pipeline at once;
//! - phase 1 ([`run_phase1`]): claim idle sessions, extract a raw memory and a rollout summary
//!   from each (a model with a structured output, or [`extract_offline`] with none), honour the
//!   no-op gate, [`redact_secrets`] before storing;
//! - phase 2 ([`run_phase2`]): sync `rollout_summaries/`, rebuild `raw_memories.md`, and
//!   consolidate into `MEMORY.md` and `memory_summary.md` behind the [`Consolidator`] trait
//!   ([`ModelConsolidator`], [`OfflineConsolidator`], or the host's own);
//! - for the host: [`start_memory_pipeline`] (fire and forget at session start),
//!   [`memory_instructions`] (the summary, at most 5,000 tokens, with the read-path
//!   instructions) and [`memories_usage`] (which memory files a tool call read).
//!
//! The design is in docs/design/memory.md.
//!
//! ```
//! use std::sync::Arc;
//!
//! use agentctx_memory::Extractor;
//! use agentctx_memory::MemoryConfig;
//! use agentctx_memory::MemoryPipeline;
//! use agentctx_memory::OfflineConsolidator;
//! use agentctx_memory::memory_instructions;
//! use agentctx_memory::start_memory_pipeline;
//! use agentctx_protocol::ResponseItem;
//! use agentctx_protocol::SessionMetaLine;
//! use agentctx_rollout::RolloutRecorder;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let home = tempfile::tempdir().unwrap();
//! let sessions = home.path().join("sessions");
//! let meta = SessionMetaLine { cwd: Some("/src/app".into()), ..SessionMetaLine::default() };
//! let mut recorder = RolloutRecorder::create(&sessions, meta).unwrap();
//! recorder
//!     .record_response_items(&[
//!         ResponseItem::user_text("Fix the failing login test. Always run the tests before you finish."),
//!         ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
//!         ResponseItem::function_call_output("c1", "test result: ok. 12 passed"),
//!         ResponseItem::assistant_text("The login test passes now."),
//!     ])
//!     .unwrap();
//! recorder.flush().unwrap();
//!
//! let mut config = MemoryConfig::new(home.path());
//! config.min_rollout_idle_hours = 0; // the session was just written
//! let pipeline = MemoryPipeline {
//!     config,
//!     session_roots: vec![sessions],
//!     extractor: Extractor::Offline,
//!     consolidator: Arc::new(OfflineConsolidator),
//! };
//! let startup = start_memory_pipeline(pipeline); // returns at once
//! let report = startup.handle.await.unwrap().unwrap();
//! assert_eq!(report.phase1.succeeded_with_output, 1);
//!
//! let instructions = memory_instructions(home.path()).unwrap().unwrap();
//! assert!(instructions.contains("Always run the tests before you finish."));
//! # });
//! ```

mod config;
mod consolidator;
mod error;
mod offline_consolidator;
mod offline_extraction;
mod phase1;
mod phase2;
mod pipeline;
mod prompts;
mod redact;
mod stage_one_budget;
mod state_db;
mod state_records;
mod storage;
mod thread_sync;
mod usage;

pub use config::Clock;
pub use config::DEFAULT_MAX_RAW_MEMORIES_FOR_CONSOLIDATION;
pub use config::DEFAULT_MAX_ROLLOUT_AGE_DAYS;
pub use config::DEFAULT_MAX_ROLLOUTS_PER_STARTUP;
pub use config::DEFAULT_MIN_ROLLOUT_IDLE_HOURS;
pub use config::INTERACTIVE_SOURCES;
pub use config::JOB_HEARTBEAT;
pub use config::JOB_LEASE_SECONDS;
pub use config::JOB_RETRY_DELAY_SECONDS;
pub use config::MAX_ROLLOUTS_PER_STARTUP_LIMIT;
pub use config::MemoryConfig;
pub use consolidator::CONSOLIDATION_REQUEST;
pub use consolidator::ConsolidationInput;
pub use consolidator::ConsolidationMode;
pub use consolidator::ConsolidationOutput;
pub use consolidator::ConsolidationReply;
pub use consolidator::Consolidator;
pub use consolidator::ModelConsolidator;
pub use consolidator::SkillFile;
pub use consolidator::consolidation_prompt;
pub use error::MemoryError;
pub use offline_consolidator::OfflineConsolidator;
pub use offline_extraction::Outcome;
pub use offline_extraction::extract_offline;
pub use phase1::CONCURRENCY_LIMIT;
pub use phase1::Extractor;
pub use phase1::Phase1Report;
pub use phase1::StageOneOutput;
pub use phase1::THREAD_SCAN_LIMIT;
pub use phase1::run_phase1;
pub use phase2::Phase2Outcome;
pub use phase2::run_phase2;
pub use pipeline::MemoryPipeline;
pub use pipeline::MemoryStartup;
pub use pipeline::PipelineReport;
pub use pipeline::start_memory_pipeline;
pub use prompts::CONSOLIDATION;
pub use prompts::CONTEXT_WINDOW_PERCENT;
pub use prompts::DEFAULT_STAGE_ONE_ROLLOUT_TOKEN_LIMIT;
pub use prompts::MEMORY_SUMMARY_TOKEN_LIMIT;
pub use prompts::READ_PATH;
pub use prompts::STAGE_ONE_INPUT;
pub use prompts::STAGE_ONE_SYSTEM;
pub use prompts::keep_for_memory;
pub use prompts::memory_instructions;
pub use prompts::memory_instructions_for;
pub use prompts::stage_one_input;
pub use redact::REDACTED_SECRET;
pub use redact::redact_secrets;
pub use redact::secret_kinds;
pub use stage_one_budget::MIN_STAGE_ONE_ROLLOUT_TOKENS;
pub use stage_one_budget::STAGE_ONE_DEFAULT_OUTPUT_RESERVE;
pub use stage_one_budget::STAGE_ONE_ESTIMATE_MARGIN_PERCENT;
pub use stage_one_budget::STAGE_ONE_REQUEST_OVERHEAD_TOKENS;
pub use stage_one_budget::shrink_after_overflow;
pub use stage_one_budget::stage_one_fixed_tokens;
pub use stage_one_budget::stage_one_output_reserve;
pub use stage_one_budget::stage_one_token_budget;
pub use state_db::BUSY_TIMEOUT;
pub use state_db::GLOBAL_JOB_KEY;
pub use state_db::GlobalClaimOutcome;
pub use state_db::JOB_KIND_CONSOLIDATE_GLOBAL;
pub use state_db::JOB_KIND_STAGE1;
pub use state_db::JobRow;
pub use state_db::STATE_DB_FILE;
pub use state_db::Stage1Claim;
pub use state_db::Stage1ClaimOutcome;
pub use state_db::Stage1ClaimParams;
pub use state_db::Stage1Output;
pub use state_db::StateDb;
pub use state_db::StateStatus;
pub use state_db::StoredOutput;
pub use state_db::ThreadRecord;
pub use storage::MEMORIES_DIR;
pub use storage::MEMORY_FILE;
pub use storage::MEMORY_SUMMARY_FILE;
pub use storage::RAW_MEMORIES_FILE;
pub use storage::ROLLOUT_SUMMARIES_DIR;
pub use storage::SKILLS_DIR;
pub use storage::TEMP_FILE_PREFIX;
pub use storage::memory_root;
pub use storage::normalize_slug;
pub use storage::rollout_summary_stem;
pub use thread_sync::SyncReport;
pub use thread_sync::sync_threads;
pub use usage::MEMORIES_USAGE_METRIC;
pub use usage::MemoriesUsageKind;
pub use usage::memories_usage;
