//! One module per area of `agentctx-core`.

mod anthropic;
mod compaction;
mod config_load;
mod config_schema;
mod initial_context;
mod mcp;
mod mcp_http;
mod mcp_interop;
mod responses;
mod resume;
mod skills;
mod subagents;
mod support;
