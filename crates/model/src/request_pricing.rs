//! One request's price: what LiteLLM's table says beyond a model's base prices, and how a
//! provider bills a single request with it.
//!
//! A sum of requests cannot be priced once the price depends on the request: a one-hour cache
//! write costs more than a five-minute one, fast mode multiplies every rate, and a request
//! whose input passes a long-context threshold is billed at that tier's rates in full. The
//! rules, each from the provider's own pricing page:
//!
//! - cache writes by lifetime: Anthropic bills a 5-minute write at 1.25 times the input price
//!   and a 1-hour write at 2 times
//!   (<https://docs.claude.com/en/docs/build-with-claude/prompt-caching#pricing>); LiteLLM
//!   writes the 1-hour price as `cache_creation_input_token_cost_above_1hr`. Claude Code
//!   records the split as `usage.cache_creation.ephemeral_{5m,1h}_input_tokens`;
//! - fast mode: "priced at a multiplier on standard rates across the full context window,
//!   including requests over 200k input tokens", with the prompt-caching multipliers on top
//!   (<https://platform.claude.com/docs/en/build-with-claude/fast-mode>, "Pricing"); LiteLLM
//!   writes the multiplier as `provider_specific_entry.fast` and Claude Code records
//!   `usage.speed: "fast"` on such a response;
//! - long context: once a request's input passes the threshold (all input counted: uncached,
//!   cache reads and cache writes, as Anthropic counts it for its 200K tier,
//!   <https://platform.claude.com/docs/en/about-claude/pricing#long-context-pricing>; OpenAI
//!   likewise for its 272K tier, <https://developers.openai.com/api/docs/pricing>), every token
//!   of the request, output included, is billed at the tier's rates, not only those past the
//!   threshold. LiteLLM writes the tiers as `input_cost_per_token_above_200k_tokens`,
//!   `output_cost_per_token_above_200k_tokens`, `cache_read_input_token_cost_above_200k_tokens`,
//!   `cache_creation_input_token_cost_above_200k_tokens` and
//!   `cache_creation_input_token_cost_above_1hr_above_200k_tokens` (and `_above_272k_tokens`,
//!   `_above_128k_tokens`, …).
//!
//! See docs/design/usage-accounting.md.

use serde_json::Value;

use crate::ModelPrice;
use crate::TokenCounts;

/// What an entry says about a request's price beyond the base prices of [`ModelPrice`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceRules {
    /// USD per input token written to the cache for an hour
    /// (`cache_creation_input_token_cost_above_1hr`).
    pub cache_write_1h_per_token: Option<f64>,
    /// The factor fast mode multiplies every rate by (`provider_specific_entry.fast`).
    pub fast_multiplier: Option<f64>,
    /// Long-context tiers, by threshold ascending.
    pub long_context: Vec<LongContextTier>,
}

/// The rates of a request whose input passes `threshold` tokens. A rate the entry does not
/// state for the tier is derived in `PriceRules::rates`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LongContextTier {
    /// Input tokens above which the tier applies (`200k` in a field name: 200,000).
    pub threshold: u64,
    /// `input_cost_per_token_above_{N}k_tokens`.
    pub input_per_token: Option<f64>,
    /// `output_cost_per_token_above_{N}k_tokens`.
    pub output_per_token: Option<f64>,
    /// `cache_read_input_token_cost_above_{N}k_tokens`.
    pub cache_read_per_token: Option<f64>,
    /// `cache_creation_input_token_cost_above_{N}k_tokens`.
    pub cache_write_per_token: Option<f64>,
    /// `cache_creation_input_token_cost_above_1hr_above_{N}k_tokens`.
    pub cache_write_1h_per_token: Option<f64>,
}

/// One request's tokens as a provider bills them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BilledRequest {
    /// The disjoint counts; `tokens.cache_write` holds every cache write, the 1-hour ones too.
    pub tokens: TokenCounts,
    /// Of `tokens.cache_write`, the tokens written for an hour.
    pub cache_write_1h: u64,
    /// Served in fast mode.
    pub fast: bool,
}

/// What one request cost, and which of the rules priced it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestCost {
    /// USD.
    pub usd: f64,
    /// The threshold of the long-context tier the request was billed at, if any.
    pub long_context_threshold: Option<u64>,
    /// The request ran in fast mode but the entry states no multiplier: priced at the standard
    /// rates, so `usd` is a lower bound.
    pub fast_unpriced: bool,
}

/// The per-token rates one request is billed at.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rates {
    input: Option<f64>,
    output: Option<f64>,
    cache_read: Option<f64>,
    cache_write: Option<f64>,
    cache_write_1h: Option<f64>,
}

impl PriceRules {
    /// The rules an entry of LiteLLM's table states; the default when it states none.
    pub(crate) fn from_litellm(entry: &serde_json::Map<String, Value>) -> Self {
        let mut rules = Self {
            cache_write_1h_per_token: entry
                .get("cache_creation_input_token_cost_above_1hr")
                .and_then(Value::as_f64),
            fast_multiplier: entry
                .get("provider_specific_entry")
                .and_then(|specific| specific.get("fast"))
                .and_then(Value::as_f64)
                .filter(|factor| *factor > 0.0),
            long_context: Vec::new(),
        };
        for (key, value) in entry {
            let (Some((field, threshold)), Some(price)) = (tier_field(key), value.as_f64()) else {
                continue;
            };
            let index = match rules
                .long_context
                .iter()
                .position(|tier| tier.threshold == threshold)
            {
                Some(index) => index,
                None => {
                    rules.long_context.push(LongContextTier {
                        threshold,
                        ..LongContextTier::default()
                    });
                    rules.long_context.len() - 1
                }
            };
            if let Some(tier) = rules.long_context.get_mut(index) {
                let slot = match field {
                    TierField::Input => &mut tier.input_per_token,
                    TierField::Output => &mut tier.output_per_token,
                    TierField::CacheRead => &mut tier.cache_read_per_token,
                    TierField::CacheWrite => &mut tier.cache_write_per_token,
                    TierField::CacheWrite1h => &mut tier.cache_write_1h_per_token,
                };
                *slot = Some(price);
            }
        }
        rules.long_context.sort_by_key(|tier| tier.threshold);
        rules
    }

