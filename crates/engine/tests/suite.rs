//! One module per area of `agentctx-engine`.
