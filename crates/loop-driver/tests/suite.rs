//! One module per area of `agentctx-loop-driver`.

mod driver_loop;
mod driver_outcomes;
mod driver_safety;
mod git_ops;
mod schema;
mod scripted_agent;
mod test_repo;
