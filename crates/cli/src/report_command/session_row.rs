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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TokenTotals {
    /// Input tokens, cache reads and writes included.
    pub(crate) input: u64,
    /// Of them, read from the cache.
    pub(crate) cached_input: u64,
    /// Of them, written to the cache.
    pub(crate) cache_write: u64,
    /// Output tokens.
    pub(crate) output: u64,
}

impl TokenTotals {
    pub(crate) fn add(&mut self, tokens: &RecordedTokens) {
        self.input = self.input.saturating_add(tokens.input);
        self.cached_input = self.cached_input.saturating_add(tokens.cached_input);
        self.cache_write = self.cache_write.saturating_add(tokens.cache_write);
        self.output = self.output.saturating_add(tokens.output);
    }

    pub(crate) fn add_totals(&mut self, other: &TokenTotals) {
        self.input = self.input.saturating_add(other.input);
        self.cached_input = self.cached_input.saturating_add(other.cached_input);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.output = self.output.saturating_add(other.output);
    }
}

/// One session of the index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SessionRow {
    /// Its page's name (`sessions/<page>.html`).
    pub(crate) page: String,
    /// Its file.
    pub(crate) file: String,
    /// When it started, as recorded (RFC 3339), else empty.
    pub(crate) started_at: String,
    /// Who recorded it: `Codex`, `Claude Code` or `agentctx`.
    pub(crate) tool: &'static str,
    /// Its working directory, else empty.
    pub(crate) project: String,
    /// The model it recorded last, else empty.
    pub(crate) model: String,
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
    /// Their tokens as recorded.
    pub(crate) recorded: TokenTotals,
    /// The same requests under our policy.
    pub(crate) ours: TokenTotals,
    /// The recorded tokens' cost in USD (`None`: the price table does not know the model).
    pub(crate) recorded_cost: Option<f64>,
    /// Ours, priced the same way.
    pub(crate) our_cost: Option<f64>,
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
        let price = replay
            .model
            .as_deref()
            .and_then(|model| prices?.lookup(model));
        let mut recorded = TokenTotals::default();
        let mut ours = TokenTotals::default();
        let mut recorded_cost = price.map(|_| 0.0);
        let mut our_cost = price.map(|_| 0.0);
        let mut measured_requests = 0;
        for request in our_requests(&replay.requests).into_iter().flatten() {
            measured_requests += 1;
            recorded.add(&request.recorded);
            ours.add(&request.ours);
            if let Some(price) = price {
                // A request the entry cannot price leaves the session's cost unknown.
                recorded_cost = recorded_cost
                    .zip(pricing::cost(price, &request.recorded))
                    .map(|(sum, cost)| sum + cost);
                our_cost = our_cost
                    .zip(pricing::cost(price, &request.ours))
                    .map(|(sum, cost)| sum + cost);
            }
        }
        let peak_recorded = replay
            .requests
            .iter()
            .filter_map(|request| request.recorded_tokens)
            .max();
        Self {
            page: page.to_string(),
            file: replay.file.display().to_string(),
            started_at: replay.started_at.clone().unwrap_or_default(),
            tool,
            project: replay
                .cwd
                .as_ref()
                .map(|cwd| cwd.display().to_string())
                .unwrap_or_default(),
            model: replay.model.clone().unwrap_or_default(),
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
            recorded,
            ours,
            recorded_cost,
            our_cost,
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
