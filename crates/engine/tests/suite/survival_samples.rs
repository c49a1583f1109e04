//! Survival probes on the bundled samples: at the compaction each recorded, what the session's
//! own compacted context held of what it used afterwards, beside ours at the same point (the
//! engine replayed up to there, its offline tiers), and the replay's figures for the same
//! compaction. The figures are the ones docs/design/survival.md quotes.

use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;

use agentctx_engine::StopPoint;
use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::engine_at_compaction;
use agentctx_engine::replay::replay_file;
use agentctx_engine::survival::CompactionSource;
use agentctx_engine::survival::Survival;
use agentctx_engine::survival::SurvivalProbes;
use agentctx_engine::survival::compaction_point;
use pretty_assertions::assert_eq;

const CODEX: &str = "rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl";
const CLAUDE: &str = "claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/samples")
        .join(name)
}

fn options(home: &Path) -> ReplayOptions {
    ReplayOptions {
        home: home.to_path_buf(),
        survival: true,
        ..ReplayOptions::default()
    }
}

/// The probes of the `n`th recorded compaction of `path`, the recorded compaction's survival
/// and ours at the same point.
fn recorded_and_ours(path: &Path, n: usize) -> (SurvivalProbes, Survival, Survival) {
    let point = compaction_point(path, StopPoint::BeforeCompaction(n)).unwrap();
    let probes = SurvivalProbes::extract(&point.before, &point.after, &point.cwd);
    let recorded = probes.check(point.recorded.as_deref().unwrap());
    let home = tempfile::tempdir().unwrap();
    let mut at = engine_at_compaction(path, n, &options(home.path())).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(at.compact(None)).unwrap();
    let ours = probes.check(at.engine.history());
    (probes, recorded, ours)
}

fn figures(name: &str, survival: &Survival) -> String {
    let kinds: Vec<String> = survival
        .kinds
        .iter()
        .map(|(kind, counts)| format!("{kind:?} {}/{}", counts.held, counts.probes))
        .collect();
    let lost: Vec<String> = survival
        .lost
        .iter()
        .map(|probe| format!("{:?} {}", probe.kind, probe.text))
        .collect();
    format!(
        "  {name}: {}/{} = {:?}% [{}]; file content {}/{}; re-read held {}/{}\n    lost: {}\n",
        survival.held,
        survival.probes,
        survival.percent,
        kinds.join(", "),
        survival.file_content.held,
        survival.file_content.files,
        survival.reread.held,
        survival.reread.files,
        lost.join(" | ")
    )
}

#[test]
fn the_samples_recorded_compactions_against_ours_at_the_same_point() {
    let mut report = String::new();
    for name in [CODEX, CLAUDE] {
        let (probes, recorded, ours) = recorded_and_ours(&sample(name), 1);
        let _ = writeln!(
            report,
            "{name} compaction 1, {} probes:",
            probes.probes().len()
        );
        for probe in probes.probes() {
            let _ = writeln!(report, "  - {:?} {}", probe.kind, probe.text);
        }
        report.push_str(&figures("recorded", &recorded));
        report.push_str(&figures("ours", &ours));
        // Ours holds at least what the session's own compaction held.
        assert!(
            ours.held >= recorded.held,
            "{name}: {ours:#?} {recorded:#?}"
        );
    }
    insta::assert_snapshot!(report);
}

#[test]
fn the_replay_checks_the_recorded_compaction_as_the_file_reads_it() {
    for name in [CODEX, CLAUDE] {
        let path = sample(name);
        let home = tempfile::tempdir().unwrap();
        let replay = replay_file(&path, &options(home.path()), None).unwrap();
        let point = compaction_point(&path, StopPoint::BeforeCompaction(1)).unwrap();
        let expected = SurvivalProbes::extract(&point.before, &point.after, &point.cwd)
            .check(point.recorded.as_deref().unwrap());
        let recorded: Vec<&Survival> = replay
            .compaction_survival
            .iter()
            .filter(|compaction| compaction.source == CompactionSource::Recorded)
            .map(|compaction| &compaction.survival)
            .collect();
        assert_eq!(recorded, [&expected], "{name}");
        let off = replay_file(
            &path,
            &ReplayOptions {
                survival: false,
                ..options(home.path())
            },
            None,
        )
        .unwrap();
        assert_eq!(off.compaction_survival, Vec::new());
    }
}

#[test]
fn our_compactions_in_a_replay_are_checked_too() {
    // A window small enough that our policy compacts the Claude Code sample before it does.
    let path = sample(CLAUDE);
    let home = tempfile::tempdir().unwrap();
    let replay = replay_file(
        &path,
        &ReplayOptions {
            context_window: Some(20_000),
            ..options(home.path())
        },
        None,
    )
    .unwrap();
    let sources: Vec<(CompactionSource, usize)> = replay
        .compaction_survival
        .iter()
        .map(|compaction| (compaction.source, compaction.number))
        .collect();
    assert!(
        sources.contains(&(CompactionSource::Ours, 1))
            && sources.contains(&(CompactionSource::Recorded, 1)),
        "{sources:?}"
    );
    // Our compactions do not cut what the session did after its own: the same figure as
    // without them.
    let alone = replay_file(&path, &options(home.path()), None).unwrap();
    let recorded = |replay: &agentctx_engine::replay::SessionReplay| {
        replay
            .compaction_survival
            .iter()
            .find(|compaction| compaction.source == CompactionSource::Recorded)
            .map(|compaction| compaction.survival.clone())
    };
    assert_eq!(recorded(&replay), recorded(&alone));
}
