//! Model prices and context windows from LiteLLM's published table.
//!
//! LiteLLM maintains `model_prices_and_context_window.json`
//! (<https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json>, MIT), the
//! table `ccusage` also prices Claude Code and Codex sessions with. A filtered copy (chat and
//! responses models, the fields read here) is vendored under `data/litellm/` and refreshed by
//! `cargo xtask prices`; its README records the LiteLLM version it came from.
//!
//! Prices are USD per token, as LiteLLM writes them. LiteLLM's own field definitions are the
//! `sample_spec` entry of the same file: `max_input_tokens` is "max input tokens, if the
//! provider specifies it", `max_output_tokens` likewise for output. See
//! docs/design/model-providers.md, "Prices and windows from LiteLLM's table".

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::request_pricing::PriceRules;

/// The vendored table (a filtered copy of LiteLLM's file, see `data/litellm/README.md`).
const BUNDLED_JSON: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/litellm/model_prices_and_context_window.json"
));

/// The suffix Claude Code puts on a model id when the 1M-token window is on
/// (`claude-sonnet-4-5[1m]`); it names a mode of the model, not another model.
const ONE_MILLION_SUFFIX: &str = "[1m]";

/// The `mode`s of LiteLLM entries the table keeps: models a coding agent talks to.
const KEPT_MODES: &[&str] = &["chat", "responses"];

/// What LiteLLM's table says about one model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPrice {
    /// LiteLLM's `litellm_provider` (`openai`, `anthropic`, `bedrock`, …).
    pub provider: String,
    /// USD per uncached input token (`input_cost_per_token`).
    pub input_per_token: Option<f64>,
    /// USD per output token, reasoning included (`output_cost_per_token`).
    pub output_per_token: Option<f64>,
    /// USD per input token read from the provider's prompt cache
    /// (`cache_read_input_token_cost`).
    pub cache_read_per_token: Option<f64>,
    /// USD per input token written to the provider's prompt cache
    /// (`cache_creation_input_token_cost`; Anthropic bills cache writes above the input price).
    pub cache_write_per_token: Option<f64>,
    /// The most input tokens one request may carry, when the provider states it.
    pub max_input_tokens: Option<i64>,
    /// The most tokens one response may generate, when the provider states it.
    pub max_output_tokens: Option<i64>,
}

/// The tokens of one request or a sum of requests, split the way providers bill them.
///
/// The four counts are disjoint: `input` holds only the input tokens that were neither read
/// from nor written to the cache. OpenAI reports cached tokens as a part of its input count and
/// Anthropic beside it; [`TokenCounts::from_openai`] and [`TokenCounts::from_anthropic`] make
/// the split from either.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenCounts {
    /// Input tokens billed at the input price (no cache read, no cache write).
    pub input: u64,
    /// Input tokens read from the prompt cache.
    pub cached_input: u64,
    /// Input tokens written to the prompt cache (Anthropic's `cache_creation_input_tokens`).
    pub cache_write: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
}

impl TokenCounts {
    /// From OpenAI's usage (and Codex's `token_count` events), where `input_tokens` counts the
    /// cached tokens too: `input` is the input minus the cached part.
    pub fn from_openai(input_tokens: u64, cached_input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input: input_tokens.saturating_sub(cached_input_tokens),
            cached_input: cached_input_tokens,
            cache_write: 0,
            output: output_tokens,
        }
    }

    /// From Anthropic's usage, whose `input_tokens` already excludes cache reads and writes.
    pub fn from_anthropic(
        input_tokens: u64,
        cache_read_input_tokens: u64,
        cache_creation_input_tokens: u64,
        output_tokens: u64,
    ) -> Self {
        Self {
            input: input_tokens,
            cached_input: cache_read_input_tokens,
            cache_write: cache_creation_input_tokens,
            output: output_tokens,
        }
    }

    /// From a recorded [`agentctx_protocol::TokenUsage`] (OpenAI's split: cached tokens inside
    /// the input). It has no cache-write count, so none is billed as such. Negative counts (a
    /// corrupt record) count as zero.
    pub fn from_usage(usage: &agentctx_protocol::TokenUsage) -> Self {
        let count = |value: i64| u64::try_from(value).unwrap_or(0);
        Self::from_openai(
            count(usage.input_tokens),
            count(usage.cached_input_tokens),
            count(usage.output_tokens),
        )
    }

    /// All input tokens, cached or not.
    pub fn total_input(&self) -> u64 {
        self.input
            .saturating_add(self.cached_input)
            .saturating_add(self.cache_write)
    }
}

impl std::ops::Add for TokenCounts {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            input: self.input.saturating_add(other.input),
            cached_input: self.cached_input.saturating_add(other.cached_input),
            cache_write: self.cache_write.saturating_add(other.cache_write),
            output: self.output.saturating_add(other.output),
        }
    }
}

