//! [`Prices`] and [`CacheRules`]: what a model's tokens cost and how its provider caches a
//! prompt, from the price table's [`ModelPrice`] with the provider's documented defaults for
//! what the table lacks.
//!
//! - Anthropic (<https://docs.claude.com/en/docs/build-with-claude/prompt-caching>): a cache
//!   write costs 1.25× the input price with the default 5-minute lifetime, 2× with the 1-hour
//!   one; a cache read 0.1×. The lifetime is refreshed each time the cached prefix is used. A
//!   prefix is found only at a breakpoint or at a block boundary up to about 20 blocks before
//!   one, so a change further back than that from the end of the conversation is read only up
//!   to the breakpoint before the conversation (instructions and tools).
//! - OpenAI (<https://platform.openai.com/docs/guides/prompt-caching>): prefixes are cached
//!   automatically at no extra charge and read at the model's cached-input price; in-memory
//!   retention keeps them 5 to 10 minutes of inactivity, at most an hour.

use std::time::Duration;

use agentctx_model::ModelPrice;
use agentctx_model::WireApi;
use serde::Serialize;

/// Anthropic's cache-write price with the 5-minute lifetime, as a multiple of the input price.
pub const ANTHROPIC_WRITE_5M: f64 = 1.25;
/// Anthropic's cache-write price with the 1-hour lifetime, as a multiple of the input price.
pub const ANTHROPIC_WRITE_1H: f64 = 2.0;
/// Anthropic's cache-read price, as a multiple of the input price.
pub const ANTHROPIC_READ: f64 = 0.1;
/// Content blocks before a breakpoint at whose boundaries Anthropic looks for a cached prefix.
pub const ANTHROPIC_LOOKBACK_BLOCKS: usize = 20;
/// The cached-input price assumed for an OpenAI model whose entry gives none (the GPT-5
/// family's), as a multiple of the input price.
pub const OPENAI_READ: f64 = 0.1;
/// The input price of [`Prices::reference`], in USD per token ($1 per million): a model the
/// table does not know is priced in these units, whose ratios are all a decision reads.
pub const REFERENCE_INPUT_PER_TOKEN: f64 = 1e-6;
/// The output price of [`Prices::reference`], as a multiple of the input price (Claude
/// Sonnet's and GPT-5's are 5× and 8×).
pub const REFERENCE_OUTPUT_RATIO: f64 = 5.0;

/// How long Anthropic keeps a cached prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheTtl {
    /// The default: 5 minutes, refreshed on every use.
    FiveMinutes,
    /// The 1-hour option (`"ttl": "1h"`), written at twice the input price.
    OneHour,
}

/// Whose caching rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheProvider {
    /// Explicit breakpoints; writes cost more than input, reads a tenth of it.
    Anthropic,
    /// Automatic prefix caching; writes cost nothing extra.
    OpenAi,
}

/// How a provider caches a prompt: what is cached (the longest prefix the previous request
/// sent, for both), whether writing it costs more than input, and how long it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CacheRules {
    /// Whose rules.
    pub provider: CacheProvider,
    /// The time after the last request from which the cache is taken for cold.
    pub ttl: Duration,
    /// Whether the uncached part of a prompt is written to the cache at the cache-write price
    /// (Anthropic, with a breakpoint at the end of each request as coding agents place it), or
    /// billed as plain input (OpenAI).
    pub write_premium: bool,
    /// How far before the end of the conversation (in history items) a changed prefix is still
    /// found in the cache; `None`: any prefix is (OpenAI matches the longest one).
    pub lookback_items: Option<usize>,
}

impl CacheRules {
    /// Anthropic's rules with the lifetime `ttl`.
    pub fn anthropic(ttl: CacheTtl) -> Self {
        Self {
            provider: CacheProvider::Anthropic,
            ttl: match ttl {
                CacheTtl::FiveMinutes => Duration::from_secs(5 * 60),
                CacheTtl::OneHour => Duration::from_secs(60 * 60),
            },
            write_premium: true,
            lookback_items: Some(ANTHROPIC_LOOKBACK_BLOCKS),
        }
    }

    /// OpenAI's in-memory retention: 5 to 10 minutes of inactivity. The cache is taken for cold
    /// only after 10 minutes: clearing on a cache that is still warm is the costly mistake,
    /// waiting a little longer than needed only delays a clear.
    pub fn openai() -> Self {
        Self {
            provider: CacheProvider::OpenAi,
            ttl: Duration::from_secs(10 * 60),
            write_premium: false,
            lookback_items: None,
        }
    }

