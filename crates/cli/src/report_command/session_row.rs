//! A session's row of the index: the figures the index shows and sorts by, taken from its
//! replay. The row is all the report keeps of a session once its page is written.

use std::path::Path;

use agentctx_engine::replay::RecordedTokens;
use agentctx_engine::replay::SessionReplay;
use agentctx_rollout::RolloutFormat;

use super::our_policy::our_requests;
use agentctx_model::PriceTable;

use super::pricing;

/// Characters of a file's stem kept in its page's name.
const PAGE_NAME_STEM_CHARS: usize = 48;

/// The name of the `index`-th session's page (without `.html`) and of its body folder: its
/// position, so names never collide, and its file's stem, so they can be told apart.
pub(crate) fn page_name(index: usize, file: &Path) -> String {
    let stem = file
        .file_stem()
        .map(|stem| stem.to_string_lossy())
        .unwrap_or_default();
    let safe: String = stem
        .chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() || matches!(character, '-' | '_' | '.') {
                character
            } else {
                '_'
            }
        })
        .take(PAGE_NAME_STEM_CHARS)
        .collect();
    format!("s{:04}-{safe}", index + 1)
}

/// Token counts summed over requests.
///
/// An output count a recording never finalised is never added to the exact ones: such a
/// request's output is its estimate, summed apart in `output_estimated` (see
/// docs/design/usage-accounting.md, "Outputs that were never finalised").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TokenTotals {
    /// Input tokens, cache reads and writes included.
    pub(crate) input: u64,
    /// Of them, read from the cache.
    pub(crate) cached_input: u64,
    /// Of them, written to the cache.
    pub(crate) cache_write: u64,
    /// Of the cache writes, those written for an hour.
    pub(crate) cache_write_1h: u64,
    /// Output tokens, as recorded, of the requests whose count was final.
    pub(crate) output: u64,
    /// Output tokens estimated from the visible output, of the requests whose recorded count
    /// was never finalised: a lower bound.
    pub(crate) output_estimated: u64,
    /// Requests whose output is estimated.
    pub(crate) estimated_requests: u64,
}

impl TokenTotals {
    /// Adds a request's `tokens`; `estimated_output` replaces its output count when the
    /// recorded one was never finalised.
    pub(crate) fn add(
        &mut self,
        tokens: &RecordedTokens,
        cache_write_1h: u64,
        estimated_output: Option<u64>,
    ) {
        self.input = self.input.saturating_add(tokens.input);
        self.cached_input = self.cached_input.saturating_add(tokens.cached_input);
        self.cache_write = self.cache_write.saturating_add(tokens.cache_write);
        self.cache_write_1h = self
            .cache_write_1h
            .saturating_add(cache_write_1h.min(tokens.cache_write));
        match estimated_output {
            Some(estimate) => {
                self.output_estimated = self.output_estimated.saturating_add(estimate);
                self.estimated_requests += 1;
            }
            None => self.output = self.output.saturating_add(tokens.output),
        }
    }

    pub(crate) fn add_totals(&mut self, other: &TokenTotals) {
        self.input = self.input.saturating_add(other.input);
        self.cached_input = self.cached_input.saturating_add(other.cached_input);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.cache_write_1h = self.cache_write_1h.saturating_add(other.cache_write_1h);
        self.output = self.output.saturating_add(other.output);
        self.output_estimated = self.output_estimated.saturating_add(other.output_estimated);
        self.estimated_requests = self
            .estimated_requests
            .saturating_add(other.estimated_requests);
    }
}

/// One session of the index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SessionRow {
    /// Its page's name (`sessions/<page>.html`).
    pub(crate) page: String,
    /// Its file.
    pub(crate) file: String,
    /// Its id, as recorded, else empty.
    pub(crate) session_id: String,
    /// When it started, as recorded (RFC 3339), else empty.
    pub(crate) started_at: String,
    /// When its last measured request was recorded, else `started_at`.
    pub(crate) last_at: String,
    /// Who recorded it: `Codex`, `Claude Code` or `agentctx`.
    pub(crate) tool: &'static str,
    /// Its working directory, else empty.
    pub(crate) project: String,
    /// The model it recorded last, else empty.
    pub(crate) model: String,
    /// The models that answered its requests, in the order they first did.
    pub(crate) models: Vec<String>,
    pub(crate) turns: usize,
    pub(crate) requests: usize,
    pub(crate) tool_calls: usize,
    /// The largest input a request recorded, else our largest estimate.
    pub(crate) peak_context: u64,
    /// The window its tiers were judged against.
    pub(crate) window: u64,
    /// Compactions the session recorded.
    pub(crate) their_compactions: usize,
    /// Requests at which our auto-compaction would have run.
    pub(crate) our_compactions: usize,
    /// Requests before which our micro-compaction would have cleared results.
    pub(crate) our_micro_compactions: usize,
    /// Requests that recorded usage.
    pub(crate) measured_requests: usize,
    /// Responses billed that no replayed request took (a compaction's summary request), in
    /// the totals and costs.
    pub(crate) other_responses: usize,
    /// Their tokens as recorded.
    pub(crate) recorded: TokenTotals,
    /// The same requests under our policy.
    pub(crate) ours: TokenTotals,
    /// The recorded tokens' cost in USD, each request at the model that answered it (`None`:
    /// the price table cannot price one of them).
    pub(crate) recorded_cost: Option<f64>,
    /// Ours, priced the same way.
    pub(crate) our_cost: Option<f64>,
    /// The costs are lower bounds: an output was estimated, or a fast-mode request's model has
    /// no multiplier in the table.
    pub(crate) cost_lower_bound: bool,
}

