//! `agentctx replay --svg FILE`: a session's token timeline as one self-contained SVG (see
//! docs/design/compaction.md, "Replay: predicted usage and the timeline").
//!
//! Hand-written SVG text, no dependency: per request the recorded input, our prediction and
//! the input under our policy (`report_command::our_policy`) against the window, our warning,
//! auto-compact and blocking lines, the recorded compactions, and a mark for each decision of
//! ours (a micro-compaction, one the cost gate held back, a compaction with its stage) whose
//! `<title>` gives its stage, its reason and its figures ([`marks`]). When the session stays far below its window, a
//! second panel zooms on the used range so the two series can be told apart; when the zoomed
//! range would be (nearly) the whole window, it would repeat the first panel and is left out.
//! The threshold labels stay beside their panel, the legend has a band of its own under the
//! panels, so the two never overlap.

use std::fmt::Write as _;

use agentctx_engine::replay::PredictionBasis;
use agentctx_engine::replay::SessionReplay;

use self::marks::MarkKind;
use crate::report_command::our_policy::PolicyRequest;
use crate::report_command::our_policy::our_requests;

#[path = "svg_timeline_marks.rs"]
pub(crate) mod marks;

const WIDTH: f64 = 960.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 230.0;
const PANEL_HEIGHT: f64 = 260.0;
const TOP: f64 = 84.0;
const PANEL_GAP: f64 = 70.0;
/// From a panel's bottom edge to the legend band: the axis labels and title sit in it.
const BOTTOM: f64 = 56.0;
/// The legend band: entries in columns of this width, rows of this height.
const LEGEND_COLUMN: f64 = 210.0;
const LEGEND_COLUMNS: usize = 4;
const LEGEND_ROW: f64 = 18.0;
/// Below the legend's last row.
const LEGEND_MARGIN: f64 = 12.0;
/// The least distance between two threshold labels: a 12-pixel line of text is about 15 pixels
/// tall.
const LABEL_SPACING: f64 = 16.0;
/// A zoom panel is drawn only when its range is at most this share of the window: a range
/// closer to the window would draw the first panel again.
const ZOOM_BELOW_SHARE: f64 = 0.5;

const RECORDED_COLOR: &str = "#1f77b4";
const PREDICTED_COLOR: &str = "#ff7f0e";
const WARNING_COLOR: &str = "#bcbd22";
const AUTO_COLOR: &str = "#d62728";
const BLOCKING_COLOR: &str = "#7f0000";
const COMPACTION_COLOR: &str = "#9467bd";
const MICRO_COLOR: &str = "#2ca02c";
const POLICY_COLOR: &str = "#17becf";

/// A panel: where it is drawn and the token range it shows.
struct Panel {
    top: f64,
    max_tokens: f64,
    title: String,
}

impl Panel {
    fn y(&self, tokens: u64) -> f64 {
        let share = (tokens as f64 / self.max_tokens).min(1.0);
        self.top + PANEL_HEIGHT * (1.0 - share)
    }

    fn contains(&self, tokens: u64) -> bool {
        tokens as f64 <= self.max_tokens
    }
}

/// The SVG document of `replay`'s timeline.
pub(crate) fn render(replay: &SessionReplay) -> String {
    render_with_policy(replay, &our_requests(&replay.requests))
}

