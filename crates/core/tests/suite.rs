//! One module per area of `agentctx-core`.

mod anthropic;
mod cancel;
mod compaction;
mod config_load;
mod config_schema;
mod history;
mod hooks;
mod initial_context;
mod mcp;
mod mcp_http;
mod mcp_interop;
mod plan_mode_live;
mod provider_context;
mod memory;
mod reminders_live;
mod remote_compaction;
mod responses;
mod resume;
mod resume_recorded;
mod skills;
mod small_window;
mod subagents;
mod support;
mod thinking;
mod truncated_output;
