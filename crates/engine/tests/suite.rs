//! One module per area of `agentctx-engine`.
mod cost_aware_micro;
mod minimal_host;
mod remote_compaction;
mod replay_recorded_clock;
mod replay_requests;
mod staged_compaction;
mod survival_planted;
mod survival_samples;
mod uncompacted_session;
