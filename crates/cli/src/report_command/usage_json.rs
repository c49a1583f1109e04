//! `agentctx report --json`: the report's figures for scripts, on stdout. Like `ccusage
//! --json`, one object per session, per day and the totals; unlike it, every request is priced
//! at the model that answered it, its speed, its cache writes' lifetime and its size, and an
//! output the recording never finalised is estimated and flagged, never added to the exact
//! counts (docs/design/usage-accounting.md).
//!
//! Token fields follow the report's convention: `input_tokens` holds every input token, cache
//! reads and writes included (Codex's `total_token_usage.input_tokens` counts the same way);
//! `uncached_input_tokens` is the rest.

use std::collections::BTreeMap;

use serde::Serialize;

use super::index_page::GroupTotals;
use super::session_row::SessionRow;
use super::session_row::TokenTotals;

/// The whole document.
#[derive(Debug, Serialize)]
pub(crate) struct UsageReport<'a> {
    pub(crate) sessions: Vec<SessionUsage<'a>>,
    /// Per day the sessions started (UTC), oldest first.
    pub(crate) days: Vec<GroupUsage<'a>>,
    pub(crate) totals: GroupUsage<'a>,
}

/// Tokens as the JSON names them.
#[derive(Debug, Serialize)]
pub(crate) struct Tokens {
    input_tokens: u64,
    uncached_input_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    cache_write_1h_tokens: u64,
    /// Output tokens of the requests whose count was final.
    output_tokens: u64,
    /// Output estimated (a lower bound) for the requests whose count was never finalised.
    estimated_output_tokens: u64,
    /// Requests whose output is estimated.
    estimated_output_requests: u64,
    /// Some output here is estimated.
    output_estimated: bool,
}

impl From<&TokenTotals> for Tokens {
    fn from(totals: &TokenTotals) -> Self {
        Self {
            input_tokens: totals.input,
            uncached_input_tokens: totals
                .input
                .saturating_sub(totals.cached_input)
                .saturating_sub(totals.cache_write),
            cache_read_tokens: totals.cached_input,
            cache_write_tokens: totals.cache_write,
            cache_write_1h_tokens: totals.cache_write_1h,
            output_tokens: totals.output,
            estimated_output_tokens: totals.output_estimated,
            estimated_output_requests: totals.estimated_requests,
            output_estimated: totals.estimated_requests > 0,
        }
    }
}

/// One session.
#[derive(Debug, Serialize)]
pub(crate) struct SessionUsage<'a> {
    id: &'a str,
    file: &'a str,
    tool: &'a str,
    project: &'a str,
    first_timestamp: &'a str,
    last_timestamp: &'a str,
    models: &'a [String],
    requests: usize,
    measured_requests: usize,
    /// Responses billed that no replayed request took (a compaction's summary request).
    other_responses: usize,
    #[serde(flatten)]
    tokens: Tokens,
    /// USD, `null` when the price table cannot price a request.
    cost_usd: Option<f64>,
    /// `cost_usd` is a lower bound (an estimated output, a fast-mode price missing).
    cost_is_lower_bound: bool,
    /// Under our policy.
    our_input_tokens: u64,
    our_cost_usd: Option<f64>,
}

/// A day's sessions, or all of them.
#[derive(Debug, Serialize)]
pub(crate) struct GroupUsage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<&'a str>,
    sessions: usize,
    requests: usize,
    #[serde(flatten)]
    tokens: Tokens,
    /// USD over the sessions that could be priced.
    cost_usd: f64,
    cost_is_lower_bound: bool,
    /// Sessions left out of the costs: the table cannot price one of their requests.
    unpriced_sessions: usize,
    our_input_tokens: u64,
    our_cost_usd: f64,
}

impl<'a> GroupUsage<'a> {
    fn new(date: Option<&'a str>, group: &GroupTotals) -> Self {
        Self {
            date,
            sessions: group.sessions,
            requests: group.requests,
            tokens: Tokens::from(&group.recorded),
            cost_usd: group.recorded_cost,
            cost_is_lower_bound: group.lower_bound,
            unpriced_sessions: group.unpriced,
            our_input_tokens: group.ours.input,
            our_cost_usd: group.our_cost,
        }
    }
}

/// The document of `rows`.
pub(crate) fn usage_report(rows: &[SessionRow]) -> UsageReport<'_> {
    let mut days: BTreeMap<&str, GroupTotals> = BTreeMap::new();
    let mut all = GroupTotals::default();
    for row in rows {
        all.add(row);
        days.entry(row.day()).or_default().add(row);
    }
    UsageReport {
        sessions: rows
            .iter()
            .map(|row| SessionUsage {
                id: &row.session_id,
                file: &row.file,
                tool: row.tool,
                project: &row.project,
                first_timestamp: &row.started_at,
                last_timestamp: &row.last_at,
                models: &row.models,
                requests: row.requests,
                measured_requests: row.measured_requests,
                other_responses: row.other_responses,
                tokens: Tokens::from(&row.recorded),
                cost_usd: row.recorded_cost,
                cost_is_lower_bound: row.cost_lower_bound,
                our_input_tokens: row.ours.input,
                our_cost_usd: row.our_cost,
            })
            .collect(),
        days: days
            .iter()
            .map(|(day, group)| GroupUsage::new(Some(day), group))
            .collect(),
        totals: GroupUsage::new(None, &all),
    }
}

/// The document as pretty JSON text, ending with a newline.
pub(crate) fn render(rows: &[SessionRow]) -> anyhow::Result<String> {
    let mut text = serde_json::to_string_pretty(&usage_report(rows))?;
    text.push('\n');
    Ok(text)
}
