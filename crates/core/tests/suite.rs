//! One module per area of `agentctx-core`.

mod config_load;
mod config_schema;
