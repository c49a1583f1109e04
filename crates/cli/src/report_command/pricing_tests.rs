use agentctx_engine::replay::RecordedTokens;
use agentctx_model::PriceTable;
use agentctx_model::TokenCounts;
use pretty_assertions::assert_eq;

use super::billed;
use super::cost;

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

#[test]
fn cached_tokens_cost_less_than_the_same_tokens_uncached() {
    let table = PriceTable::bundled().unwrap();
    let price = table.lookup("claude-sonnet-4-5").unwrap();
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
        cost(price, &uncached).unwrap(),
        cost(price, &cached).unwrap(),
    );
    assert!(
        cached > 0.0 && cached < uncached / 5.0,
        "{cached} vs {uncached}"
    );
}
