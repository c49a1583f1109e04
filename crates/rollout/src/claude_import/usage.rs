//! The token counts of a Claude Code response's usage object.

use agentctx_protocol::TokenUsage;
use serde_json::Value;

use super::record_scan;
use super::record_view::to_value;

/// The counts of a usage object given as JSON text (see [`usage_of`]), read from the text, or
/// from its JSON tree when the scan leaves the object to serde_json.
pub(crate) fn usage_counts(usage: &str) -> TokenUsage {
    const NAMES: [&str; 4] = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    ];
    let Some([input, cache_creation, cache_read, output]) = record_scan::members(usage, NAMES)
    else {
        return usage_of(&to_value(usage));
    };
    // As `Value::as_i64` reads them: an integer in range, else 0 (the scan leaves exponents
    // to serde_json; a fraction or an integer out of range does not parse).
    let field = |raw: Option<&str>| raw.and_then(|raw| raw.parse::<i64>().ok()).unwrap_or(0);
    token_usage(
        field(input),
        field(cache_creation),
        field(cache_read),
        field(output),
    )
}

/// Claude usage as a codex `TokenUsage`: `input_tokens` is the occupancy of the request
/// (input + cache creation + cache read), `cached_input_tokens` the cache reads.
pub(crate) fn usage_of(usage: &Value) -> TokenUsage {
    let field = |name: &str| usage.get(name).and_then(Value::as_i64).unwrap_or(0);
    token_usage(
        field("input_tokens"),
        field("cache_creation_input_tokens"),
        field("cache_read_input_tokens"),
        field("output_tokens"),
    )
}

fn token_usage(input: i64, cache_creation: i64, cache_read: i64, output: i64) -> TokenUsage {
    let input = input
        .saturating_add(cache_creation)
        .saturating_add(cache_read);
    TokenUsage {
        input_tokens: input,
        cached_input_tokens: cache_read,
        output_tokens: output,
        reasoning_output_tokens: 0,
        total_tokens: input.saturating_add(output),
    }
}

pub(crate) fn add_usage(a: TokenUsage, b: TokenUsage) -> TokenUsage {
    TokenUsage {
        input_tokens: a.input_tokens.saturating_add(b.input_tokens),
        cached_input_tokens: a.cached_input_tokens.saturating_add(b.cached_input_tokens),
        output_tokens: a.output_tokens.saturating_add(b.output_tokens),
        reasoning_output_tokens: a
            .reasoning_output_tokens
            .saturating_add(b.reasoning_output_tokens),
        total_tokens: a.total_tokens.saturating_add(b.total_tokens),
    }
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