/// The SVG document of `replay`'s timeline, with `policy` (the replay's requests under our
/// policy, [`our_requests`]) as the line of our context.
pub(crate) fn render_with_policy(
    replay: &SessionReplay,
    policy: &[Option<PolicyRequest>],
) -> String {
    let requests = &replay.requests;
    let thresholds = replay.thresholds;
    let ours: Vec<Option<u64>> = requests
        .iter()
        .enumerate()
        .map(|(index, _)| {
            policy
                .get(index)
                .copied()
                .flatten()
                .map(|policy| policy.context)
        })
        .collect();
    let peak = requests
        .iter()
        .flat_map(|request| [Some(request.predicted_tokens), request.recorded_tokens])
        .chain(ours.iter().copied())
        .flatten()
        .max()
        .unwrap_or(0);
    let window = thresholds.window.max(peak).max(1);
    let mut panels = vec![Panel {
        top: TOP,
        max_tokens: window as f64,
        title: format!("against the window ({} tokens)", grouped(thresholds.window)),
    }];
    if let Some(max_tokens) = zoom_range(peak, window) {
        panels.push(Panel {
            top: TOP + PANEL_HEIGHT + PANEL_GAP,
            max_tokens,
            title: format!("zoom: 0 to {} tokens", grouped(max_tokens as u64)),
        });
    }
    // The legend has its own band under the last panel's axis.
    let legend_top = TOP + panels.len() as f64 * (PANEL_HEIGHT + PANEL_GAP) - PANEL_GAP + BOTTOM;
    let height = legend_top + legend_height() + LEGEND_MARGIN;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let session = replay.session_id.as_deref().unwrap_or("-");
    let title = format!(
        "Token timeline of {} session {session}",
        replay.format.family()
    );
    let file_name = replay
        .file
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let _ = writeln!(svg, "<title>{}</title>", escape(&title));
    let _ = writeln!(
        svg,
        r##"<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        escape(&title)
    );
    let error = replay.usage_prediction_error;
    let error_text = match (error.median, error.p95) {
        (Some(median), Some(p95)) => format!(
            "usage prediction error: median {:.1}%, p95 {:.1}% over {} request pairs",
            median * 100.0,
            p95 * 100.0,
            error.n
        ),
        _ => "usage prediction error: no request pairs".to_string(),
    };
    let _ = writeln!(
        svg,
        r##"<text x="{LEFT}" y="40" fill="#555555">{}</text>"##,
        escape(&file_name)
    );
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="58">{} · {} · {}</text>"#,
        escape(&error_text),
        counted(requests.len(), "request"),
        counted(replay.compactions, "recorded compaction")
    );
    for (index, panel) in panels.iter().enumerate() {
        let kind = if index == 0 { "window" } else { "zoom" };
        let _ = writeln!(svg, r#"<g class="panel" data-panel="{kind}">"#);
        draw_panel(&mut svg, panel, replay, &ours);
        svg.push_str("</g>\n");
    }
    draw_legend(&mut svg, legend_top);
    svg.push_str("</svg>\n");
    svg
}

/// The x of the `index`-th request (0-based) of `count`.
fn x_of(index: usize, count: usize) -> f64 {
    let plot = WIDTH - LEFT - RIGHT;
    if count <= 1 {
        return LEFT + plot / 2.0;
    }
    LEFT + plot * index as f64 / (count - 1) as f64
}

