use std::path::Path;

use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::ContentFigures;
use super::KindFigures;
use super::LostProbe;
use super::Probe;
use super::ProbeKind;
use super::SurvivalProbes;
use super::percent;

const CWD: &str = "/work/app";

/// A file of ten significant lines.
fn file_lines(from: usize, to: usize) -> String {
    (from..=to)
        .map(|n| format!("pub fn handler_number_{n}() -> u32 {{ {n} }}\n"))
        .collect()
}

fn read_call(call_id: &str, path: &str) -> ResponseItem {
    ResponseItem::function_call(call_id, "read_file", json!({"path": path}).to_string())
}

fn read_output(call_id: &str, content: &str) -> ResponseItem {
    let numbered: String = content
        .lines()
        .enumerate()
        .map(|(index, line)| format!("{:>6}\t{line}\n", index + 1))
        .collect();
    ResponseItem::function_call_output(call_id, numbered)
}

/// Two files read before the point and again after it, and a constraint.
fn probes() -> SurvivalProbes {
    let before = vec![
        ResponseItem::user_text("Keep the public API stable. Wire the handlers."),
        read_call("c1", "src/handlers.rs"),
        read_output("c1", &file_lines(1, 10)),
        read_call("c2", "src/routes.rs"),
        read_output("c2", &file_lines(11, 20)),
        ResponseItem::assistant_text("Both files read."),
    ];
    let after = vec![
        read_call("c3", "src/handlers.rs"),
        read_output("c3", &file_lines(1, 10)),
        read_call("c4", "src/routes.rs"),
        read_output("c4", &file_lines(11, 20)),
    ];
    SurvivalProbes::extract(&before, &after, Path::new(CWD))
}

#[test]
fn a_file_is_held_by_its_name_and_its_content_by_half_its_lines() {
    let probes = probes();
    assert_eq!(
        probes
            .probes()
            .iter()
            .map(|probe| (probe.kind, probe.text.as_str()))
            .collect::<Vec<_>>(),
        [
            (ProbeKind::File, "src/handlers.rs"),
            (ProbeKind::File, "src/routes.rs"),
            (ProbeKind::Constraint, "Keep the public API stable."),
        ]
    );
    // The summary names both files and states the constraint; half of handlers.rs is restored,
    // four lines of routes.rs are quoted.
    let compacted = vec![
        ResponseItem::user_text(
            "Summary: read src/handlers.rs and /work/app/src/routes.rs; the public API stays stable.",
        ),
        ResponseItem::user_text(format!("Restored src/handlers.rs:\n{}", file_lines(1, 5))),
        ResponseItem::user_text(file_lines(11, 14)),
    ];
    let survival = probes.check(&compacted);
    assert_eq!((survival.held, survival.probes), (3, 3));
    assert_eq!(survival.percent, Some(100.0));
    assert_eq!(
        survival.file_content,
        ContentFigures {
            files: 2,
            held: 1,
            percent: Some(50.0)
        }
    );
    assert_eq!(survival.reread, survival.file_content);
    assert_eq!(survival.content_lost, ["src/routes.rs"]);
    assert_eq!(survival.lost, Vec::new());
}

#[test]
fn what_the_compacted_context_lacks_is_listed_as_lost() {
    let survival = probes().check(&[ResponseItem::user_text("Summary: wired the handlers.")]);
    assert_eq!((survival.held, survival.probes), (0, 3));
    assert_eq!(survival.percent, Some(0.0));
    assert_eq!(
        survival.kinds.get(&ProbeKind::File),
        Some(&KindFigures { probes: 2, held: 0 })
    );
    assert_eq!(
        survival.lost,
        [
            LostProbe {
                kind: ProbeKind::File,
                text: "src/handlers.rs".to_string()
            },
            LostProbe {
                kind: ProbeKind::File,
                text: "src/routes.rs".to_string()
            },
            LostProbe {
                kind: ProbeKind::Constraint,
                text: "Keep the public API stable.".to_string()
            },
        ]
    );
    assert_eq!(
        survival.reread,
        ContentFigures {
            files: 2,
            held: 0,
            percent: Some(0.0)
        }
    );
}

#[test]
fn a_planted_fact_is_found_verbatim_and_only_so() {
    let mut probes = SurvivalProbes::default();
    probes.push(Probe::planted("Never run `git push`; the user pushes."));
    let kept = probes.check(&[ResponseItem::user_text(
        "<INSTRUCTIONS>never run `git push`; the user pushes.</INSTRUCTIONS>",
    )]);
    assert_eq!((kept.held, kept.probes), (1, 1));
    let paraphrased = probes.check(&[ResponseItem::user_text("The user pushes; do not push.")]);
    assert_eq!((paraphrased.held, paraphrased.probes), (0, 1));
}

#[test]
fn no_probe_gives_no_figure() {
    let survival = SurvivalProbes::default().check(&[]);
    assert_eq!(survival.percent, None);
    assert_eq!(survival.reread.percent, None);
    assert_eq!(percent(2, 3), Some(66.7));
}
