//! What the compaction kept of what the session used after the point: the survival probes of
//! the point (`agentctx_engine::survival`), checked against our compacted history and, at a
//! recorded compaction, against the one the session recorded there (docs/design/survival.md).

use std::path::Path;

use agentctx_engine::StopPoint;
use agentctx_engine::survival::Survival;
use agentctx_engine::survival::SurvivalProbes;
use agentctx_engine::survival::compaction_point;
use agentctx_protocol::ResponseItem;
use serde::Serialize;

/// The `survival` object of the report.
#[derive(Debug, Serialize)]
pub(super) struct CompactSurvival {
    /// Our compacted history.
    pub(super) ours: Survival,
    /// The compacted history the session recorded at the point (`--at-compaction`); `null`
    /// elsewhere.
    pub(super) recorded: Option<Survival>,
}

/// The probes of the point `stop` of `session`, checked against `ours`.
pub(super) fn survival(
    session: &Path,
    stop: StopPoint,
    ours: &[ResponseItem],
) -> anyhow::Result<CompactSurvival> {
    let point = compaction_point(session, stop).map_err(|err| anyhow::anyhow!("{err}"))?;
    let probes = SurvivalProbes::extract(&point.before, &point.after, &point.cwd);
    Ok(CompactSurvival {
        ours: probes.check(ours),
        recorded: point
            .recorded
            .as_deref()
            .map(|recorded| probes.check(recorded)),
    })
}

/// The report's line: survival of ours (and of the recorded compaction), and the files re-read
/// after the point whose content ours held.
pub(super) fn human_line(survival: &CompactSurvival) -> String {
    let figure = |survival: &Survival| match survival.percent {
        Some(percent) => format!("{percent}% ({} of {})", survival.held, survival.probes),
        None => "no probes".to_string(),
    };
    let mut line = format!("survival: ours {}", figure(&survival.ours));
    if let Some(recorded) = &survival.recorded {
        line.push_str(&format!(", recorded {}", figure(recorded)));
    }
    let reread = survival.ours.reread;
    if reread.files > 0 {
        line.push_str(&format!(
            "; re-read after it with content ours held: {} of {}",
            reread.held, reread.files
        ));
    }
    line.push('\n');
    line
}
