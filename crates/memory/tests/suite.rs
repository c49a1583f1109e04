//! The modules of the integration-test binary.

mod leases;
mod offline_pipeline;
mod racing;
mod scripted_pipeline;
mod stage_one_budget;
mod support;