    /// The part of the prompt before a change at item `first` that is still read from the
    /// cache, when `prefix_tokens` precede it, `stable_tokens` are the instructions and tools
    /// (cached at their own breakpoint) and the last request sent `sent_items` items: all of the
    /// prefix, unless the provider looks back fewer items than the change is from the end.
    pub fn kept_prefix(
        &self,
        prefix_tokens: u64,
        stable_tokens: u64,
        first: usize,
        sent_items: usize,
    ) -> u64 {
        match self.lookback_items {
            Some(lookback) if sent_items.saturating_sub(first) > lookback => {
                stable_tokens.min(prefix_tokens)
            }
            _ => prefix_tokens,
        }
    }

    /// The rules of a provider by its price-table name (`anthropic`, `bedrock`, `vertex_ai…`
    /// for Claude models, `openai`, `azure`…), `model` deciding for hosts that serve both.
    pub fn for_provider(provider: &str, model: &str) -> Self {
        let provider = provider.to_ascii_lowercase();
        if provider == "anthropic" || model.to_ascii_lowercase().contains("claude") {
            Self::anthropic(CacheTtl::FiveMinutes)
        } else {
            Self::openai()
        }
    }

    /// The rules of the wire API a client speaks, when the price table does not know its model.
    pub fn for_wire_api(wire_api: WireApi) -> Self {
        match wire_api {
            WireApi::Anthropic => Self::anthropic(CacheTtl::FiveMinutes),
            WireApi::Responses | WireApi::Chat => Self::openai(),
        }
    }
}

/// What one token costs, in USD: uncached input, a cache write, a cache read and output.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prices {
    /// Uncached input.
    pub input: f64,
    /// Input written to the cache (the input price where writes cost nothing extra).
    pub cache_write: f64,
    /// Input read from the cache.
    pub cache_read: f64,
    /// Output.
    pub output: f64,
}

impl Prices {
    /// The prices of `price` under `rules`: the table's figures, and where it lacks one the
    /// provider's default ratio to the input price (module doc). `None` when the entry has no
    /// input price.
    pub fn from_model_price(price: &ModelPrice, rules: &CacheRules) -> Option<Self> {
        let input = price.input_per_token.filter(|input| *input > 0.0)?;
        let (write, read) = match rules.provider {
            CacheProvider::Anthropic => {
                let write_ratio = if rules.ttl > Duration::from_secs(5 * 60) {
                    ANTHROPIC_WRITE_1H
                } else {
                    ANTHROPIC_WRITE_5M
                };
                // The table's write price is the 5-minute one.
                let write = if write_ratio > ANTHROPIC_WRITE_5M {
                    input * write_ratio
                } else {
                    price.cache_write_per_token.unwrap_or(input * write_ratio)
                };
                (
                    write,
                    price.cache_read_per_token.unwrap_or(input * ANTHROPIC_READ),
                )
            }
            CacheProvider::OpenAi => (
                input,
                price.cache_read_per_token.unwrap_or(input * OPENAI_READ),
            ),
        };
        Some(Self {
            input,
            cache_write: write,
            cache_read: read,
            output: price
                .output_per_token
                .unwrap_or(input * REFERENCE_OUTPUT_RATIO),
        })
    }

    /// Prices in reference units for a model the table does not know: input at
    /// [`REFERENCE_INPUT_PER_TOKEN`], output at [`REFERENCE_OUTPUT_RATIO`] times it, and the
    /// cache at the provider's default ratios.
    pub fn reference(rules: &CacheRules) -> Self {
        let input = REFERENCE_INPUT_PER_TOKEN;
        let (write, read) = match rules.provider {
            CacheProvider::Anthropic if rules.ttl > Duration::from_secs(5 * 60) => {
                (input * ANTHROPIC_WRITE_1H, input * ANTHROPIC_READ)
            }
            CacheProvider::Anthropic => (input * ANTHROPIC_WRITE_5M, input * ANTHROPIC_READ),
            CacheProvider::OpenAi => (input, input * OPENAI_READ),
        };
        Self {
            input,
            cache_write: write,
            cache_read: read,
            output: input * REFERENCE_OUTPUT_RATIO,
        }
    }

    /// What the part of a prompt that is not read from the cache costs per token under
    /// `rules`: written to the cache where that costs more, else billed as input.
    pub fn uncached(&self, rules: &CacheRules) -> f64 {
        if rules.write_premium {
            self.cache_write
        } else {
            self.input
        }
    }
}
