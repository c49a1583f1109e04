//! One module per area of `agentctx-compact`.

mod schema;