    /// True when the entry states nothing beyond its base prices.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The tier a request of `total_input` input tokens is billed at: the highest threshold
    /// the input passes (strictly: 200,000 input tokens are not above 200K).
    pub fn tier_for(&self, total_input: u64) -> Option<&LongContextTier> {
        self.long_context
            .iter()
            .rev()
            .find(|tier| total_input > tier.threshold)
    }

    /// The rates of a request at `tier` (the base ones without a tier). The 1-hour write
    /// price, when the entry gives none, is the 5-minute one: an understatement the entry
    /// leaves no way around. A tier rate the entry does not state is derived: for input-side
    /// rates (cache reads and writes) the base rate scaled by the tier's input factor, since
    /// the providers state their cache prices as multiples of the input price and stack them
    /// on the long-context rate; for output the base rate.
    fn rates(&self, price: &ModelPrice, tier: Option<&LongContextTier>) -> Rates {
        let base_write = price.effective_cache_write_per_token();
        let base = Rates {
            input: price.input_per_token,
            output: price.output_per_token,
            cache_read: price.effective_cache_read_per_token(),
            cache_write: base_write,
            cache_write_1h: self.cache_write_1h_per_token.or(base_write),
        };
        let Some(tier) = tier else {
            return base;
        };
        let factor = match (tier.input_per_token, price.input_per_token) {
            (Some(high), Some(low)) if low > 0.0 => Some(high / low),
            _ => None,
        };
        let scaled = |rate: Option<f64>| Some(rate? * factor?);
        Rates {
            input: tier.input_per_token.or(base.input),
            output: tier.output_per_token.or(base.output),
            cache_read: tier
                .cache_read_per_token
                .or_else(|| scaled(base.cache_read))
                .or(base.cache_read),
            cache_write: tier
                .cache_write_per_token
                .or_else(|| scaled(base.cache_write))
                .or(base.cache_write),
            cache_write_1h: tier
                .cache_write_1h_per_token
                .or_else(|| scaled(base.cache_write_1h))
                .or(base.cache_write_1h),
        }
    }

    /// What `request` cost at `price` under these rules. `None` when a nonzero count has no
    /// price at all, so an unpriced model never reads as free.
    pub fn request_cost(&self, price: &ModelPrice, request: &BilledRequest) -> Option<RequestCost> {
        let tokens = &request.tokens;
        let tier = self.tier_for(tokens.total_input());
        let rates = self.rates(price, tier);
        let part = |count: u64, rate: Option<f64>| -> Option<f64> {
            if count == 0 {
                return Some(0.0);
            }
            // Token counts are far below 2^53, where the conversion is exact.
            rate.map(|rate| count as f64 * rate)
        };
        let one_hour = request.cache_write_1h.min(tokens.cache_write);
        let standard = part(tokens.input, rates.input)?
            + part(tokens.cached_input, rates.cache_read)?
            + part(tokens.cache_write - one_hour, rates.cache_write)?
            + part(one_hour, rates.cache_write_1h)?
            + part(tokens.output, rates.output)?;
        let multiplier = if request.fast {
            self.fast_multiplier
        } else {
            Some(1.0)
        };
        Some(RequestCost {
            usd: standard * multiplier.unwrap_or(1.0),
            long_context_threshold: tier.map(|tier| tier.threshold),
            fast_unpriced: multiplier.is_none(),
        })
    }
}

/// Which rate a long-context field names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TierField {
    Input,
    Output,
    CacheRead,
    CacheWrite,
    CacheWrite1h,
}

/// The rate and threshold of a long-context field (`input_cost_per_token_above_200k_tokens`:
/// input, 200,000); `None` for any other field, those of batch, flex or priority service
/// (`…_above_272k_tokens_priority`) included.
fn tier_field(key: &str) -> Option<(TierField, u64)> {
    const PREFIXES: [(&str, TierField); 5] = [
        (
            "cache_creation_input_token_cost_above_1hr_above_",
            TierField::CacheWrite1h,
        ),
        (
            "cache_creation_input_token_cost_above_",
            TierField::CacheWrite,
        ),
        ("cache_read_input_token_cost_above_", TierField::CacheRead),
        ("input_cost_per_token_above_", TierField::Input),
        ("output_cost_per_token_above_", TierField::Output),
    ];
    let (field, rest) = PREFIXES
        .iter()
        .find_map(|(prefix, field)| Some((*field, key.strip_prefix(prefix)?)))?;
    let thousands = rest.strip_suffix("k_tokens")?;
    if thousands.is_empty() || !thousands.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    Some((field, thousands.parse::<u64>().ok()?.checked_mul(1_000)?))
}

#[cfg(test)]
#[path = "request_pricing_tests.rs"]
mod tests;
