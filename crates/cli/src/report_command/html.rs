//! What every page of the report shares: escaping, the page's frame, how figures are written.
//!
//! Every text that comes from a session (paths, messages, model names, summaries, reminder
//! texts) goes through [`escape`] before it is written into a page, in text and attribute
//! values alike; nothing from a session is ever written into a script.

use std::fmt::Write as _;

use crate::replay_command::svg_timeline;

/// The folder of the style sheet and the script, beside `index.html`.
pub(crate) const ASSETS_DIR: &str = "assets";

/// Text escaped for HTML text and attribute values (`&`, `<`, `>`, `"`, `'`; control
/// characters replaced): the SVG timeline's escaping, which HTML reads the same way.
pub(crate) fn escape(text: &str) -> String {
    svg_timeline::escape(text)
}

/// `1234567` → `1,234,567`.
pub(crate) fn grouped(value: u64) -> String {
    svg_timeline::grouped(value)
}

/// `1234567` → `1.23M`, `12345` → `12.3k`: a count to read at a glance (the exact figure goes
/// in the cell's title).
pub(crate) fn short(value: u64) -> String {
    let value_f = value as f64;
    if value >= 1_000_000_000 {
        format!("{:.2}G", value_f / 1e9)
    } else if value >= 1_000_000 {
        format!("{:.2}M", value_f / 1e6)
    } else if value >= 10_000 {
        format!("{:.1}k", value_f / 1e3)
    } else {
        grouped(value)
    }
}

/// A cost in USD: `$12.34`, `$0.0123` below a cent; `-` when unknown.
pub(crate) fn usd(cost: Option<f64>) -> String {
    match cost {
        None => "-".to_string(),
        Some(cost) if cost != 0.0 && cost.abs() < 0.01 => format!("${cost:.4}"),
        Some(cost) => format!("${cost:.2}"),
    }
}

/// `part` as a percentage of `whole`: `-12.3%`; empty when `whole` is 0.
pub(crate) fn change(ours: u64, recorded: u64) -> String {
    if recorded == 0 {
        return String::new();
    }
    let percent = (ours as f64 - recorded as f64) / recorded as f64 * 100.0;
    format!("{percent:+.1}%")
}

/// Opens a page: its title, the style sheet and the script under `assets` (`root` is the path
/// from the page to the report's folder: `""` or `"../"`).
pub(crate) fn page_start(out: &mut String, title: &str, root: &str) {
    let title = escape(title);
    let _ = write!(
        out,
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="{root}{ASSETS_DIR}/report.css">
<script src="{root}{ASSETS_DIR}/report.js" defer></script>
</head>
<body>
"#
    );
}

/// Closes a page.
pub(crate) fn page_end(out: &mut String) {
    out.push_str("</body>\n</html>\n");
}

/// A table cell holding `text` that sorts by `key` (a number, or text compared as text).
pub(crate) fn cell(out: &mut String, key: &str, text: &str, class: &str) {
    let _ = write!(
        out,
        r#"<td class="{class}" data-v="{}">{}</td>"#,
        escape(key),
        escape(text)
    );
}

/// A numeric cell: the short figure shown, the exact one in its title, sorted by value.
pub(crate) fn count_cell(out: &mut String, value: u64) {
    let _ = write!(
        out,
        r#"<td class="num" data-v="{value}" title="{}">{}</td>"#,
        grouped(value),
        short(value)
    );
}

/// A cost cell, sorted by value (unknown costs sort lowest).
pub(crate) fn cost_cell(out: &mut String, cost: Option<f64>) {
    let key = cost.map_or(-1.0, |cost| cost);
    let _ = write!(out, r#"<td class="num" data-v="{key}">{}</td>"#, usd(cost));
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
