//! One module per area of `agentctx-engine`.
mod replay_requests;