fn draw_panel(svg: &mut String, panel: &Panel, replay: &SessionReplay, ours: &[Option<u64>]) {
    let requests = &replay.requests;
    let count = requests.len();
    let right = WIDTH - RIGHT;
    let bottom = panel.top + PANEL_HEIGHT;
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="{:.1}" font-style="italic">{}</text>"#,
        panel.top - 8.0,
        escape(&panel.title)
    );
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{:.1}" width="{:.1}" height="{PANEL_HEIGHT}" fill="none" stroke="#888888"/>"##,
        panel.top,
        right - LEFT
    );
    // The y axis: five steps.
    for step in 0..=4u32 {
        let tokens = (panel.max_tokens * f64::from(step) / 4.0) as u64;
        let y = panel.y(tokens);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="#eeeeee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 6.0,
            y + 4.0,
            grouped(tokens)
        );
    }
    // The x axis: request numbers, about ten labels.
    let every = count.div_ceil(10).max(1);
    for index in (0..count).step_by(every) {
        let x = x_of(index, count);
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            bottom + 16.0,
            index + 1
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">model request</text>"#,
        (LEFT + right) / 2.0,
        bottom + 34.0
    );
    // Our thresholds, highest first, each label beside its line: spread apart so close levels
    // stay readable, and kept beside the panel.
    let thresholds = replay.thresholds;
    let shown: Vec<(u64, &str, &str)> = [
        (thresholds.window, "window", "#444444"),
        (thresholds.blocking, "blocking", BLOCKING_COLOR),
        (thresholds.auto_compact, "auto-compact", AUTO_COLOR),
        (thresholds.warning, "warning", WARNING_COLOR),
    ]
    .into_iter()
    .filter(|(tokens, _, _)| panel.contains(*tokens))
    .collect();
    let wanted: Vec<f64> = shown
        .iter()
        .map(|(tokens, _, _)| panel.y(*tokens) + 4.0)
        .collect();
    let label_ys = spread_labels(&wanted, panel.top + 4.0, bottom + 4.0);
    for ((tokens, label, color), label_y) in shown.into_iter().zip(label_ys) {
        let y = panel.y(tokens);
        let _ = writeln!(
            svg,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="{color}" stroke-dasharray="6 3"/><text class="threshold" x="{:.1}" y="{label_y:.1}" fill="{color}">{label} {}</text>"#,
            right + 6.0,
            grouped(tokens)
        );
    }
    // Recorded compactions: between the request before and the one after.
    for (index, request) in requests.iter().enumerate() {
        if !request.after_compaction {
            continue;
        }
        let x = if index == 0 {
            x_of(0, count)
        } else {
            (x_of(index - 1, count) + x_of(index, count)) / 2.0
        };
        let _ = writeln!(
            svg,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{bottom:.1}" stroke="{COMPACTION_COLOR}" stroke-width="2"/><text x="{:.1}" y="{:.1}" fill="{COMPACTION_COLOR}">recorded compaction</text>"#,
            panel.top,
            x + 4.0,
            panel.top + 14.0
        );
    }
    let recorded: Vec<Option<u64>> = requests
        .iter()
        .map(|request| request.recorded_tokens)
        .collect();
    draw_series(
        svg,
        panel,
        &recorded,
        RECORDED_COLOR,
        r#" stroke-width="3.5" stroke-opacity="0.6""#,
    );
    let predicted: Vec<Option<u64>> = requests
        .iter()
        .map(|request| {
            (request.basis == PredictionBasis::PreviousRequest).then_some(request.predicted_tokens)
        })
        .collect();
    draw_series(
        svg,
        panel,
        &predicted,
        PREDICTED_COLOR,
        r#" stroke-width="1.5" stroke-dasharray="5 3""#,
    );
    // Our policy's context last, a line without points: where it runs with the recorded input
    // or our prediction, their points still show around it.
    draw_line(
        svg,
        panel,
        ours,
        POLICY_COLOR,
        r#" stroke-width="2" class="policy""#,
    );
    for (index, request) in requests.iter().enumerate() {
        let x = x_of(index, count);
        if request.basis == PredictionBasis::WholeHistory {
            let _ = writeln!(
                svg,
                r##"<circle cx="{x:.1}" cy="{:.1}" r="3.5" fill="#ffffff" stroke="{PREDICTED_COLOR}"/>"##,
                panel.y(request.predicted_tokens)
            );
        }
        for mark in marks::marks(request) {
            draw_mark(
                svg,
                panel,
                x,
                request.request,
                request.predicted_tokens,
                &mark,
            );
        }
    }
}

