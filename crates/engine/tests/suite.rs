//! One module per area of `agentctx-engine`.
mod remote_compaction;
mod replay_requests;
