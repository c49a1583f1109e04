//! `index.html`: one row per session (sortable by any column, filtered by a text box), the
//! totals of the whole report, and totals per day and per project.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::html;
use super::html::cell;
use super::html::count_cell;
use super::html::escape;
use super::session_row::SessionRow;
use super::session_row::TokenTotals;
use super::usage_cells::cost_cell;
use super::usage_cells::cost_text;
use super::usage_cells::output_cell;

/// The folder of the session pages, beside `index.html`.
pub(crate) const SESSIONS_DIR: &str = "sessions";

/// The columns of the session table: heading, sort type, explanation.
const SESSION_COLUMNS: &[(&str, &str, &str)] = &[
    ("Date", "text", "when the session started (UTC)"),
    ("Tool", "text", "who recorded the session"),
    ("Project", "text", "the working directory"),
    (
        "Models",
        "text",
        "the models that answered its requests, each request priced at its own",
    ),
    ("Turns", "num", "user turns"),
    ("Requests", "num", "model requests"),
    ("Tool calls", "num", "tool calls"),
    (
        "Peak",
        "num",
        "the largest input a request recorded, and its share of the window",
    ),
    ("Compactions", "num", "compactions the session recorded"),
    (
        "Ours",
        "num",
        "requests at which our auto-compaction would have run",
    ),
    (
        "Input",
        "num",
        "input tokens sent, cache reads and writes included",
    ),
    (
        "Cached",
        "num",
        "of the input, read from the provider's cache",
    ),
    (
        "Output",
        "num",
        "output tokens; ≈ marks those estimated where the recording never finalised the count",
    ),
    (
        "Cost",
        "num",
        "cost in USD from the price table, each request at its model, speed, cache lifetime and size; ≥ marks a lower bound",
    ),
    (
        "Our input",
        "num",
        "the input under our policy (micro- and auto-compaction)",
    ),
    (
        "Our cost",
        "num",
        "the cost under our policy, cache reads priced as cached",
    ),
    ("Saved", "num", "our cost against the recorded one"),
];

/// Totals over a group of sessions.
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupTotals {
    pub(crate) sessions: usize,
    pub(crate) requests: usize,
    pub(crate) recorded: TokenTotals,
    pub(crate) ours: TokenTotals,
    pub(crate) recorded_cost: f64,
    pub(crate) our_cost: f64,
    /// Sessions whose model the price table does not know.
    pub(crate) unpriced: usize,
    /// Some session's cost is a lower bound.
    pub(crate) lower_bound: bool,
}

impl GroupTotals {
    pub(crate) fn add(&mut self, row: &SessionRow) {
        self.sessions += 1;
        self.requests += row.requests;
        self.recorded.add_totals(&row.recorded);
        self.ours.add_totals(&row.ours);
        match (row.recorded_cost, row.our_cost) {
            (Some(recorded), Some(ours)) => {
                self.recorded_cost += recorded;
                self.our_cost += ours;
                self.lower_bound |= row.cost_lower_bound;
            }
            _ => self.unpriced += 1,
        }
    }
}