impl std::ops::AddAssign for TokenCounts {
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}

impl ModelPrice {
    /// The price of a cache read: `cache_read_per_token`, else the input price. The fallback
    /// charges cached tokens as uncached ones for a model whose entry gives no cache price
    /// (providers without prompt caching, or an entry LiteLLM has not filled in): an upper
    /// bound, never a discount the table does not state.
    pub fn effective_cache_read_per_token(&self) -> Option<f64> {
        self.cache_read_per_token.or(self.input_per_token)
    }

    /// The price of a cache write: `cache_write_per_token`, else the input price (the same
    /// fallback as [`ModelPrice::effective_cache_read_per_token`]).
    pub fn effective_cache_write_per_token(&self) -> Option<f64> {
        self.cache_write_per_token.or(self.input_per_token)
    }

    /// The cost in USD of `tokens`, cached tokens at the cache prices (with the input-price
    /// fallback of [`ModelPrice::effective_cache_read_per_token`]). `None` when a nonzero count
    /// has no price at all, so an unpriced model never reads as free.
    ///
    /// Long-context tiers, fast mode and one-hour cache writes are not applied: they depend on
    /// each request, not on a sum; [`PriceMatch::request_cost`] prices a request with them.
    pub fn cost(&self, tokens: &TokenCounts) -> Option<f64> {
        let part = |count: u64, price: Option<f64>| -> Option<f64> {
            if count == 0 {
                return Some(0.0);
            }
            // Token counts are far below 2^53, where the conversion is exact.
            price.map(|price| count as f64 * price)
        };
        Some(
            part(tokens.input, self.input_per_token)?
                + part(tokens.cached_input, self.effective_cache_read_per_token())?
                + part(tokens.cache_write, self.effective_cache_write_per_token())?
                + part(tokens.output, self.output_per_token)?,
        )
    }
}

/// A failure to read a price table.
#[derive(Debug, thiserror::Error)]
pub enum PriceTableError {
    /// The text is not a JSON object of entries.
    #[error("price table is not a JSON object of model entries: {source}")]
    Json {
        /// The parser's error, with its line and column.
        #[source]
        source: serde_json::Error,
    },
}

/// One entry as LiteLLM writes it; unknown fields are ignored.
#[derive(Debug, Deserialize)]
struct RawEntry {
    #[serde(default)]
    litellm_provider: Option<String>,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    input_cost_per_token: Option<f64>,
    #[serde(default)]
    output_cost_per_token: Option<f64>,
    #[serde(default)]
    cache_read_input_token_cost: Option<f64>,
    #[serde(default)]
    cache_creation_input_token_cost: Option<f64>,
    #[serde(default)]
    max_input_tokens: Option<i64>,
    #[serde(default)]
    max_output_tokens: Option<i64>,
}

impl RawEntry {
    fn into_price(self) -> ModelPrice {
        ModelPrice {
            provider: self.litellm_provider.unwrap_or_default(),
            input_per_token: self.input_cost_per_token,
            output_per_token: self.output_cost_per_token,
            cache_read_per_token: self.cache_read_input_token_cost,
            cache_write_per_token: self.cache_creation_input_token_cost,
            max_input_tokens: self.max_input_tokens,
            max_output_tokens: self.max_output_tokens,
        }
    }
}

/// LiteLLM's table, keyed by model name (ASCII lowercase).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    entries: HashMap<String, ModelPrice>,
    /// The entries that state more than base prices (most state none), by the same key.
    rules: HashMap<String, PriceRules>,
    skipped: usize,
}

/// The rules of an entry that states none.
static NO_RULES: PriceRules = PriceRules {
    cache_write_1h_per_token: None,
    fast_multiplier: None,
    long_context: Vec::new(),
};

/// An entry [`PriceTable::resolve`] found, with the table's name for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriceMatch<'a> {
    /// The table's key the model name resolved to (lowercase), e.g. `claude-sonnet-4-5` for
    /// `anthropic/claude-sonnet-4-5[1m]`.
    pub slug: &'a str,
    /// The entry.
    pub price: &'a ModelPrice,
    /// What the entry says beyond its base prices (one-hour cache writes, fast mode,
    /// long-context tiers).
    pub rules: &'a PriceRules,
}

impl PriceMatch<'_> {
    /// What one request cost at this entry, with its rules (see [`PriceRules::request_cost`]).
    pub fn request_cost(&self, request: &crate::BilledRequest) -> Option<crate::RequestCost> {
        self.rules.request_cost(self.price, request)
    }
}

