//! The replay of a recorded session through the engine (`agentctx replay`): the recorded
//! conversation drives a [`crate::ContextEngine`] request by request, and every figure the
//! replay shows is what the engine decided.

mod recorded_billing;
mod replay_report;
mod request_usage;
mod session_replay;
mod turn_boundary;
mod turns_json;

pub use recorded_billing::RecordedBilling;
pub use recorded_billing::UNFINALISED_OUTPUT_FACTOR;
pub use recorded_billing::UnreplayedUsage;
pub use recorded_billing::unfinalised_output;
pub use replay_report::COMPACTION_KEPT_ITEMS;
pub use replay_report::COMPACTION_SUMMARY_CHARS;
pub use replay_report::DEFAULT_CONTEXT_WINDOW;
pub use replay_report::RecordedCompaction;
pub use replay_report::ReplayOptions;
pub use replay_report::ReplayTurn;
pub use replay_report::RequestSink;
pub use replay_report::SessionReplay;
pub use replay_report::TurnReminder;
pub use request_usage::PredictionBasis;
pub use request_usage::PredictionError;
pub use request_usage::RecordedTokens;
pub use request_usage::RequestUsage;
pub use request_usage::TierTrigger;
pub use request_usage::UsageThresholds;
pub use session_replay::AGENTCTX_ORIGINATOR;
pub use session_replay::EngineAtCompaction;
pub use session_replay::RECORDED_REASONING_FIELD;
pub use session_replay::RECORDED_TOOLS_FIELD;
pub use session_replay::RECORDED_WINDOW_FIELD;
pub use session_replay::SessionReplayBuilder;
pub use session_replay::engine_at_compaction;
pub use session_replay::record_reasoning;
pub use session_replay::recorded_reasoning;
pub use session_replay::replay_file;
pub use session_replay::replay_reader;
pub use turn_boundary::is_turn_start;
pub use turns_json::turns_json;
