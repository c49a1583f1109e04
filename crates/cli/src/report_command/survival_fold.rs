//! A compaction's survival on a session page: the share of the session's later needs its
//! compacted context held, and a fold listing what it lost (docs/design/survival.md).

use std::fmt::Write as _;

use agentctx_engine::survival::CompactionSource;
use agentctx_engine::survival::CompactionSurvival;
use agentctx_engine::survival::ProbeKind;
use agentctx_engine::survival::Survival;

use super::html::escape;

/// The survival of the compaction of `source` numbered `number`, when the replay checked it.
pub(super) fn find(
    survivals: &[CompactionSurvival],
    source: CompactionSource,
    number: usize,
) -> Option<&CompactionSurvival> {
    survivals
        .iter()
        .find(|survival| survival.source == source && survival.number == number)
}

/// Writes the figure and the fold of `survival` into `out`.
pub(super) fn write(out: &mut String, survival: &CompactionSurvival) {
    let figures = &survival.survival;
    let source = match survival.source {
        CompactionSource::Recorded => "recorded",
        CompactionSource::Ours => "ours",
    };
    let _ = write!(
        out,
        r#"<div class="survival" data-source="{source}" data-percent="{}"><p class="survival-figure" title="held / probes: what the session used after the compaction, found in its compacted context">Survival: "#,
        figures
            .percent
            .map_or_else(String::new, |percent| percent.to_string())
    );
    match figures.percent {
        Some(percent) => {
            let _ = write!(
                out,
                "<strong>{percent}%</strong> of {} probes held ({})",
                figures.probes, figures.held
            );
        }
        None => out.push_str(
            "<strong>-</strong> nothing the session used after it was in the history before it",
        ),
    }
    if figures.reread.files > 0 {
        let _ = write!(
            out,
            " · files re-read after it whose content it held: {} of {}",
            figures.reread.held, figures.reread.files
        );
    }
    out.push_str("</p>");
    if figures.probes > 0 {
        fold(out, figures);
    }
    out.push_str("</div>");
}

fn fold(out: &mut String, figures: &Survival) {
    let lost = figures.lost.len() + figures.lost_omitted;
    let _ = write!(
        out,
        "<details><summary>Lost ({lost}) · by kind: {}</summary>",
        by_kind(figures)
    );
    if lost == 0 {
        out.push_str("<p>Nothing lost.</p>");
    } else {
        out.push_str(r#"<ul class="lost">"#);
        for probe in &figures.lost {
            let _ = write!(
                out,
                "<li><small>{}</small> <code>{}</code></li>",
                kind_name(probe.kind),
                escape(&probe.text)
            );
        }
        out.push_str("</ul>");
        if figures.lost_omitted > 0 {
            let _ = write!(out, "<p>… and {} more.</p>", figures.lost_omitted);
        }
    }
    if !figures.content_lost.is_empty() {
        out.push_str("<p>Named, but less than half of the content last seen held:</p><ul>");
        for file in &figures.content_lost {
            let _ = write!(out, "<li><code>{}</code></li>", escape(file));
        }
        out.push_str("</ul>");
    }
    out.push_str("</details>");
}

/// `file 1/2 · identifier 3/5 …`.
fn by_kind(figures: &Survival) -> String {
    figures
        .kinds
        .iter()
        .map(|(kind, counts)| format!("{} {}/{}", kind_name(*kind), counts.held, counts.probes))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn kind_name(kind: ProbeKind) -> &'static str {
    match kind {
        ProbeKind::File => "file",
        ProbeKind::Path => "path",
        ProbeKind::Identifier => "identifier",
        ProbeKind::Command => "command",
        ProbeKind::Error => "error",
        ProbeKind::Constraint => "constraint",
        ProbeKind::OpenAsk => "open ask",
        ProbeKind::Todo => "todo",
        ProbeKind::Planted => "planted",
    }
}