impl PriceTable {
    /// Parses a table in LiteLLM's format: the vendored copy, or LiteLLM's whole
    /// `model_prices_and_context_window.json`. Entries whose `mode` is set to something other
    /// than `chat` or `responses` are left out, and so are entries whose fields have the wrong
    /// types (LiteLLM's `sample_spec` documents its fields with strings); their number is
    /// [`PriceTable::skipped_entries`]. Only text that is not a JSON object is an error.
    pub fn load(json: &str) -> Result<Self, PriceTableError> {
        let raw: HashMap<String, serde_json::Value> =
            serde_json::from_str(json).map_err(|source| PriceTableError::Json { source })?;
        let mut table = Self {
            entries: HashMap::with_capacity(raw.len()),
            rules: HashMap::new(),
            skipped: 0,
        };
        for (name, value) in raw {
            let entry = match RawEntry::deserialize(&value) {
                Ok(entry) => entry,
                Err(err) => {
                    tracing::debug!(model = %name, %err, "price table entry skipped");
                    table.skipped += 1;
                    continue;
                }
            };
            if entry
                .mode
                .as_deref()
                .is_some_and(|mode| !KEPT_MODES.contains(&mode))
            {
                table.skipped += 1;
                continue;
            }
            let key = name.to_ascii_lowercase();
            if let Some(object) = value.as_object() {
                let rules = PriceRules::from_litellm(object);
                if !rules.is_empty() {
                    table.rules.insert(key.clone(), rules);
                }
            }
            table.entries.insert(key, entry.into_price());
        }
        Ok(table)
    }

    /// The vendored table, parsed once. An error means the vendored file is broken (a test of
    /// this crate parses it, so a release never ships one that is).
    pub fn bundled() -> Result<&'static Self, &'static PriceTableError> {
        static BUNDLED: OnceLock<Result<PriceTable, PriceTableError>> = OnceLock::new();
        BUNDLED.get_or_init(|| Self::load(BUNDLED_JSON)).as_ref()
    }

    /// How many entries the table holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the table holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many entries [`PriceTable::load`] left out.
    pub fn skipped_entries(&self) -> usize {
        self.skipped
    }

    /// The entry of `model` as a session records it; see [`PriceTable::resolve`].
    pub fn lookup(&self, model: &str) -> Option<&ModelPrice> {
        self.resolve(model).map(|found| found.price)
    }

    /// The entry of `model` as a session records it, with the key it resolved to.
    ///
    /// Names are compared in ASCII lowercase after trimming, and a Claude Code `[1m]` suffix
    /// is dropped (the model's entry is the same). Then, first match wins:
    /// 1. the name itself (`claude-opus-4-5-20251101`, `gpt-5.1-codex`, `openrouter/…` keys
    ///    LiteLLM lists under a router prefix);
    /// 2. the name without a date suffix, `-YYYYMMDD` (Anthropic) or `-YYYY-MM-DD` (OpenAI),
    ///    for a snapshot the table lists only by its alias;
    /// 3. the same two after dropping a leading `vendor/` segment, one at a time
    ///    (`openai/gpt-5`, `anthropic/claude-sonnet-4-5`).
    ///
    /// No fuzzier match is tried: a bare `qwen3-32b` is listed only under hosting providers,
    /// whose prices are theirs, so it resolves to nothing rather than to one of them.
    pub fn resolve(&self, model: &str) -> Option<PriceMatch<'_>> {
        let name = model.trim().to_ascii_lowercase();
        let mut name = name.as_str();
        if let Some(base) = name.strip_suffix(ONE_MILLION_SUFFIX) {
            name = base;
        }
        loop {
            for candidate in [Some(name), without_date_suffix(name)]
                .into_iter()
                .flatten()
            {
                if let Some((slug, price)) = self.entries.get_key_value(candidate) {
                    let rules = self.rules.get(candidate).unwrap_or(&NO_RULES);
                    return Some(PriceMatch { slug, price, rules });
                }
            }
            name = name.split_once('/')?.1;
        }
    }
}

/// `name` without a trailing `-YYYYMMDD` or `-YYYY-MM-DD`; `None` when it has neither.
fn without_date_suffix(name: &str) -> Option<&str> {
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let (head, tail) = name.rsplit_once('-')?;
    if tail.len() == 8 && digits(tail) {
        return Some(head);
    }
    // `gpt-5-2025-08-07`: the last three segments are 4, 2 and 2 digits.
    let (head, day) = (head, tail);
    let (head, month) = head.rsplit_once('-')?;
    let (head, year) = head.rsplit_once('-')?;
    let shaped = year.len() == 4 && month.len() == 2 && day.len() == 2;
    (shaped && digits(year) && digits(month) && digits(day)).then_some(head)
}

#[cfg(test)]
#[path = "price_table_tests.rs"]
mod tests;
