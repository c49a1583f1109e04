//! Cells that keep estimates apart from exact figures: an output whose count a recording never
//! finalised is shown as `≈` beside the exact sum, and a cost that includes one as `≥` (a lower
//! bound), never as a plain figure (docs/design/usage-accounting.md).

use std::fmt::Write as _;

use super::html;
use super::session_row::TokenTotals;

/// The output of `totals`: the exact count, and `+ ≈M` when some requests' output is
/// estimated; sorted by their sum, both figures in its title.
pub(crate) fn output_cell(out: &mut String, totals: &TokenTotals) {
    let sum = totals.output.saturating_add(totals.output_estimated);
    if totals.estimated_requests == 0 {
        html::count_cell(out, totals.output);
        return;
    }
    let _ = write!(
        out,
        r#"<td class="num estimated" data-v="{sum}" title="{} exact + {} estimated (at least) from the visible output of {} requests whose recorded count was never finalised">{} <small>+ ≈{}</small></td>"#,
        html::grouped(totals.output),
        html::grouped(totals.output_estimated),
        totals.estimated_requests,
        html::short(totals.output),
        html::short(totals.output_estimated),
    );
}

/// A cost, `≥` before it when it is a lower bound; sorted by value (unknown costs lowest).
pub(crate) fn cost_cell(out: &mut String, cost: Option<f64>, lower_bound: bool) {
    if !lower_bound || cost.is_none() {
        html::cost_cell(out, cost);
        return;
    }
    let key = cost.unwrap_or(-1.0);
    let _ = write!(
        out,
        r#"<td class="num estimated" data-v="{key}" title="at least: some output was estimated, or a fast-mode price is missing">≥ {}</td>"#,
        html::usd(cost)
    );
}

/// A cost as text, `≥` before it when it is a lower bound.
pub(crate) fn cost_text(cost: Option<f64>, lower_bound: bool) -> String {
    if lower_bound && cost.is_some() {
        format!("≥ {}", html::usd(cost))
    } else {
        html::usd(cost)
    }
}

/// A request's output in its row: the recorded count, or `≈ N (recorded M)` when the
/// recording never finalised it.
pub(crate) fn request_output(
    recorded: u64,
    billing: Option<&agentctx_engine::replay::RecordedBilling>,
) -> String {
    match billing.and_then(|billing| billing.estimated_output_tokens) {
        Some(estimate) => format!(
            r#"<span class="estimated" title="the recording repeated {} on every line: estimated from the visible output, at least">≈ {}</span>"#,
            html::grouped(recorded),
            html::grouped(estimate.max(recorded))
        ),
        None => html::grouped(recorded),
    }
}

#[cfg(test)]
#[path = "usage_cells_tests.rs"]
mod tests;