impl SessionRow {
    /// The row of `replay`, whose page is `page`, priced from `prices`.
    pub(crate) fn new(replay: &SessionReplay, page: &str, prices: Option<&PriceTable>) -> Self {
        let tool = if replay.recorded_by_agentctx {
            "agentctx"
        } else {
            match replay.format {
                RolloutFormat::ClaudeCode => "Claude Code",
                RolloutFormat::Codex | RolloutFormat::CodexLegacy => "Codex",
            }
        };
        let session_model = replay.model.as_deref();
        let mut recorded = TokenTotals::default();
        let mut ours = TokenTotals::default();
        let mut recorded_cost = Some(0.0);
        let mut our_cost = Some(0.0);
        let mut cost_lower_bound = false;
        let mut measured_requests = 0;
        let mut models: Vec<String> = Vec::new();
        let mut last_at = None;
        for (request, policy) in replay.requests.iter().zip(our_requests(&replay.requests)) {
            let Some(policy) = policy else {
                continue;
            };
            measured_requests += 1;
            let billing = request.recorded_billing.as_ref();
            if let Some(model) = billing
                .and_then(|billing| billing.model.as_deref())
                .or(session_model)
                && !models.iter().any(|known| known == model)
            {
                models.push(model.to_string());
            }
            if let Some(at) = billing.and_then(|billing| billing.timestamp.as_deref()) {
                last_at = Some(at);
            }
            let one_hour = billing.map_or(0, |billing| billing.cache_write_1h);
            let estimate = billing
                .and_then(|billing| billing.estimated_output_tokens)
                .map(|estimate| estimate.max(policy.recorded.output));
            // Our output is the recorded one plus the summaries our compaction asks for.
            let extra_output = policy.ours.output.saturating_sub(policy.recorded.output);
            recorded.add(&policy.recorded, one_hour, estimate);
            ours.add(
                &policy.ours,
                one_hour,
                estimate.map(|estimate| estimate.saturating_add(extra_output)),
            );
            let recorded_price =
                pricing::request_price(prices, session_model, &policy.recorded, billing, 0);
            let our_price =
                pricing::request_price(prices, session_model, &policy.ours, billing, extra_output);
            cost_lower_bound |= recorded_price.lower_bound;
            // A request the table cannot price leaves the session's cost unknown.
            recorded_cost = recorded_cost
                .zip(recorded_price.usd)
                .map(|(sum, cost)| sum + cost);
            our_cost = our_cost.zip(our_price.usd).map(|(sum, cost)| sum + cost);
        }
        for other in &replay.unreplayed_usage {
            let billing = Some(&other.billing);
            let one_hour = other.billing.cache_write_1h;
            let estimate = other
                .billing
                .estimated_output_tokens
                .map(|estimate| estimate.max(other.tokens.output));
            recorded.add(&other.tokens, one_hour, estimate);
            // Our policy leaves the session's own compactions as they were.
            ours.add(&other.tokens, one_hour, estimate);
            let price = pricing::request_price(prices, session_model, &other.tokens, billing, 0);
            cost_lower_bound |= price.lower_bound;
            recorded_cost = recorded_cost.zip(price.usd).map(|(sum, cost)| sum + cost);
            our_cost = our_cost.zip(price.usd).map(|(sum, cost)| sum + cost);
        }
        if measured_requests == 0
            && replay.unreplayed_usage.is_empty()
            && session_model
                .is_none_or(|model| prices.is_none_or(|prices| prices.lookup(model).is_none()))
        {
            // Nothing measured and no known model: nothing says what it cost.
            recorded_cost = None;
            our_cost = None;
        }
        let peak_recorded = replay
            .requests
            .iter()
            .filter_map(|request| request.recorded_tokens)
            .max();
        let started_at = replay.started_at.clone().unwrap_or_default();
        Self {
            page: page.to_string(),
            file: replay.file.display().to_string(),
            session_id: replay.session_id.clone().unwrap_or_default(),
            last_at: last_at.map_or_else(|| started_at.clone(), str::to_owned),
            started_at,
            tool,
            project: replay
                .cwd
                .as_ref()
                .map(|cwd| cwd.display().to_string())
                .unwrap_or_default(),
            model: replay.model.clone().unwrap_or_default(),
            models,
            turns: replay.turns.len(),
            requests: replay.requests.len(),
            tool_calls: replay.tool_calls,
            peak_context: peak_recorded.unwrap_or(replay.max_prompt_tokens),
            window: replay.thresholds.window,
            their_compactions: replay.compactions,
            our_compactions: replay
                .requests
                .iter()
                .filter(|request| request.auto_compact.is_some())
                .count(),
            our_micro_compactions: replay
                .requests
                .iter()
                .filter(|request| request.micro_compact.is_some())
                .count(),
            measured_requests,
            other_responses: replay.unreplayed_usage.len(),
            recorded,
            ours,
            recorded_cost,
            our_cost,
            cost_lower_bound,
        }
    }

    /// The day it started (`YYYY-MM-DD`), else `unknown`.
    pub(crate) fn day(&self) -> &str {
        match self.started_at.get(..10) {
            Some(day) if day.as_bytes().get(4) == Some(&b'-') => day,
            _ => "unknown",
        }
    }
}

#[cfg(test)]
#[path = "session_row_tests.rs"]
mod tests;
