//! One module per area of `agentctx-compact`.

mod full_compact;
mod kill_during_writes;
mod offline_summary_samples;
mod planted_facts;
mod schema;
mod session_memory;
