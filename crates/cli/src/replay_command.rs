//! `agentctx replay` (being written).

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// Rollout files or directories of sessions.
    pub(crate) paths: Vec<PathBuf>,
}

pub(crate) fn run(_args: ReplayArgs) -> anyhow::Result<()> {
    anyhow::bail!("replay is being written")
}
