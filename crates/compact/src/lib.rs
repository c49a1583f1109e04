//! Context compaction for agentctx: what the model keeps of a session when its history grows
//! past the context window.
//!
//! Floor 2: built on `agentctx-protocol`, `agentctx-context` and `agentctx-model`; it does not
//! depend on `agentctx-reminders` (the same floor): it returns what happened, and the core feeds
//! that to the reminder engine. The core calls it before every model request and between turns.
//! The behaviour, constants and the exact texts the model sees are described in
//! `docs/design/compaction.md`.
//!
//! The tiers, cheapest first: [`micro_compact`] clears old tool results before a model request
//! when that saves enough; [`try_session_memory_compact`] replaces old messages with the summary
//! a background extraction keeps; [`full_compact`] summarises through a model (or, with no
//! model or a failing one, with [`summarize_offline`]) and [`restore_context`] brings back what
//! the work in flight needs. [`ContextUsage`] and the thresholds decide when.
//!
//! ```
//! use agentctx_compact::filter_for_summarization;
//! use agentctx_compact::summarize_offline;
//! use agentctx_protocol::ResponseItem;
//!
//! let history = vec![ResponseItem::user_text(
//!     "Fix the timezone bug in the digest email.",
//! )];
//! // No model needed: a deterministic handoff built from the history itself.
//! let summary = summarize_offline(&filter_for_summarization(&history), 2_000);
//! assert!(summary.contains("Fix the timezone bug in the digest email."));
//! ```

mod compacted_history;
mod config;
mod context_usage;
mod file_cache;
mod full_compact;
mod message_filter;
mod micro_compact;
mod micro_compact_index;
mod offline_summary;
mod partial_compact;
mod persisted_output;
mod read_ledger;
mod remote_compaction;
mod restoration;
mod session_memory;
mod summary_prompt;
mod summary_tail;
mod thrash_guard;
mod thresholds;
mod tool_class;

pub use compacted_history::COMPACT_USER_MESSAGE_MAX_TOKENS;
pub use compacted_history::CarriedItems;
pub use compacted_history::InitialContextInjection;
pub use compacted_history::build_compacted_history;
pub use compacted_history::render_history;
pub use config::AutoCompactTokens;
pub use config::BudgetKeyword;
pub use config::CompactConfig;
pub use config::CompactConfigError;
pub use config::ContextRestorationConfig;
pub use config::FullCompactConfig;
pub use config::MicroCompactConfig;
pub use config::SessionMemoryConfig;
pub use config::StagedCompactConfig;
pub use config::ThrashGuardConfig;
pub use context_usage::ContextUsage;
pub use context_usage::IMPLAUSIBLE_INPUT_DIVISOR;
pub use context_usage::LastRequestUsage;
pub use file_cache::CachedFile;
pub use file_cache::FileCache;
pub use full_compact::FullCompactOutcome;
pub use full_compact::FullCompactRequest;
pub use full_compact::HistoryLimit;
pub use full_compact::OfflineReason;
pub use full_compact::SummaryGuard;
pub use full_compact::SummaryPath;
pub use full_compact::full_compact;
pub use full_compact::full_compact_within;
pub use full_compact::offline_summary_budget;
pub use message_filter::cleanup_summary_tags;
pub use message_filter::collect_user_message_texts;
pub use message_filter::filter_for_summarization;
pub use message_filter::is_valid_summary;
pub use micro_compact::MicroCompactDecision;
pub use micro_compact::MicroCompactError;
pub use micro_compact::MicroCompactOutcome;
pub use micro_compact::MicroCompactPlan;
pub use micro_compact::MicroCompactResult;
pub use micro_compact::MicroCompactSkip;
pub use micro_compact::MicroPersistence;
pub use micro_compact::PlannedClear;
pub use micro_compact::decide_micro_compact;
pub use micro_compact::micro_compact;
pub use micro_compact::plan_micro_compact;
pub use micro_compact::plan_micro_compact_sized;
pub use micro_compact_index::MicroCompactIndex;
pub use offline_summary::summarize_offline;
pub use partial_compact::PartialCompactOutcome;
pub use partial_compact::PartialCompactRequest;
pub use partial_compact::PartialNotApplicable;
pub use partial_compact::partial_compact;
pub use persisted_output::TOOL_RESULTS_DIR;
pub use persisted_output::persisted_output_path;
pub use read_ledger::LedgerEntry;
pub use read_ledger::ReadLedger;
pub use read_ledger::content_hash;
pub use remote_compaction::RemoteCompactionInput;
pub use remote_compaction::process_remote_history;
pub use remote_compaction::readable_copy;
pub use remote_compaction::should_keep_remote_item;
pub use restoration::BackgroundTask;
pub use restoration::InvokedSkill;
pub use restoration::PlanFile;
pub use restoration::RestorationInput;
pub use restoration::RestoredContext;
pub use restoration::restore_context;
pub use restoration::restored_file_of;
pub use session_memory::EXTRACTION_INSTRUCTIONS;
pub use session_memory::ExtractionOutcome;
pub use session_memory::ExtractionTicket;
pub use session_memory::ExtractionTrigger;
pub use session_memory::HistoryItemId;
pub use session_memory::InvalidItemId;
pub use session_memory::NotApplicable;
pub use session_memory::SessionMemoryCompactOutcome;
pub use session_memory::SessionMemoryCompacted;
pub use session_memory::SessionMemoryCompaction;
pub use session_memory::SessionMemoryError;
pub use session_memory::SessionMemoryMetadata;
pub use session_memory::SessionMemoryStore;
pub use session_memory::TriggerObservation;
pub use session_memory::extraction_prompt;
pub use session_memory::run_extraction;
pub use session_memory::try_session_memory_compact;
pub use summary_prompt::SUMMARIZATION_PROMPT;
pub use summary_prompt::SUMMARY_PREFIX;
pub use summary_prompt::SUMMARY_RECALL_NOTE;
pub use summary_prompt::is_summary_text;
pub use summary_prompt::summary_body;
pub use summary_prompt::summary_text;
pub use thrash_guard::CompactionMode;
pub use thrash_guard::ThrashGuard;
pub use thrash_guard::ThrashOutcome;
pub use thrash_guard::ThrashWarning;
pub use thresholds::CompactionThresholds;
pub use thresholds::ContextWindow;
pub use thresholds::ThresholdLevel;
pub use tool_class::ToolClass;
pub use tool_class::ToolClasses;
