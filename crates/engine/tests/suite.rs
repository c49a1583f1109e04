//! One module per area of `agentctx-engine`.
mod minimal_host;
mod remote_compaction;
mod replay_recorded_clock;
mod replay_requests;
mod uncompacted_session;