/// One decision of ours at `x`, its text in its `<title>`: a clear as a line down to a
/// triangle, a clear held back as a hollow diamond on our prediction (`predicted`), a
/// compaction as a dashed line down from a dot, labelled with its stage.
fn draw_mark(
    svg: &mut String,
    panel: &Panel,
    x: f64,
    request: usize,
    predicted: u64,
    mark: &marks::Mark,
) {
    let _ = write!(
        svg,
        r#"<g class="decision {}"><title>Request {request}: {}</title>"#,
        mark.kind.class(),
        escape(&mark.text)
    );
    let (from, to) = (panel.y(mark.tokens_before), panel.y(mark.tokens_after));
    match mark.kind {
        MarkKind::Micro => {
            let _ = write!(
                svg,
                r#"<line x1="{x:.1}" y1="{from:.1}" x2="{x:.1}" y2="{to:.1}" stroke="{MICRO_COLOR}" stroke-width="2"/><path d="M {:.1} {:.1} L {:.1} {:.1} L {x:.1} {:.1} Z" fill="{MICRO_COLOR}"/>"#,
                x - 4.0,
                to - 6.0,
                x + 4.0,
                to - 6.0,
                to
            );
        }
        MarkKind::MicroHeld => {
            let y = panel.y(predicted);
            let _ = write!(
                svg,
                r##"<path d="M {x:.1} {:.1} L {:.1} {y:.1} L {x:.1} {:.1} L {:.1} {y:.1} Z" fill="#ffffff" stroke="{MICRO_COLOR}" stroke-width="1.5"/>"##,
                y - 5.0,
                x + 4.0,
                y + 5.0,
                x - 4.0
            );
        }
        MarkKind::Compaction => {
            let _ = write!(
                svg,
                r#"<line x1="{x:.1}" y1="{from:.1}" x2="{x:.1}" y2="{to:.1}" stroke="{AUTO_COLOR}" stroke-width="2" stroke-dasharray="3 2"/><circle cx="{x:.1}" cy="{from:.1}" r="5" fill="{AUTO_COLOR}"/><text x="{:.1}" y="{:.1}" fill="{AUTO_COLOR}">our {}</text>"#,
                x + 6.0,
                from - 12.0,
                escape(mark.stage)
            );
        }
    }
    svg.push_str("</g>\n");
}

/// A polyline through the requests' `values`, broken where a request has none, with a point
/// per request.
fn draw_series(svg: &mut String, panel: &Panel, values: &[Option<u64>], color: &str, extra: &str) {
    for run in draw_line(svg, panel, values, color, extra) {
        for (x, y) in run {
            let _ = writeln!(
                svg,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="2.2" fill="{color}"/>"#
            );
        }
    }
}

/// A polyline through the requests' `values`, broken where a request has none; returns its
/// runs of points.
fn draw_line(
    svg: &mut String,
    panel: &Panel,
    values: &[Option<u64>],
    color: &str,
    extra: &str,
) -> Vec<Vec<(f64, f64)>> {
    let count = values.len();
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for (index, value) in values.iter().enumerate() {
        match *value {
            Some(tokens) => {
                if let Some(run) = runs.last_mut() {
                    run.push((x_of(index, count), panel.y(tokens)));
                }
            }
            None => runs.push(Vec::new()),
        }
    }
    for run in runs.iter().filter(|run| !run.is_empty()) {
        let points = run
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = writeln!(
            svg,
            r#"<polyline points="{points}" fill="none" stroke="{color}"{extra}/>"#
        );
    }
    runs
}

