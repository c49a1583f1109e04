//! One module per area of `agentctx-atomic-file`.

mod kill_during_write;
