//! One module per area of `agentctx-compact`.

mod full_compact;
mod schema;