/// The index of `rows`.
pub(crate) fn render(rows: &[SessionRow]) -> String {
    let mut out = String::with_capacity(4096 + rows.len() * 1200);
    html::page_start(&mut out, "agentctx report", "");
    let mut all = GroupTotals::default();
    let mut days: BTreeMap<&str, GroupTotals> = BTreeMap::new();
    let mut projects: BTreeMap<&str, GroupTotals> = BTreeMap::new();
    for row in rows {
        all.add(row);
        days.entry(row.day()).or_default().add(row);
        let project = if row.project.is_empty() {
            "unknown"
        } else {
            row.project.as_str()
        };
        projects.entry(project).or_default().add(row);
    }
    out.push_str("<header><h1>agentctx report</h1>\n");
    summary(&mut out, &all);
    out.push_str("</header>\n<main>\n");

    out.push_str(r#"<section><h2>Sessions</h2><div class="controls"><input id="filter" type="search" placeholder="Filter: project, model, tool, date…" aria-label="Filter sessions" autocomplete="off"> <span id="shown"></span></div>"#);
    out.push_str("\n<div class=\"scroll\"><table id=\"sessions\" class=\"sortable\" data-filter=\"filter\">\n<thead><tr>");
    for (heading, kind, title) in SESSION_COLUMNS {
        let _ = write!(
            out,
            r#"<th data-type="{kind}" title="{}" tabindex="0">{}</th>"#,
            escape(title),
            escape(heading)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        session_row(&mut out, row);
    }
    out.push_str("</tbody></table></div></section>\n");

    group_table(&mut out, "Per day", "Day", "days", &days);
    group_table(&mut out, "Per project", "Project", "projects", &projects);
    out.push_str(r#"<footer><p>Made by <code>agentctx report</code>: every figure is what the engine decided replaying the session (see <code>agentctx replay</code>). Costs come from the bundled price table (LiteLLM's model prices), each request at the model that answered it, its speed, its cache writes' lifetime and its size; cache reads are priced as cached. "Ours" is an estimate: the recorded requests with what our micro- and auto-compaction would have removed.</p></footer>"#);
    out.push_str("\n</main>\n");
    html::page_end(&mut out);
    out
}

fn summary(out: &mut String, all: &GroupTotals) {
    let _ = write!(
        out,
        r#"<dl class="cards"><div><dt>Sessions</dt><dd>{}</dd></div><div><dt>Requests</dt><dd>{}</dd></div><div><dt>Input tokens</dt><dd title="{}">{}</dd></div><div><dt>Under our policy</dt><dd title="{}">{} <small>{}</small></dd></div><div><dt>Cost</dt><dd>{}</dd></div><div><dt>Under our policy</dt><dd>{} <small>{}</small></dd></div></dl>"#,
        html::grouped(all.sessions as u64),
        html::grouped(all.requests as u64),
        html::grouped(all.recorded.input),
        html::short(all.recorded.input),
        html::grouped(all.ours.input),
        html::short(all.ours.input),
        html::change(all.ours.input, all.recorded.input),
        cost_text(Some(all.recorded_cost), all.lower_bound),
        cost_text(Some(all.our_cost), all.lower_bound),
        cost_change(all.our_cost, all.recorded_cost),
    );
    if all.unpriced > 0 {
        let _ = write!(
            out,
            r#"<p class="note">{} sessions name a model the price table does not know: their cost is left out.</p>"#,
            all.unpriced
        );
    }
    if all.recorded.estimated_requests > 0 {
        let _ = write!(
            out,
            r#"<p class="note">{} requests never recorded their final output count: their output is estimated from what the transcript shows ({} tokens at least, beside {} counted), and the costs that include them are lower bounds (≥).</p>"#,
            all.recorded.estimated_requests,
            html::grouped(all.recorded.output_estimated),
            html::grouped(all.recorded.output),
        );
    }
}

fn cost_change(ours: f64, recorded: f64) -> String {
    if recorded <= 0.0 {
        return String::new();
    }
    format!("{:+.1}%", (ours - recorded) / recorded * 100.0)
}

fn session_row(out: &mut String, row: &SessionRow) {
    let day_time = row
        .started_at
        .get(..16)
        .unwrap_or(&row.started_at)
        .replace('T', " ");
    let _ = write!(
        out,
        r#"<tr><td class="text" data-v="{}"><a href="{SESSIONS_DIR}/{}.html">{}</a></td>"#,
        escape(&row.started_at),
        escape(&row.page),
        escape(if day_time.is_empty() {
            "unknown"
        } else {
            &day_time
        })
    );
    cell(out, row.tool, row.tool, "text");
    let project = short_project(&row.project);
    let _ = write!(
        out,
        r#"<td class="text" data-v="{}" title="{}">{}</td>"#,
        escape(&row.project),
        escape(&row.project),
        escape(project)
    );
    let models = if row.models.is_empty() {
        row.model.clone()
    } else {
        row.models.join(", ")
    };
    cell(out, &models, &models, "text");
    count_cell(out, row.turns as u64);
    count_cell(out, row.requests as u64);
    count_cell(out, row.tool_calls as u64);
    let share = if row.window == 0 {
        0.0
    } else {
        row.peak_context as f64 / row.window as f64 * 100.0
    };
    let _ = write!(
        out,
        r#"<td class="num" data-v="{}" title="{} of {} tokens">{} <small>{share:.0}%</small></td>"#,
        row.peak_context,
        html::grouped(row.peak_context),
        html::grouped(row.window),
        html::short(row.peak_context)
    );
    count_cell(out, row.their_compactions as u64);
    let _ = write!(
        out,
        r#"<td class="num" data-v="{}" title="{} micro-compactions">{}</td>"#,
        row.our_compactions, row.our_micro_compactions, row.our_compactions
    );
    count_cell(out, row.recorded.input);
    count_cell(out, row.recorded.cached_input);
    output_cell(out, &row.recorded);
    cost_cell(out, row.recorded_cost, row.cost_lower_bound);
    count_cell(out, row.ours.input);
    cost_cell(out, row.our_cost, row.cost_lower_bound);
    match (row.recorded_cost, row.our_cost) {
        (Some(recorded), Some(ours)) if recorded > 0.0 => {
            let saved = (recorded - ours) / recorded * 100.0;
            let _ = write!(
                out,
                r#"<td class="num" data-v="{saved:.3}">{saved:.1}%</td>"#
            );
        }
        _ => out.push_str(r#"<td class="num" data-v="-1">-</td>"#),
    }
    out.push_str("</tr>\n");
}

/// The last two components of a working directory: enough to tell projects apart in a column.
fn short_project(project: &str) -> &str {
    let trimmed = project.trim_end_matches('/');
    let mut slashes = trimmed.rmatch_indices('/').map(|(index, _)| index);
    match (slashes.next(), slashes.next()) {
        (Some(_), Some(second)) => trimmed.get(second + 1..).unwrap_or(trimmed),
        _ => trimmed,
    }
}

fn group_table(
    out: &mut String,
    title: &str,
    key_heading: &str,
    id: &str,
    groups: &BTreeMap<&str, GroupTotals>,
) {
    let _ = write!(
        out,
        r#"<section><h2>{}</h2><div class="scroll"><table id="{id}" class="sortable"><thead><tr><th data-type="text" tabindex="0">{}</th>"#,
        escape(title),
        escape(key_heading)
    );
    for heading in [
        "Sessions",
        "Requests",
        "Input",
        "Cached",
        "Output",
        "Cost",
        "Our input",
        "Our cost",
    ] {
        let _ = write!(out, r#"<th data-type="num" tabindex="0">{heading}</th>"#);
    }
    out.push_str("</tr></thead><tbody>\n");
    // Newest day first; projects by name.
    let ordered: Vec<_> = if id == "days" {
        groups.iter().rev().collect()
    } else {
        groups.iter().collect()
    };
    for (key, totals) in ordered {
        out.push_str("<tr>");
        cell(out, key, key, "text");
        count_cell(out, totals.sessions as u64);
        count_cell(out, totals.requests as u64);
        count_cell(out, totals.recorded.input);
        count_cell(out, totals.recorded.cached_input);
        output_cell(out, &totals.recorded);
        cost_cell(out, Some(totals.recorded_cost), totals.lower_bound);
        count_cell(out, totals.ours.input);
        cost_cell(out, Some(totals.our_cost), totals.lower_bound);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div></section>\n");
}
