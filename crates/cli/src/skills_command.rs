//! `agentctx skills` (being written).

#[derive(Debug, clap::Args)]
pub(crate) struct SkillsArgs {}

pub(crate) fn run(_args: SkillsArgs) -> anyhow::Result<()> {
    anyhow::bail!("skills is being written")
}
