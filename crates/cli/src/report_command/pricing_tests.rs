use agentctx_engine::replay::RecordedBilling;
use agentctx_engine::replay::RecordedTokens;
use agentctx_model::PriceTable;
use agentctx_model::TokenCounts;
use pretty_assertions::assert_eq;

use super::billed;
use super::request_price;

#[test]
fn cache_reads_and_writes_are_billed_apart_from_the_input() {
    let tokens = RecordedTokens {
        input: 16_207,
        cached_input: 15_000,
        cache_write: 1_200,
        output: 40,
    };
    assert_eq!(
        billed(&tokens),
        TokenCounts {
            input: 7,
            cached_input: 15_000,
            cache_write: 1_200,
            output: 40,
        }
    );
}

fn usd(model: &str, tokens: &RecordedTokens, billing: Option<&RecordedBilling>) -> f64 {
    let table = PriceTable::bundled().ok();
    request_price(table, Some(model), tokens, billing, 0)
        .usd
        .unwrap()
}

#[test]
fn cached_tokens_cost_less_than_the_same_tokens_uncached() {
    let uncached = RecordedTokens {
        input: 100_000,
        cached_input: 0,
        cache_write: 0,
        output: 0,
    };
    let cached = RecordedTokens {
        cached_input: 100_000,
        ..uncached
    };
    let (uncached, cached) = (
        usd("claude-sonnet-4-5", &uncached, None),
        usd("claude-sonnet-4-5", &cached, None),
    );
    assert!(
        cached > 0.0 && cached < uncached / 5.0,
        "{cached} vs {uncached}"
    );
}

#[test]
fn a_request_is_priced_at_the_model_that_answered_it() {
    let tokens = RecordedTokens {
        input: 1_000_000,
        cached_input: 0,
        cache_write: 0,
        output: 0,
    };
    let haiku = RecordedBilling {
        model: Some("claude-haiku-4-5-20251001".to_string()),
        ..RecordedBilling::default()
    };
    // Haiku's $1/MTok, not the session's Opus at $5/MTok.
    assert!((usd("claude-opus-4-6", &tokens, Some(&haiku)) - 1.0).abs() < 1e-9);
    assert!((usd("claude-opus-4-6", &tokens, None) - 5.0).abs() < 1e-9);
}

#[test]
fn an_estimated_output_is_billed_and_makes_the_cost_a_lower_bound() {
    let tokens = RecordedTokens {
        input: 0,
        cached_input: 0,
        cache_write: 0,
        output: 1_394,
    };
    let billing = RecordedBilling {
        model: Some("claude-opus-4-6".to_string()),
        output_estimated: true,
        estimated_output_tokens: Some(24_696),
        ..RecordedBilling::default()
    };
    let price = request_price(PriceTable::bundled().ok(), None, &tokens, Some(&billing), 0);
    assert!((price.usd.unwrap() - 24_696.0 * 2.5e-5).abs() < 1e-9);
    assert!(price.lower_bound);
    // Our summary's output is added to the estimate, not lost in it.
    let ours = RecordedTokens {
        output: 1_394 + 500,
        ..tokens
    };
    let with_summary = request_price(PriceTable::bundled().ok(), None, &ours, Some(&billing), 500);
    assert!((with_summary.usd.unwrap() - 25_196.0 * 2.5e-5).abs() < 1e-9);
}

#[test]
fn an_unknown_model_has_no_price() {
    let tokens = RecordedTokens {
        input: 10,
        cached_input: 0,
        cache_write: 0,
        output: 1,
    };
    let price = request_price(
        PriceTable::bundled().ok(),
        Some("no-such-model"),
        &tokens,
        None,
        0,
    );
    assert_eq!(price.usd, None);
}