/// The legend's entries: a line's colour and dash, and its text; the last two entries are
/// the hollow diamond of a clear the cost gate held back and the hollow circle of an estimate
/// without a previous request.
const LEGEND: [(&str, &str, &str); 7] = [
    (RECORDED_COLOR, r#" stroke-opacity="0.6""#, "recorded input"),
    (POLICY_COLOR, "", "under our policy"),
    (
        PREDICTED_COLOR,
        r#" stroke-dasharray="5 3""#,
        "our prediction",
    ),
    (MICRO_COLOR, "", "our micro-compact"),
    (AUTO_COLOR, r#" stroke-dasharray="3 2""#, "our compaction"),
    (COMPACTION_COLOR, "", "recorded compaction"),
    ("#999999", r#" stroke-dasharray="6 3""#, "our thresholds"),
];

/// The height of the legend band: its rows.
fn legend_height() -> f64 {
    (LEGEND.len() + 2).div_ceil(LEGEND_COLUMNS) as f64 * LEGEND_ROW
}

/// The legend, in columns across the band that starts at `top` (under every panel and its
/// axis, where no threshold label goes).
fn draw_legend(svg: &mut String, top: f64) {
    svg.push_str("<g class=\"legend\">\n");
    let place = |entry: usize| {
        let column = (entry % LEGEND_COLUMNS) as f64;
        let row = (entry / LEGEND_COLUMNS) as f64;
        (LEFT + column * LEGEND_COLUMN, top + row * LEGEND_ROW + 6.0)
    };
    for (entry, (color, dash, label)) in LEGEND.into_iter().enumerate() {
        let (x, y) = place(entry);
        let _ = writeln!(
            svg,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{color}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
            x + 22.0,
            x + 28.0,
            y + 4.0,
            escape(label)
        );
    }
    let (x, y) = place(LEGEND.len());
    let _ = writeln!(
        svg,
        r##"<path d="M {:.1} {:.1} L {:.1} {y:.1} L {:.1} {:.1} L {:.1} {y:.1} Z" fill="#ffffff" stroke="{MICRO_COLOR}" stroke-width="1.5"/><text x="{:.1}" y="{:.1}">micro-compact held back (cost)</text>"##,
        x + 11.0,
        y - 5.0,
        x + 15.0,
        x + 11.0,
        y + 5.0,
        x + 7.0,
        x + 28.0,
        y + 4.0
    );
    let (x, y) = place(LEGEND.len() + 1);
    let _ = writeln!(
        svg,
        r##"<circle cx="{:.1}" cy="{y:.1}" r="3.5" fill="#ffffff" stroke="{PREDICTED_COLOR}"/><text x="{:.1}" y="{:.1}">estimate, no previous request</text>"##,
        x + 11.0,
        x + 28.0,
        y + 4.0
    );
    svg.push_str("</g>\n");
}

/// The top of the zoom panel's range for a session whose usage peaked at `peak` of a
/// `window`-token panel: the peak and a tenth, rounded up to a round number. `None` when that
/// range is more than [`ZOOM_BELOW_SHARE`] of the window: the zoom would show nearly what the
/// first panel shows.
pub(crate) fn zoom_range(peak: u64, window: u64) -> Option<f64> {
    if peak == 0 {
        return None;
    }
    let max_tokens = nice_ceiling(peak as f64 * 1.1);
    (max_tokens <= window as f64 * ZOOM_BELOW_SHARE).then_some(max_tokens)
}

/// The baselines of labels that want to sit at `wanted` (top to bottom), at least
/// [`LABEL_SPACING`] apart and within `top..=bottom`: each is pushed below the one above it,
/// then, when the last went past `bottom`, the run is pushed back up from there.
pub(crate) fn spread_labels(wanted: &[f64], top: f64, bottom: f64) -> Vec<f64> {
    let mut placed: Vec<f64> = Vec::with_capacity(wanted.len());
    let mut floor = f64::MIN;
    for &y in wanted {
        let y = y.max(floor).max(top);
        placed.push(y);
        floor = y + LABEL_SPACING;
    }
    let mut ceiling = bottom;
    for y in placed.iter_mut().rev() {
        *y = y.min(ceiling);
        ceiling = *y - LABEL_SPACING;
    }
    placed
}

/// `1 request`, `57 requests`.
fn counted(count: usize, noun: &str) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} {noun}{plural}")
}

/// A round number at or above `value`: 1, 2 or 5 times a power of ten.
fn nice_ceiling(value: f64) -> f64 {
    if value <= 1.0 {
        return 1.0;
    }
    let magnitude = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|step| step * magnitude)
        .find(|candidate| *candidate >= value)
        .unwrap_or(10.0 * magnitude)
}

/// Text escaped for SVG character data and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 forbids most control characters even escaped.
            character if character.is_control() && !matches!(character, '\t' | '\n') => {
                out.push('\u{FFFD}');
            }
            character => out.push(character),
        }
    }
    out
}

/// `1234567` → `1,234,567`.
pub(crate) fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
#[path = "svg_timeline_tests.rs"]
mod tests;
